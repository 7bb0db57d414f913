"""The adjudication view's data without a browser: spans, decisions, private suites."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from pytest_dictbench.errors import DictbenchError, JudgeError
from pytest_dictbench.judge.adjudications import load_decisions
from pytest_dictbench.judge.records import output_hash
from pytest_dictbench.private import public_case_id
from pytest_dictbench.suites import load_suite
from pytest_dictbench.workbench.adjudicate import (
    TARGET,
    Adjudication,
    DecisionError,
    StaleEntry,
    disputed_spans,
)

OUTPUT = "明日の会議は10時からです、たぶん。"


def test_disputed_spans_come_from_quoted_fragments() -> None:
    reasons = ['"10時" is right', "「たぶん」 drops the hedge", "'missing' is not there",
               "no quote at all"]
    assert disputed_spans(OUTPUT, reasons) == [[6, 9], [14, 17]]
    assert disputed_spans("", reasons) == []


def private_setup(tmp_path: Path) -> tuple[Adjudication, str]:
    suite_dir = tmp_path / "cases" / "priv"
    suite_dir.mkdir(parents=True)
    (suite_dir / "suite.toml").write_text(
        'id = "priv"\nversion = "1"\ntitle = "P"\nmethod = "rubric"\nlocale = "ja-JP"\n'
        'canary = "CANARY-private-0001"\nprivate = true\n')
    case = {"id": "ja-9", "canary": "CANARY-private-0001", "script": "明日の会議"}
    (suite_dir / "cases.jsonl").write_text(json.dumps(case, ensure_ascii=False) + "\n")
    shown = public_case_id(load_suite(suite_dir), "ja-9")
    products = tmp_path / "products"
    (products / "p").mkdir(parents=True)
    (products / "p" / "priv.jsonl").write_text(
        json.dumps({"case_id": "ja-9", "text": OUTPUT}, ensure_ascii=False) + "\n")
    reports = tmp_path / "reports"
    reports.mkdir()
    pending = {"suite": "priv", "case": shown, "product": "p", "output_hash":
               output_hash(OUTPUT), "rule": "A6", "score": None, "reason": "",
               "decided_by": "", "judges": [{"name": "a", "score": 2, "reason": "w"},
                                            {"name": "b", "score": 1, "reason": "w"}]}
    (reports / "adjudication-pending.jsonl").write_text(json.dumps(pending) + "\n")
    (reports / "items.jsonl").write_text(json.dumps(
        {"suite": "priv", "case_id": shown, "product": "p", "text": None,
         "text_sha256": output_hash(OUTPUT)}) + "\n")
    adjudication = Adjudication("priv", {"ja-9": case}, reports, tmp_path / "judges",
                                aliases={shown: "ja-9"}, products_dir=products)
    return adjudication, shown


def first(adjudication: Adjudication) -> dict[str, str]:
    """The target (suite, case, product, rule, output hash) of the first pending entry."""
    return {k: adjudication.view()[0]["pending"][k] for k in TARGET}


def test_private_suite_pending_maps_back_to_real_ids(tmp_path: Path) -> None:
    adjudication, shown = private_setup(tmp_path)
    [entry] = adjudication.view()
    assert entry["pending"]["case"] == shown != "ja-9"
    assert entry["case"]["id"] == "ja-9" and entry["output"] == OUTPUT
    assert entry["draft"] is None and entry["decided"] is None
    with pytest.raises(DecisionError, match="no drafting model"):
        adjudication.draft(first(adjudication))
    line = adjudication.decide(first(adjudication), 1, " hedge dropped ", "kk",
                               today=dt.date(2026, 12, 1))
    assert (line["case"], line["score"], line["reason"], line["date"]) == (
        "ja-9", 1, "hedge dropped", "2026-12-01")
    [decision] = load_decisions(adjudication.decisions_path)
    assert (decision.case, decision.decided_by, decision.score) == ("ja-9", "kk", 1)
    assert adjudication.view()[0]["decided"] == {"score": 1, "reason": "hedge dropped",
                                                 "decided_by": "kk"}
    with pytest.raises(DecisionError, match="already decided"):
        adjudication.decide(first(adjudication), 2, "again", "kk")
    assert len(adjudication.decisions_path.read_text().splitlines()) == 1


@pytest.mark.parametrize(("score", "reason", "who", "message"), [
    (3, "r", "kk", "0, 1 or 2"), (True, "r", "kk", "0, 1 or 2"), (None, "r", "kk", "0, 1"),
    (2.0, "r", "kk", "integer 0, 1 or 2"), ("2", "r", "kk", "0, 1 or 2"),
    (1, "  ", "kk", "short reason"), (1, "r", "", "decided_by"), (1, "r", None, "decided_by"),
])
def test_nothing_is_decided_without_score_reason_and_name(
        tmp_path: Path, score: object, reason: str, who: object, message: str) -> None:
    adjudication, _ = private_setup(tmp_path)
    with pytest.raises(DecisionError, match=message):
        adjudication.decide(first(adjudication), score, reason, who)
    assert not adjudication.decisions_path.exists()


def test_a_failing_drafting_call_is_an_error_never_a_draft(tmp_path: Path) -> None:
    from judge_server import MessagesServer, error_reply
    from workbench_support import KEY, drafter_for

    adjudication, _ = private_setup(tmp_path)
    with MessagesServer(lambda request: error_reply(500, "api_error")) as server:
        adjudication.drafter = drafter_for(server.url)
        with pytest.raises(JudgeError, match=r"InternalServerError \(HTTP 500\)") as info:
            adjudication.draft(first(adjudication))
        assert KEY not in str(info.value)
    assert adjudication.view()[0]["draft"] is None
    assert not (tmp_path / "judges" / "adjudication-drafts.jsonl").exists()


def test_a_decision_names_its_entry_and_a_regenerated_pending_file_refuses_it(
        tmp_path: Path) -> None:
    """Finding 15: the page sends the entry it showed; when another run rewrote the
    pending file (other order, other output), nothing is recorded for the wrong item."""
    adjudication, _ = private_setup(tmp_path)
    seen = first(adjudication)
    pending = tmp_path / "reports" / "adjudication-pending.jsonl"
    entry = json.loads(pending.read_text())
    other = dict(entry, case="p-0000000000000000")
    changed = dict(entry, output_hash=output_hash(OUTPUT + "!"))
    pending.write_text(json.dumps(other) + "\n" + json.dumps(changed) + "\n")
    with pytest.raises(StaleEntry, match="no longer pending"):
        adjudication.decide(seen, 0, "drops the name", "kk")
    with pytest.raises(DecisionError, match="target must be an object"):
        adjudication.decide({"index": 0}, 0, "drops the name", "kk")
    assert not adjudication.decisions_path.exists()


def test_a_malformed_pending_line_is_named_with_file_and_line(tmp_path: Path) -> None:
    """Finding 3: a pending line without ``product`` is an error naming file:line."""
    adjudication, _ = private_setup(tmp_path)
    pending = tmp_path / "reports" / "adjudication-pending.jsonl"
    entry = json.loads(pending.read_text())
    del entry["product"]
    pending.write_text(pending.read_text() + json.dumps(entry) + "\n")
    with pytest.raises(DictbenchError, match=r"adjudication-pending.jsonl:2: .*product"):
        adjudication.view()
