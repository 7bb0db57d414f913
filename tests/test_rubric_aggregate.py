"""The rubric's suite tables on a small hand-made set of item records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.methods.rubric import RubricMethod
from pytest_dictbench.model import Case, ItemResult, Output, ScoreContext, Suite


def case(case_id: str, genre: str, source: str, short: bool, expected: str) -> Case:
    data = {
        "id": case_id,
        "canary": "X",
        "genre": genre,
        "short": short,
        "source": source,
        "script": "(script)",
        "expected": [expected],
        "must": ["工程表"] if case_id == "c" else [],
    }
    return Case(case_id, data)


SUITE = Suite(
    id="ja-test",
    version="1",
    title="t",
    method="rubric",
    locale="ja-JP",
    canary="X",
    root=Path("."),
    cases=(
        case("a", "chat", "v0", True, "承知しました。"),
        case("b", "chat", "v0", False, "明日までに確認して共有します。"),
        case("c", "notes", "new", True, "工程表は金曜までです。"),
        case("d", "email", "new", True, "よろしくお願いします。"),
    ),
)


def rule(score: int | None, source: str = "auto", evidence: str = "") -> dict[str, Any]:
    return {"score": score, "evidence": evidence, "source": source}


def metrics(a: float, b: float, c: float | None, d: float, *, judge_a: int = 0, error: int = 0):
    values = {"layer_A": a, "layer_B": b, "layer_D": d, "meaning_error": error}
    if c is not None:
        values["layer_C"] = c
    values.update({"auto_A": 3, "judge_A": judge_a, "unjudged_A": 9 - judge_a, "auto_B": 2})
    return values


RECORDS = [
    {  # full case block on the record itself
        "case_id": "a",
        "repetition": 1,
        "status": "passed",
        "score": 100.0,
        "case": {"genre": "chat", "source": "v0", "short": True},
        "rules": {"A1": rule(2), "A6": rule(None, "unjudged")},
        "metrics": metrics(2, 2, 2, 2),
        "text": "承知しました。",
    },
    {  # genre only on the record: source and short come from the suite's case
        "case_id": "b",
        "repetition": 1,
        "status": "passed",
        "score": 87.5,
        "case": {"genre": "chat"},
        "rules": {"B1": rule(0, evidence="filler left in: えっと"), "A6": rule(None, "unjudged")},
        "metrics": metrics(2, 1, 2, 2),
        "text": "えっと、明日までに確認して共有します。",
    },
    {
        "case_id": "c",
        "repetition": 1,
        "status": "failed",
        "score": 0.0,
        "case": {"genre": "notes"},
        "rules": {
            "A1": rule(0, evidence="missing content word(s): 工程表"),
            "A6": rule(None, "unjudged"),
            "D1": rule(0, evidence="wrong homophone"),
            "D3": rule(2),
        },
        "metrics": metrics(1, 2, 2, 1.6, error=1),
        "text": "行程表は金曜までです。",
    },
    {
        "case_id": "d",
        "repetition": 1,
        "status": "error",
        "score": None,
        "case": {"genre": "email"},
        "rules": {},
        "metrics": {},
        "text": "",
    },
    {
        "case_id": "a",
        "repetition": 2,
        "status": "not_tested",
        "score": None,
        "case": {"genre": "chat"},
        "rules": {},
        "metrics": {},
        "text": "",
    },
    {  # judged meaning error; no C rule scored on this record
        "case_id": "b",
        "repetition": 2,
        "status": "failed",
        "score": 0.0,
        "case": {"genre": "chat"},
        "rules": {"A6": rule(1, "judge", "hedge dropped")},
        "metrics": metrics(1, 2, None, 2, judge_a=1, error=1),
        "text": "明日までに確認して共有する。",
    },
]

TABLES = RubricMethod().aggregate(RECORDS, SUITE)


def test_summary_hand_computed():
    summary = TABLES["summary"]
    # scored: a1 100, b1 87.5, c1 0, b2 0 -> 187.5 / 4 = 46.875
    assert summary["items"] == 4 and summary["score"] == pytest.approx(46.875)
    assert (summary["passed"], summary["meaning_errors"]) == (2, 2)
    # A: (2+2+1+1)/4 = 1.5 -> 75; B: (2+1+2+2)/4 = 1.75 -> 87.5
    # C: b2 has no C rule -> (2+2+2)/3 = 2 -> 100; D: (2+2+1.6+2)/4 = 1.9 -> 95
    assert summary["layer_A"] == pytest.approx(75.0)
    assert summary["layer_B"] == pytest.approx(87.5)
    assert summary["layer_C"] == pytest.approx(100.0)
    assert summary["layer_D"] == pytest.approx(95.0)
    # per-layer source counts summed over scored records: 4·3 auto, 1 judge, 9+9+9+8
    assert (summary["auto_A"], summary["judge_A"], summary["unjudged_A"]) == (12, 1, 35)
    assert summary["auto_B"] == 8 and summary["unjudged_D"] == 0


def test_groups_by_genre_source_and_short():
    chat = {"items": 3, "score": pytest.approx(62.5), "meaning_errors": 1}  # (100+87.5+0)/3
    notes = {"items": 1, "score": 0.0, "meaning_errors": 1}
    assert TABLES["by_genre"] == {"chat": chat, "notes": notes}
    assert TABLES["by_source"] == {"new": notes, "v0": chat}
    # short: a1 100, c1 0 -> 50; not short: b1 87.5, b2 0 -> 43.75
    assert TABLES["by_short"] == {
        "not_short": {"items": 2, "score": pytest.approx(43.75), "meaning_errors": 1},
        "short": {"items": 2, "score": pytest.approx(50.0), "meaning_errors": 1},
    }


def test_rule_failures_and_unjudged_counts_in_rubric_order():
    assert TABLES["rule_failures"] == {"A1": 1, "A6": 1, "B1": 1, "D1": 1}
    assert list(TABLES["rule_failures"]) == ["A1", "A6", "B1", "D1"]
    assert TABLES["unjudged"] == {"A6": 3}


def test_failing_items_sorted_with_rules_and_diff():
    rows = TABLES["failing_items"]
    assert [r["case_id"] for r in rows] == ["b", "c"]
    assert rows[0]["rules"] == {"A6": {"score": 1, "evidence": "hedge dropped"}}
    assert rows[0]["diff"] == "…確認して共有[-します-]{+する+}。"
    assert rows[1]["rules"] == {
        "A1": {"score": 0, "evidence": "missing content word(s): 工程表"},
        "D1": {"score": 0, "evidence": "wrong homophone"},
    }
    # 工->行 replaced; of the 10 unchanged characters after it, 6 are kept (程表は金曜ま) + …
    assert rows[1]["diff"] == "[-工-]{+行+}程表は金曜ま…"


def test_no_scored_records_gives_empty_tables():
    tables = RubricMethod().aggregate([RECORDS[3]], SUITE)
    assert tables["summary"]["items"] == 0 and tables["summary"]["score"] is None
    assert tables["summary"]["layer_A"] is None
    assert tables["by_genre"] == {} and tables["failing_items"] == []


def to_record(case_id: str, result: ItemResult, text: str) -> dict[str, Any]:
    return {
        "case_id": case_id,
        "repetition": 1,
        "status": "passed" if result.passed else "failed",
        "score": result.score,
        "rules": {r.rule: r.to_json() for r in result.rules},
        "metrics": dict(result.metrics),
        "case": {"genre": SUITE.case(case_id).genre},
        "text": text,
        "message": result.message,
    }


def test_records_made_from_method_results_aggregate_consistently():
    method = RubricMethod()
    outputs = {"a": "承知しました。", "c": "行程表は金曜までです。"}
    records = [
        to_record(cid, method.score(SUITE.case(cid), Output(cid, text), ScoreContext(SUITE)), text)
        for cid, text in outputs.items()
    ]
    tables = method.aggregate(records, SUITE)
    # a equals its expected output (100); c lost its must word (meaning error, 0)
    assert tables["summary"]["score"] == pytest.approx(50.0)
    assert tables["summary"]["meaning_errors"] == 1
    assert tables["rule_failures"] == {"A1": 1}
    assert tables["failing_items"][0]["rules"]["A1"]["evidence"] == (
        "missing content word(s): 工程表"
    )
    # c is not a known answer, so its nine judgement rules of layer A are unjudged
    assert tables["unjudged"]["A4"] == 1 and tables["summary"]["unjudged_A"] == 9


def test_overturned_automated_scores_are_counted_per_rule():
    auto_zero = {"score": 0, "evidence": "えっと"}
    records = [
        {"case_id": "a", "repetition": 1, "status": "passed", "score": 100.0, "rules": {
            # a judge cleared an automated 0: overturned
            "B1": {**rule(2, "judge", "a demonstrative"), "auto": auto_zero},
            # a person agreed with the automated 0: judged over auto, not overturned
            "A1": {**rule(0, "human", "term swapped"), "auto": {"score": 0, "evidence": ""}},
            # a judgement rule with no automated score: neither
            "A6": rule(2, "judge")}, "metrics": {}},
        {"case_id": "b", "repetition": 1, "status": "passed", "score": 100.0, "rules": {
            "B1": {**rule(1, "judge", "one filler"), "auto": {"score": 2, "evidence": ""}},
            "A10": {**rule(2, "judge", ""), "auto": {"score": 0, "evidence": "forbid hit"}},
            "A4": {**rule(2, "judge", ""), "auto": {"score": 0, "evidence": "forbid hit"}}},
            "metrics": {}},
    ]
    tables = RubricMethod().aggregate(records, SUITE)
    assert tables["judged_over_auto"] == {"A1": 1, "A4": 1, "A10": 1, "B1": 2}
    assert tables["overturned"] == {"A4": 1, "A10": 1, "B1": 2}


def test_report_json_keeps_rules_in_rubric_order():
    from pytest_dictbench.report.files import dumps

    # the old writer sorted keys as strings: A10 before A4
    text = dumps({"rule_failures": {"A10": 1, "A4": 2, "A12": 3, "B1": 4}}, indent=None)
    assert text == '{"rule_failures":{"A4":2,"A10":1,"A12":3,"B1":4}}'
