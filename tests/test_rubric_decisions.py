"""Human decisions and judges on rubric items, in real pytest runs against a loopback
Messages server (findings S27-S31 of the spine review)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from judge_server import MessagesServer, Recorded, Reply, requested_rules, verdict_reply
from judge_support import run_judged, write_ja_project

KEY = "sk-test-0123456789abcdefSECRET"


def all_twos(request: Recorded) -> Reply:
    return verdict_reply(dict.fromkeys(requested_rules(request.body), 2))


def d1_disputed(request: Recorded) -> Reply:
    """Every rule 2, but judge-b gives D1 = 1."""
    scores = dict.fromkeys(requested_rules(request.body), 2)
    if request.body["model"] == "model-b" and "D1" in scores:
        scores["D1"] = 1
    return verdict_reply(scores)


@pytest.fixture
def project(pytester: pytest.Pytester) -> tuple[pytest.Pytester, list[dict[str, Any]]]:
    cases = write_ja_project(pytester.path)
    pytester.makeini("[pytest]\ndictbench_suites = cases/ja\n")
    return pytester, cases


def set_output(root: Path, case_id: str, text: str) -> str:
    """Make product p's output of ``case_id`` ``text``; its sha256."""
    path = root / "products" / "p" / "ja-dictation.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if line["case_id"] == case_id:
            line["text"] = text
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines),
                    encoding="utf-8")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def decide(root: Path, *decisions: dict[str, Any]) -> None:
    folder = root / "judges"
    folder.mkdir(exist_ok=True)
    (folder / "adjudications.jsonl").write_text(
        "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in decisions), encoding="utf-8")


def decision(digest: str, rule: str = "D1", score: Any = 2, **over: Any) -> dict[str, Any]:
    return {"suite": "ja-dictation", "case": "ja-002", "product": "p", "output_hash": digest,
            "rule": rule, "score": score, "reason": "fine here", "decided_by": "kk", **over}


def record(root: Path, case_id: str) -> dict[str, Any]:
    text = (root / "reports" / "items.jsonl").read_text(encoding="utf-8")
    return next(r for r in map(json.loads, text.splitlines()) if r["case_id"] == case_id)


def test_a_decision_on_a_known_answer_is_applied_with_judges_declared(project) -> None:
    # S27: the known answer decided every rule, so the decision was never looked at
    pytester, cases = project
    alternative = cases[1]["alternatives"][0]["text"]  # lists D1 = 0
    digest = set_output(pytester.path, "ja-002", alternative)
    decide(pytester.path, decision(digest))
    with MessagesServer(all_twos) as server:
        run_judged(pytester, server, KEY, "--judge=live", "-k", "ja-002")
        # the case's listed scores are the author's decision: judges are not asked
        assert server.requests == []
    d1 = record(pytester.path, "ja-002")["rules"]["D1"]
    assert (d1["score"], d1["source"], d1["evidence"]) == (2, "human", "fine here")
    assert d1["auto"]["score"] == 0


def test_judges_disagreeing_on_an_automated_rule_leave_the_item_provisional(project) -> None:
    # S28: the automated D1 = 0 stood and the item counted while the pending file
    # asked a person to decide
    pytester, cases = project
    set_output(pytester.path, "ja-002", cases[1]["alternatives"][0]["text"].rstrip("。"))
    with MessagesServer(d1_disputed) as server:
        run_judged(pytester, server, KEY, "--judge=live", "-k", "ja-002")
    found = record(pytester.path, "ja-002")
    assert found["rules"]["D1"]["source"] == "unjudged"
    assert found["rules"]["D1"]["evidence"] == \
        "pending adjudication (judge-a=2, judge-b=1)"
    assert found["rules"]["D1"]["auto"]["score"] == 0
    assert found["provisional"] == 1


def test_a_float_score_in_a_decision_is_written_as_an_integer(project) -> None:
    # S30: "score": 2.0 came out as 2.0 in items.jsonl
    pytester, cases = project
    digest = set_output(pytester.path, "ja-002", cases[1]["alternatives"][0]["text"])
    decide(pytester.path, decision(digest, score=2.0))
    pytester.runpytest("--product=p", "-k", "ja-002")
    text = (pytester.path / "reports" / "items.jsonl").read_text(encoding="utf-8")
    assert '"score":2.0' not in text.replace(" ", "")
    d1 = record(pytester.path, "ja-002")["rules"]["D1"]
    assert (d1["score"], d1["source"], d1["auto"]["score"]) == (2, "human", 0)
    assert type(d1["score"]) is int


def test_overturned_automated_scores_are_named_in_the_terminal(project) -> None:
    # S31: only dictbench.json and the md/html tables said so; a CI log showed nothing
    pytester, cases = project
    set_output(pytester.path, "ja-002", cases[1]["alternatives"][0]["text"].rstrip("。"))
    with MessagesServer(all_twos) as server:
        result = run_judged(pytester, server, KEY, "--judge=live", "-k", "ja-002")
    assert record(pytester.path, "ja-002")["rules"]["D1"]["auto"]["score"] == 0
    result.stdout.fnmatch_lines(
        ["ja-dictation/p: judges or a person overturned automated scores: *D1 1 of 1*"])


def test_decisions_that_decide_nothing_are_listed_with_file_line_and_why(project) -> None:
    # S29: stale and misdirected decisions went unused without a word anywhere
    pytester, cases = project
    digest = set_output(pytester.path, "ja-002", cases[1]["alternatives"][0]["text"])
    decide(pytester.path,
           decision(digest),                       # line 1: applied
           decision("0" * 64),                     # line 2: stale output
           decision(digest, case="JA-001"),        # line 3: no such case
           decision(digest, rule="C9"),            # line 4: a rule the case does not score
           decision(digest, product="old-name"),   # line 5: product not in the run
           decision(digest, suite="other-suite"))  # line 6: suite not in the run
    result = pytester.runpytest("--product=p", "-k", "ja-002")
    origin = "judges/adjudications.jsonl"
    result.stdout.fnmatch_lines([
        f"decision not applied: {origin}:2: ja-dictation/p rule D1: stale: *",
        f"decision not applied: {origin}:3: ja-dictation/p rule D1: its case is not in *",
        f"decision not applied: {origin}:4: ja-dictation/p rule C9: rule 'C9' is not scored*"])
    report = json.loads((pytester.path / "reports/dictbench.json").read_text("utf-8"))
    # other products and suites (lines 5, 6) belong to other runs: not listed
    assert [d["origin"] for d in report["decisions_unused"]] == [
        f"{origin}:{n}" for n in range(2, 5)]
    markdown = (pytester.path / "reports/dictbench.md").read_text("utf-8")
    assert "## Decisions not applied" in markdown and f"{origin}:2" in markdown
    assert record(pytester.path, "ja-002")["rules"]["D1"]["source"] == "human"
