"""Double judging: agreement, pending decisions, human decisions, stale decisions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_server import MessagesServer, Recorded, Reply, requested_rules, verdict_reply
from judge_support import JUDGE_A, JUDGE_B, make_request, run_judges

from pytest_dictbench.errors import JudgeError
from pytest_dictbench.judge import (
    JudgeOutcome,
    JudgeRun,
    RuleVerdict,
    VerdictCache,
    combine,
    load_decisions,
    output_hash,
    write_pending,
)
from pytest_dictbench.judge.records import Verdict
from pytest_dictbench.model import RuleScore

OUT_1 = "I think the cause is the cache."
OUT_2 = "The cause is the cache."  # conjecture turned into an assertion


def _split_opinion(rec: Recorded) -> Reply:
    """judge-a passes everything; judge-b fails A6 on the output without 'I think'."""
    scores = {rule: 2 for rule in requested_rules(rec.body)}
    text = json.dumps(rec.body)
    if rec.body["model"] == "model-b" and OUT_2 in text:
        scores["A6"] = 0
        return verdict_reply(scores, reasons={"A6": "'I think' dropped: assertion"})
    return verdict_reply(scores, reasons={"A6": "conjecture kept"})


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer(_split_opinion) as srv:
        yield srv


def _decision(request, rule: str, score: int, **extra: object) -> dict[str, object]:
    line = {"suite": request.suite, "case": request.case_id, "product": request.product,
            "output_hash": request.output_hash, "rule": rule, "score": score,
            "reason": "meaning kept; 'I think' lost only its hedge", "decided_by": "tester"}
    line.update(extra)
    return line


def _write_lines(path: Path, lines: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_agreement_is_final_and_disagreement_is_pending(server, tmp_path) -> None:
    good, hedged = make_request("c1", OUT_1, product="p1"), make_request("c1", OUT_2, product="p2")
    run = run_judges([good, hedged], server.url)
    combined = combine(run)
    assert combined.final[good.key]["A6"] == RuleScore("A6", 2, "conjecture kept", "judge")
    assert combined.final[hedged.key]["A1"].source == "judge"
    pending_score = combined.final[hedged.key]["A6"]
    assert pending_score.score is None and pending_score.source == "unjudged"
    assert pending_score.evidence == "pending adjudication (judge-a=2, judge-b=0)"
    assert combined.counts == {"judge": 5, "human": 0, "unjudged": 1}

    path = tmp_path / "reports" / "pending.jsonl"
    write_pending(path, combined.pending)
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert lines == [{
        "suite": "s", "case": "c1", "product": "p2", "output_hash": output_hash(OUT_2),
        "rule": "A6",
        "judges": [{"name": "judge-a", "score": 2, "reason": "conjecture kept"},
                   {"name": "judge-b", "score": 0, "reason": "'I think' dropped: assertion"}],
        "score": None, "reason": "", "decided_by": "",
    }]
    assert [p.name for p in path.parent.iterdir()] == ["pending.jsonl"]  # no temp left


def test_decisions_apply_on_a_later_combine_without_new_requests(server, tmp_path) -> None:
    hedged = make_request("c1", OUT_2, product="p2")
    cache_path = tmp_path / "verdicts.jsonl"
    with VerdictCache(cache_path) as cache:
        combined = combine(run_judges([hedged], server.url, cache=cache))
    # A human fills in the pending line and saves it as adjudications.jsonl.
    filled = combined.pending[0].to_json() | {"score": 1, "reason": "hedge lost",
                                              "decided_by": "kk"}
    decisions = load_decisions(_write_lines(tmp_path / "adjudications.jsonl", [filled]))
    sent = len(server.requests)
    later = run_judges([hedged], server.url, mode="replay", cache=VerdictCache(cache_path))
    again = combine(later, decisions)
    assert len(server.requests) == sent
    assert again.final[hedged.key]["A6"] == RuleScore("A6", 1, "hedge lost", "human")
    assert again.pending == () and [d.rule for d in again.applied] == ["A6"]
    assert again.counts == {"judge": 2, "human": 1, "unjudged": 0}


def test_decision_for_a_changed_output_is_stale(server, tmp_path) -> None:
    old = make_request("c1", OUT_2, product="p2")
    new = make_request("c1", OUT_2 + " Thanks.", product="p2")
    decisions = load_decisions(_write_lines(tmp_path / "adj.jsonl", [_decision(old, "A6", 2)]))
    combined = combine(run_judges([new], server.url), decisions)
    assert [d.origin for d in combined.stale] == [f"{tmp_path / 'adj.jsonl'}:1"]
    assert combined.applied == ()
    assert combined.final[new.key]["A6"].source == "unjudged"  # still pending
    assert len(combined.pending) == 1


def test_decision_about_another_item_is_neither_applied_nor_stale(server, tmp_path) -> None:
    other = make_request("c9", OUT_2, product="p2")
    decisions = load_decisions(_write_lines(tmp_path / "adj.jsonl", [_decision(other, "A6", 2)]))
    combined = combine(run_judges([make_request("c1", OUT_1)], server.url), decisions)
    assert combined.stale == () and combined.applied == ()


def _hand_run(a: dict[str, int] | None, b: dict[str, int] | None, *, b_error: str = "") -> JudgeRun:
    request = make_request()
    outcomes: dict[str, JudgeOutcome] = {}
    for config, scores in ((JUDGE_A, a), (JUDGE_B, b)):
        if scores is None:
            outcomes[config.name] = JudgeOutcome(config.name, "error", error=b_error)
        else:
            rules = {r: RuleVerdict(s, f"{config.name} says {s}") for r, s in scores.items()}
            outcomes[config.name] = JudgeOutcome(
                config.name, "judged", Verdict(config.name, config.model, "h", rules))
    return JudgeRun("live", (JUDGE_A, JUDGE_B), {request.key: request},
                    {request.key: outcomes})


def test_one_judge_failing_leaves_rules_unjudged() -> None:
    run = _hand_run({"A1": 2, "A6": 2, "B2": 2}, None, b_error="RateLimitError")
    final = combine(run).final[make_request().key]
    assert {r.score for r in final.values()} == {None}
    assert final["A1"].evidence == "not judged (judge-b: RateLimitError)"


def test_human_decision_outranks_agreeing_judges(tmp_path) -> None:
    run = _hand_run({"A1": 2, "A6": 2, "B2": 2}, {"A1": 2, "A6": 2, "B2": 2})
    decisions = load_decisions(
        _write_lines(tmp_path / "adj.jsonl", [_decision(make_request(), "B2", 0)]))
    final = combine(run, decisions).final[make_request().key]
    assert final["B2"].score == 0 and final["B2"].source == "human"
    assert final["A1"] == RuleScore("A1", 2, "judge-a says 2", "judge")


def test_mode_off_leaves_everything_unjudged() -> None:
    request = make_request()
    run = JudgeRun("off", (JUDGE_A, JUDGE_B), {request.key: request})
    final = combine(run).final[request.key]
    assert all(s.score is None and s.evidence == "judging is off" for s in final.values())


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"suite": "s"', "malformed JSON"),
        (json.dumps(_decision(make_request(), "A6", 3)), "score: 3 is not one of"),
        (json.dumps(_decision(make_request(), "A6", 2, output_hash="abc")), "output_hash"),
        (json.dumps(_decision(make_request(), "A6", 2, decided_by="")), "decided_by"),
        (json.dumps({k: v for k, v in _decision(make_request(), "A6", 2).items()
                     if k != "reason"}), "'reason' is a required property"),
        (json.dumps({"score": None}), "is a required property"),
    ],
)
def test_bad_decision_lines_name_file_and_line(tmp_path, line: str, message: str) -> None:
    path = tmp_path / "adjudications.jsonl"
    good = json.dumps(_decision(make_request(), "A1", 2))
    path.write_text(good + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(JudgeError, match=message) as info:
        load_decisions(path)
    assert str(info.value).startswith(f"{path}:3: ")


def test_conflicting_duplicate_decisions_are_an_error(tmp_path) -> None:
    request = make_request()
    path = _write_lines(tmp_path / "adj.jsonl",
                        [_decision(request, "A6", 2), _decision(request, "A6", 2),
                         _decision(request, "A6", 0)])
    with pytest.raises(JudgeError, match=r"adj.jsonl:3: .*decided twice.*adj.jsonl:2") as info:
        load_decisions(path)
    assert "(2 at" in str(info.value)


def test_missing_decisions_file_means_no_decisions(tmp_path) -> None:
    assert load_decisions(tmp_path / "none.jsonl") == []
