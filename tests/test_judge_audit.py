"""Judge audit figures on hand-made verdicts, a live re-judge, and the API key's secrecy."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from judge_server import MessagesServer, Recorded, Reply, requested_rules, verdict_reply
from judge_support import API_KEY, JUDGE_A, JUDGE_B, make_request, run_judges

from pytest_dictbench.judge import (
    AnthropicClientFactory,
    JudgeOutcome,
    JudgeRun,
    RuleVerdict,
    Verdict,
    VerdictCache,
    combine,
    human_agreement,
    judge_agreement,
    rejudge_sample,
    self_consistency,
    write_pending,
)
from pytest_dictbench.judge.double import Decision
from pytest_dictbench.judge.request import REASON_MAX_CHARS

RULES = (("A1", "content words"), ("A6", "conjecture"))

# (judge-a, judge-b) scores per request for A1 and A6.
HAND = [
    {"A1": (2, 2), "A6": (2, 1)},
    {"A1": (2, 2), "A6": (1, 1)},
    {"A1": (0, 0), "A6": (2, 2)},
    {"A1": (2, 1), "A6": (0, 0)},
]


def _verdict(judge: str, scores: dict[str, int]) -> Verdict:
    return Verdict(judge, f"model-{judge}", f"h-{judge}-{scores}",
                   {r: RuleVerdict(s, "r") for r, s in scores.items()})


def _hand_run() -> JudgeRun:
    requests, outcomes = {}, {}
    for i, pairs in enumerate(HAND, start=1):
        request = make_request(f"c{i}", f"Output {i}.", rules=RULES)
        requests[request.key] = request
        outcomes[request.key] = {
            name: JudgeOutcome(name, "judged",
                               _verdict(name, {r: p[n] for r, p in pairs.items()}))
            for n, name in enumerate(("judge-a", "judge-b"))
        }
    # A fifth request where judge-b failed: it must not enter any pair.
    failed = make_request("c5", "Output 5.", rules=RULES)
    requests[failed.key] = failed
    outcomes[failed.key] = {
        "judge-a": JudgeOutcome("judge-a", "judged", _verdict("judge-a", {"A1": 0, "A6": 0})),
        "judge-b": JudgeOutcome("judge-b", "error", error="InternalServerError"),
    }
    return JudgeRun("live", (JUDGE_A, JUDGE_B), requests, outcomes)


def test_kappa_between_judges_per_rule_and_pooled() -> None:
    table = judge_agreement(_hand_run())
    a1, a6 = table.by_rule["A1"], table.by_rule["A6"]
    # A1: pairs (2,2) (2,2) (0,0) (2,1): p_o = 3/4; a = {2:3, 0:1}, b = {2:2, 0:1, 1:1}
    #     p_e = (3*2 + 1*1)/16 = 7/16; kappa = (12/16 - 7/16) / (9/16) = 5/9
    assert (a1.n, a1.agreed, a1.share) == (4, 3, 0.75)
    assert a1.kappa == pytest.approx(5 / 9)
    # A6: pairs (2,1) (1,1) (2,2) (0,0): p_o = 3/4; a = {2:2, 1:1, 0:1}, b = {1:2, 2:1, 0:1}
    #     p_e = (2*1 + 1*2 + 1*1)/16 = 5/16; kappa = (12/16 - 5/16) / (11/16) = 7/11
    assert a6.kappa == pytest.approx(7 / 11)
    # Pooled 8 pairs: p_o = 6/8; a = {2:5, 1:1, 0:2}, b = {2:3, 1:3, 0:2}
    #     p_e = (5*3 + 1*3 + 2*2)/64 = 22/64; kappa = (48 - 22) / (64 - 22) = 26/42 = 13/21
    assert table.overall.n == 8 and table.overall.kappa == pytest.approx(13 / 21)
    assert table.to_json()["rules"]["A1"] == {"n": 4, "agreed": 3, "share": 0.75,
                                               "kappa": round(5 / 9, 6)}


def test_agreement_with_human_decisions() -> None:
    run = _hand_run()
    reqs = list(run.requests.values())

    def decide(i: int, rule: str, score: int, text: str | None = None) -> Decision:
        r = reqs[i]
        digest = r.output_hash if text is None else "0" * 64
        return Decision(r.suite, r.case_id, r.product, digest, rule, score, "why", "h")

    decisions = [decide(0, "A6", 2), decide(3, "A1", 1), decide(2, "A1", 0), decide(1, "A6", 2),
                 decide(0, "A1", 0, text="an older output")]  # the last one matches nothing
    result = human_agreement(run, decisions)
    # judge-a vs human: (2,2) (2,1) (0,0) (1,2): p_o = 2/4; a = {2:2, 0:1, 1:1},
    #   human = {2:2, 1:1, 0:1}: p_e = (2*2 + 1*1 + 1*1)/16 = 6/16; kappa = (8-6)/(16-6) = 0.2
    assert (result["judge-a"].n, result["judge-a"].agreed) == (4, 2)
    assert result["judge-a"].kappa == pytest.approx(0.2)
    # judge-b vs human: (1,2) (1,1) (0,0) (1,2): b = {1:3, 0:1}: p_e = (3*1 + 1*1)/16 = 4/16
    #   kappa = (8-4)/(16-4) = 1/3
    assert result["judge-b"].kappa == pytest.approx(1 / 3)
    # consensus only where the judges agreed: (0,0) and (1,2): p_o = 1/2,
    #   p_e = (1*1 + 1*0)/4 = 1/4; kappa = (2-1)/(4-1) = 1/3
    assert (result["consensus"].n, result["consensus"].kappa) == (2, pytest.approx(1 / 3))


def test_self_consistency_of_cached_and_fresh_verdicts() -> None:
    def pair(old: dict[str, int], new: dict[str, int]) -> tuple[Verdict, Verdict]:
        return _verdict("judge-a", old), _verdict("judge-a", new)

    table = self_consistency([pair({"A1": 2, "A6": 2}, {"A1": 2, "A6": 1}),
                              pair({"A1": 0, "A6": 1}, {"A1": 0, "A6": 1}),
                              pair({"A1": 2, "A6": 2}, {"A1": 2, "A6": 2})])
    assert table.by_rule["A1"].kappa == 1.0  # all three identical
    # A6: (2,1) (1,1) (2,2): p_o = 2/3; old {2:2, 1:1}, new {1:2, 2:1}: p_e = 4/9
    #     kappa = (6/9 - 4/9) / (5/9) = 2/5
    assert table.by_rule["A6"].kappa == pytest.approx(0.4)
    # pooled: p_o = 5/6; old {2:4, 0:1, 1:1}, new {2:3, 0:1, 1:2}: p_e = 15/36
    #     kappa = (30 - 15) / (36 - 15) = 5/7
    assert table.overall.kappa == pytest.approx(5 / 7)


def test_no_pairs_gives_no_kappa() -> None:
    assert self_consistency([]).overall.kappa is None
    assert self_consistency([]).overall.share is None


def test_rejudge_sample_calls_only_the_sample_and_keeps_the_cache(tmp_path: Path) -> None:
    passes = {"n": 0}

    def flaky_second_pass(rec: Recorded) -> Reply:
        scores = {rule: 2 for rule in requested_rules(rec.body)}
        if passes["n"] and "Output 2." in json.dumps(rec.body):
            scores["A6"] = 1
        return verdict_reply(scores)

    requests = [make_request(f"c{i}", f"Output {i}.", rules=RULES) for i in range(6)]
    path = tmp_path / "verdicts.jsonl"
    with MessagesServer(flaky_second_pass) as server:
        with VerdictCache(path) as cache:
            run_judges(requests, server.url, judges=[JUDGE_A], cache=cache)
        before = path.read_bytes()
        passes["n"] = 1
        factory = AnthropicClientFactory(api_key=API_KEY, base_url=server.url)

        def sample(seed: int):
            return asyncio.run(rejudge_sample(requests, JUDGE_A, cache=VerdictCache(path),
                                              client_factory=factory, n=6, seed=seed))

        pairs, fresh = sample(3)
        assert len(server.requests) == 6 + 6 and fresh.calls == 6 and len(pairs) == 6
        table = self_consistency(pairs)
        # 12 pairs, one disagreement (A6 on output 2: 2 then 1); old all 2s, so p_e = 11/12
        # and p_o = 11/12: kappa = 0.
        assert table.overall.n == 12 and table.overall.agreed == 11
        assert table.overall.kappa == pytest.approx(0.0)
        small, _ = asyncio.run(rejudge_sample(requests, JUDGE_A, cache=VerdictCache(path),
                                              client_factory=factory, n=2, seed=5))
        again, _ = asyncio.run(rejudge_sample(requests, JUDGE_A, cache=VerdictCache(path),
                                              client_factory=factory, n=2, seed=5))
        assert [p[0].content_hash for p in small] == [p[0].content_hash for p in again]
        assert len(small) == 2
    assert path.read_bytes() == before


def test_api_key_never_leaks(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    def hostile(rec: Recorded) -> Reply:
        text = json.dumps(rec.body)
        auth = rec.headers.get("authorization", "")
        if "Output 1." in text:  # an error body that echoes the credential
            body = {"type": "error", "error": {"type": "authentication_error",
                                               "message": f"bad credential {auth}"}}
            return Reply(status=401, body=body)
        if "Output 2." in text:
            return Reply(status=500, body={"type": "error", "error": {"message": auth}})
        if "Output 3." in text:  # too long a reason, the key in its middle: quoted, cut
            reason = "x" * (REASON_MAX_CHARS - 60) + auth + "y" * 90
            return verdict_reply({"A1": 2, "A6": 2}, reasons={"A1": reason})
        scores = {rule: 2 for rule in requested_rules(rec.body)}
        if rec.body["model"] == "model-b":
            scores["A6"] = 0
        return verdict_reply(scores)

    caplog.set_level(logging.DEBUG)
    requests = [make_request(f"c{i}", f"Output {i}.", rules=RULES) for i in range(5)]
    with MessagesServer(hostile) as server, VerdictCache(tmp_path / "v.jsonl") as cache:
        run = run_judges(requests, server.url, cache=cache)
    combined = combine(run)
    write_pending(tmp_path / "pending.jsonl", combined.pending)
    (tmp_path / "summary.json").write_text(json.dumps(run.summary()))
    details = [o.to_json() for per in run.outcomes.values() for o in per.values()]
    assert {d["error"] for d in details} >= {"AuthenticationError", "InternalServerError",
                                               "JudgeError"}
    assert any("[redacted]" in d["detail"] for d in details)  # the echo was there, and cut
    assert combined.pending  # something was written to the pending file
    texts = [p.read_text(encoding="utf-8") for p in tmp_path.iterdir()]
    texts += [caplog.text, json.dumps(details), repr(run.judges)]
    texts += [str(s) for per in combined.final.values() for s in per.values()]
    fragments = {API_KEY[i:i + 16] for i in range(len(API_KEY) - 15)}
    for text in texts:
        assert not [f for f in fragments if f in text]
