"""How the store writes a run's items (issue 42, recording at 100,000 items): in
batches straight to the driver, each batch's lines scrubbed at once, with the same
result as scrubbing line by line; and the run's case scores beside them. On SQLite and
PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_support import put, record, store_url

from pytest_dictbench.compare import CaseScores
from pytest_dictbench.redact import REDACTED, register_secret, scrub
from pytest_dictbench.store import open_store

SECRET = "sk-writing-test-0123456789abcdef"


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from store_url(request.param, tmp_path)


def test_items_are_scrubbed_batch_by_batch_as_line_by_line(url: str) -> None:
    register_secret(SECRET)
    texts = ["plain words", f"the key {SECRET} in text", f"part of it: {SECRET[3:22]}",
             "a line\nbreak inside", json.dumps(SECRET), "again plain"]
    records = [record(f"c{i:04d}", float(i % 100), text=texts[i % len(texts)])
               for i in range(4100)]  # three batches
    store = open_store(url)
    put(store, "r1", records)
    lines = [json.dumps(r, sort_keys=True, separators=(",", ":")) for r in records]
    stored = store.item_lines("r1")
    assert stored == [scrub(line) for line in lines]
    assert sum(REDACTED in line for line in stored) == 3 * 4100 // len(texts)
    assert not any(SECRET in line or SECRET[3:22] in line for line in stored)
    assert [r["case_id"] for r in store.items("r1")] == [r["case_id"] for r in records]
    assert store.case_scores("s1", "p1", ["r1"])["r1"] == CaseScores.of(records)
