"""What the live-adapter engine takes from a desktop transcript record."""

from __future__ import annotations

import pytest

from pytest_dictbench.adapters.live import transcript_record


def test_a_measured_latency_and_desktop_facts_are_taken() -> None:
    status, text, error, fields = transcript_record(
        {"text": "hi", "latency_s": 0.8125, "desktop": {"settle": "settled"}})
    assert (status, text, error) == ("complete", "hi", None)
    assert fields == {"latency_s": 0.8125, "desktop": {"settle": "settled"}}


@pytest.mark.parametrize("record", [
    {"text": "a", "latency_s": -1}, {"text": "a", "latency_s": True},
    {"text": "a", "latency_s": "5"}, {"text": "a", "latency_s": float("inf")},
    {"text": "a", "desktop": ["x"]},
])
def test_malformed_desktop_fields_are_refused(record: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="invalid value"):
        transcript_record(record)
