"""The item store (records spooled to disk, parsed once, streamed to items.jsonl) gives
the same records, items.jsonl and reports as keeping every record in memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_dictbench.aggregate import record_sort_key, summarize
from pytest_dictbench.methods.error_rate import ErrorRate
from pytest_dictbench.model import Case, Output, Product, ScoreContext, Suite
from pytest_dictbench.report.files import dumps, natural_line, natural_record, write_report_set
from pytest_dictbench.report.html import render_html
from pytest_dictbench.report.items import PARSED_ITEMS, ItemStore
from pytest_dictbench.report.markdown import render_markdown

WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "zulu", "東京", "ｶﾅ")
METHOD = ErrorRate()


def make_suite(references: list[str]) -> Suite:
    cases = tuple(Case(f"c{i:03d}", {"id": f"c{i:03d}", "reference": ref,
                                     **({"genre": "chat"} if i % 2 else {})}, i + 1)
                  for i, ref in enumerate(references))
    return Suite(id="gen", version="1", title="Generated", method="error_rate",
                 locale="en-US", canary="CANARY", root=Path("/nonexistent/gen"),
                 cases=cases, params={"threshold": 0.5})


def make_record(suite: Suite, case: Case, product: str, repetition: int, kind: str,
                text: str) -> dict[str, Any]:
    """A record shaped as the session makes it, scored by the real method."""
    record: dict[str, Any] = {
        "suite": suite.id, "suite_path": "cases/gen", "case_id": case.id,
        "product": product, "repetition": repetition, "case": {"genre": case.genre}
        if case.genre else {}, "text": None, "rules": {}, "metrics": {}, "score": None,
        "message": "", "provisional": 0, "latency_ms": None, "flags": {}}
    if kind == "error":
        return {**record, "status": "error", "output_status": "failed",
                "message": "failed: the app crashed"}
    if kind == "not_tested":
        return {**record, "status": "not_tested", "output_status": "unsupported",
                "message": "unsupported"}
    result = METHOD.score(case, Output(case.id, text, repetition), ScoreContext(suite))
    return {**record, "status": "passed" if result.passed else "failed",
            "output_status": "complete", "score": result.score, "text": text,
            "rules": {r.rule: r.to_json() for r in result.rules},
            "metrics": dict(result.metrics), "message": result.message,
            "latency_ms": float(len(text) * 7)}


phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
items = st.lists(st.tuples(st.integers(0, 5), st.sampled_from(("p1", "p2", "p3")),
                           st.integers(1, 3), st.sampled_from(("scored",) * 4 +
                                                              ("error", "not_tested")),
                           phrase),
                 min_size=1, max_size=40)


def keep_everything(lines: dict[str, str]) -> tuple[list[dict[str, Any]], str]:
    """The reference path: every line held and parsed at once, sorted for the reports."""
    pairs = sorted(((json.loads(line), line) for line in lines.values()),
                   key=lambda pair: record_sort_key(pair[0]))
    return [r for r, _ in pairs], "".join(line + "\n" for _, line in pairs)


def reports(suite: Suite, records: list[dict[str, Any]]) -> tuple[str, str, str]:
    products = {name: Product(name, "1", "cache", Path(f"/nonexistent/{name}.toml"))
                for name in ("p1", "p2", "p3")}
    report = summarize(records, {suite.id: suite}, products, {"error_rate": METHOD},
                       {suite.id: {}})
    return dumps(report), render_markdown(report, records), render_html(report, records)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(phrase, min_size=6, max_size=6), items,
       st.sampled_from(("lines only", "records kept", "some records kept")))
def test_store_gives_the_reports_of_the_keep_everything_path(references: list[str],
                                                             generated: list[Any],
                                                             keeping: str) -> None:
    suite = make_suite(references)
    lines: dict[str, str] = {}
    store = ItemStore()
    store.expect(len(generated) if keeping != "lines only" else PARSED_ITEMS + 1)
    for position, (index, product, repetition, kind, text) in enumerate(generated):
        case = suite.cases[index]
        nodeid = f"gen::{case.id}[{product}-r{repetition}]"
        line, written = natural_record(make_record(suite, case, product, repetition, kind,
                                                   text))
        lines[nodeid] = line  # a node id reported twice: the last record wins
        handed = keeping == "records kept" or (keeping == "some records kept" and position % 2)
        store.add(nodeid, line, written if handed else None)
    assert len(store) == len(lines) and all(nodeid in store for nodeid in lines)
    records, items_jsonl = keep_everything(lines)
    stored = store.records()
    assert list(stored) == records
    # a kept record is the very value json.loads gives: keys in the same order too
    assert [list(r) for r in stored] == [list(r) for r in records]
    assert "".join(store.lines()) == items_jsonl
    assert reports(suite, stored) == reports(suite, records)
    store.close()
    assert len(store) == 0


def test_repeated_values_are_held_once() -> None:
    suite = make_suite(["alpha bravo"] * 6)
    store = ItemStore()
    for i, case in enumerate(suite.cases):
        store.add(str(i), natural_line(make_record(suite, case, "p1", 1, "scored",
                                                   "alpha zulu")))
    records = store.records()
    for key in ("suite", "product", "status", "output_status", "suite_path"):
        assert len({id(r[key]) for r in records}) == 1, key
    assert len({id(r["rules"]["WER"]["source"]) for r in records}) == 1


def test_items_jsonl_is_written_from_the_stream(tmp_path: Path) -> None:
    """A streamed items.jsonl is the same file as the joined text, secrets scrubbed."""
    store = ItemStore()
    store.add("b", '{"case_id":"b","product":"p","repetition":1,"suite":"s"}')
    store.add("a", '{"case_id":"a","product":"p","repetition":1,"suite":"s"}')
    store.records()
    write_report_set(tmp_path / "reports", {"items.jsonl": store.lines()})
    assert (tmp_path / "reports" / "items.jsonl").read_text(encoding="utf-8").splitlines() \
        == ['{"case_id":"a","product":"p","repetition":1,"suite":"s"}',
            '{"case_id":"b","product":"p","repetition":1,"suite":"s"}']


def test_a_record_kept_parsed_is_json_of_its_line_with_tuples_as_lists() -> None:
    record = {"b": (1, 2.5), "a": {"A10": None, "A2": [True, "ｶﾅ"]}, 3: "three"}
    line, written = natural_record(record)
    assert written == json.loads(line) and list(written) == list(json.loads(line))
    assert line == '{"3":"three","a":{"A2":[true,"ｶﾅ"],"A10":null},"b":[1,2.5]}'


def test_a_store_expecting_a_large_run_keeps_no_record_parsed() -> None:
    store = ItemStore()
    store.expect(PARSED_ITEMS + 1)
    store.add("a", '{"case_id":"a","product":"p","repetition":1,"suite":"s"}',
              {"case_id": "a", "product": "p", "repetition": 1, "suite": "s"})
    assert store._parsed == {}
    store.expect(PARSED_ITEMS)
    record = {"case_id": "b", "product": "p", "repetition": 1, "suite": "s"}
    store.add("b", natural_line(record), record)
    store.add("b", natural_line({**record, "repetition": 2}))  # replaced, not kept
    assert store._parsed == {}
    assert [r["repetition"] for r in store.records()] == [1, 2]
