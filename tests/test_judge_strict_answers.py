"""Judge answers are read with the strict JSON reader (J24) and an OpenAI-compatible
answer must be one complete choice (J25)."""

from __future__ import annotations

import json

from judge_server import MessagesServer, Recorded, Reply, message_body, requested_rules
from judge_support import API_KEY, JUDGE_A, make_request, run_judges

from pytest_dictbench.judge import JudgeClientFactory, JudgeConfig


def _duplicate_first_rule(request: Recorded) -> Reply:
    rules = requested_rules(request.body)
    text = json.dumps(message_body({"verdicts": {r: {"score": 2, "reason": "ok"}
                                                 for r in rules}}))
    # "A1" twice: first contradicted, then (last, and so winning in a lax reader) 2
    text = text.replace('"verdicts": {', '"verdicts": {"A1": {"score": 0, "reason": "x"}, ', 1)
    return Reply(body=text.encode())


def test_a_duplicate_key_in_an_answer_is_asked_again_then_an_error() -> None:
    with MessagesServer(_duplicate_first_rule) as server:
        run = run_judges([make_request()], server.url, judges=[JUDGE_A])
    assert len(server.requests) == 2  # invalid answer: asked once more
    outcome = run.outcome(next(iter(run.requests)), "judge-a")
    assert outcome is not None and outcome.verdict is None
    assert "duplicate key 'A1'" in outcome.detail


def _choices(request: Recorded, *, n: int = 1, finish: str = "stop") -> Reply:
    rules = requested_rules(request.body)
    content = json.dumps({"verdicts": {r: {"score": 2, "reason": "ok"} for r in rules}})
    choice = {"index": 0, "finish_reason": finish,
              "message": {"role": "assistant", "content": content}}
    body = {"id": "c", "object": "chat.completion", "model": "model-o",
            "choices": [dict(choice, index=i) for i in range(n)],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
    return Reply(body=json.dumps(body).encode())  # raw: passed through as it is


def _openai_run(server: MessagesServer) -> tuple[int, str]:
    config = JudgeConfig("judge-o", "model-o", family="openai", base_url=server.url + "/v1",
                         price_in_per_mtok=1.0, price_out_per_mtok=1.0)
    factory = JudgeClientFactory(timeout=5.0, environ={"OPENAI_API_KEY": API_KEY})
    run = run_judges([make_request()], server.url, judges=[config], factory=factory)
    outcome = run.outcome(next(iter(run.requests)), "judge-o")
    assert outcome is not None
    return len(server.requests), outcome.detail if outcome.verdict is None else "judged"


def test_two_choices_are_an_invalid_answer() -> None:
    with MessagesServer(lambda r: _choices(r, n=2)) as server:
        calls, detail = _openai_run(server)
    assert calls == 2 and "2 choices" in detail


def test_a_truncated_choice_is_an_invalid_answer() -> None:
    with MessagesServer(lambda r: _choices(r, finish="length")) as server:
        calls, detail = _openai_run(server)
    assert calls == 2 and "finish_reason 'length'" in detail


def test_one_complete_choice_is_judged() -> None:
    with MessagesServer(_choices) as server:
        calls, detail = _openai_run(server)
    assert (calls, detail) == (1, "judged")


def _error_then_fine(first: Reply, times: int = 2):
    replies = [first] * times

    def respond(request: Recorded) -> Reply:
        if replies:
            return replies.pop()
        rules = requested_rules(request.body)
        return Reply(body=message_body({"verdicts": {r: {"score": 2, "reason": "ok"}
                                                     for r in rules}}))
    return respond


def test_an_error_body_with_status_200_is_an_api_error_and_retried() -> None:
    overloaded = Reply(body={"type": "error", "error": {"type": "overloaded_error",
                                                        "message": "model overloaded"}})
    with MessagesServer(_error_then_fine(overloaded)) as server:
        run = run_judges([make_request()], server.url, judges=[JUDGE_A])
    # two overloads backed off like API errors (3 attempts), not two "invalid answers"
    assert run.count("judged") == 1 and len(server.requests) == 3


def test_an_openai_error_body_keeps_its_message() -> None:
    body = json.dumps({"error": {"message": "model overloaded", "type": "server_error"}})
    with MessagesServer(lambda r: Reply(body=body.encode())) as server:
        calls, detail = _openai_run(server)
    assert "model overloaded" in detail and calls == 3  # a server error: backed off
