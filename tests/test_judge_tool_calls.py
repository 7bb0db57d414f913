"""An answer must hold exactly one verdict tool call (S36): two calls that may disagree
are an invalid answer, asked again once, never scored from the first."""

from __future__ import annotations

import copy

from judge_server import MessagesServer, Recorded, Reply, message_body, requested_rules
from judge_support import JUDGE_A, make_request, run_judges


def _two_calls(request: Recorded) -> Reply:
    rules = requested_rules(request.body)
    body = message_body({"verdicts": {r: {"score": 2, "reason": "ok"} for r in rules}})
    second = copy.deepcopy(body["content"][0])
    second["id"] += "b"
    second["input"] = {"verdicts": {r: {"score": 0, "reason": "no"} for r in rules}}
    body["content"].append(second)
    return Reply(body=body)


def test_two_tool_calls_are_an_invalid_answer_asked_again() -> None:
    with MessagesServer(_two_calls) as server:
        run = run_judges([make_request()], server.url, judges=[JUDGE_A])
    assert len(server.requests) == 2  # asked once more, then an error
    outcome = run.outcome(next(iter(run.requests)), "judge-a")
    assert outcome is not None and outcome.verdict is None
    assert "2 record_verdicts calls" in outcome.detail
