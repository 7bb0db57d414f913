"""A large run's records read from the spool page by page (``report/spooled.py``): the
same values and reports as records held parsed, with at most ``PAGES`` pages parsed at
any time (issue 49: the report build of a large run held every record parsed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_dictbench.report import items as items_module
from pytest_dictbench.report import spooled
from pytest_dictbench.report.items import PARSED_ITEMS, ItemStore


def store_of(records: list[dict[str, Any]]) -> ItemStore:
    store = ItemStore()
    store.expect(PARSED_ITEMS + 1)  # a large run: lines only
    for index, record in enumerate(records):
        store.add(f"n{index}", json.dumps(record, separators=(",", ":")))
    return store


def generated(count: int) -> list[dict[str, Any]]:
    return [{"suite": "s", "product": f"p{i % 3}", "case_id": f"c{i:05d}", "repetition": 1,
             "metrics": {"word_ref": i % 7}, "text": "word " * (i % 5)}
            for i in range(count)]


def test_records_read_twice_give_the_same_values_with_few_pages_held(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 49: no pass over a large run's records holds them all parsed."""
    monkeypatch.setattr(spooled, "PAGE", 8)
    monkeypatch.setattr(spooled, "PAGES", 3)
    source = generated(500)
    store = store_of(source)
    records = store.records()
    assert isinstance(records, spooled.SpooledRecords)
    expected = sorted(source, key=lambda r: (r["suite"], r["product"], r["case_id"]))
    for _ in range(2):  # a second pass parses the pages again: the same values
        assert [dict(r) for r in records] == expected
        assert len(records._pages) <= 3
    assert records.pages_parsed == 2 * -(-500 // 8)
    assert records[0] == expected[0] and records[-1]["case_id"] == expected[-1]["case_id"]
    assert [r["case_id"] for r in records[10:13]] == [r["case_id"] for r in expected[10:13]]
    assert records[3].get("missing", "default") == "default" and "metrics" in records[3]
    # records of products side by side (a comparison) meet their pages still parsed
    parsed_before = records.pages_parsed
    for a, b in zip(records[:160], records[160:320], strict=True):
        assert a["suite"] == b["suite"]
    assert records.pages_parsed - parsed_before <= 320 // 8  # each page once at most
    # a page read again comes from its marshal copy: the values json.loads gives
    assert records._kept and [dict(r) for r in records] == expected
    store.close()
    assert records._file is None


def test_a_spooled_record_is_read_only() -> None:
    records = store_of(generated(3)).records()
    with pytest.raises(TypeError):
        records[0]["text"] = "changed"  # type: ignore[index]
    with pytest.raises(TypeError):
        hash(records[0])
    assert repr(records[0]).startswith("{'suite': 's'")


def run_reports(pytester: pytest.Pytester) -> dict[str, bytes]:
    result = pytester.runpytest("-p", "no:xdist", "--product=p1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    folder = pytester.path / "reports"
    # run-info.json holds the run's times; history.* describe the store's earlier runs
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())
            if p.name != "run-info.json" and not p.name.startswith("history.")}


def test_a_run_reading_its_records_from_the_spool_writes_the_same_reports(
        mini: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 49: the session's report build, results store and gate read spooled
    records as they read a list of dicts: the report set is byte for byte the same."""
    held = run_reports(mini)
    calls: list[int] = []
    original = spooled.SpooledRecords.__init__

    def counted(self: spooled.SpooledRecords, *args: Any) -> None:
        calls.append(1)
        original(self, *args)

    monkeypatch.setattr(items_module, "PARSED_ITEMS", 0)
    monkeypatch.setattr(spooled.SpooledRecords, "__init__", counted)
    monkeypatch.setattr(spooled, "PAGE", 2)
    monkeypatch.setattr(spooled, "PAGES", 1)
    assert run_reports(mini) == held
    assert calls == [1]  # the second run did read its records from the spool
    assert set(held) >= {"dictbench.json", "dictbench.md", "dictbench.html", "items.jsonl"}
