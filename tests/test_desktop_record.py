"""What the live-adapter engine takes from a desktop transcript record."""

from __future__ import annotations

import pytest

from pytest_dictbench.adapters.live import transcript_record


def test_a_measured_latency_and_desktop_facts_are_taken() -> None:
    status, text, error, fields = transcript_record(
        {"text": "hi", "latency_ms": 812.5, "desktop": {"settle": "settled"}})
    assert (status, text, error) == ("complete", "hi", None)
    assert fields == {"latency_ms": 812.5, "desktop": {"settle": "settled"}}


@pytest.mark.parametrize("record", [
    {"text": "a", "latency_ms": -1}, {"text": "a", "latency_ms": True},
    {"text": "a", "latency_ms": "5"}, {"text": "a", "desktop": ["x"]},
])
def test_malformed_desktop_fields_are_refused(record: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="invalid value"):
        transcript_record(record)
