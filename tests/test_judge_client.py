"""The judge against a real loopback HTTP peer, through the real anthropic SDK."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator

import pytest
from judge_server import (
    MessagesServer,
    Recorded,
    Reply,
    error_reply,
    message_body,
    requested_rules,
    user_text,
    verdict_reply,
)
from judge_support import (
    API_KEY,
    FAST_RETRY,
    JUDGE_A,
    JUDGE_B,
    RULES,
    make_request,
    run_judges,
)

from pytest_dictbench.errors import JudgeError
from pytest_dictbench.judge import (
    GUIDE_TEXT,
    TOOL_NAME,
    AnthropicClientFactory,
    JudgeConfig,
    RetryPolicy,
    VerdictCache,
    judge_all,
)


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer() as srv:
        yield srv


def test_request_shape_and_bearer_key(server: MessagesServer) -> None:
    request = make_request(product="AcmeDictate")
    run = run_judges([request], server.url, judges=[JUDGE_A])
    assert [r.path for r in server.requests] == ["/v1/messages"]
    seen = server.requests[0]
    # SDK 2.x sends the key as a bearer token and no x-api-key header.
    assert seen.headers["authorization"] == f"Bearer {API_KEY}"
    assert "x-api-key" not in seen.headers
    assert seen.headers["anthropic-version"]
    body = seen.body
    assert body["model"] == "model-a" and body["max_tokens"] == 1024
    # The guide is one system block marked cacheable; the sent tool schema names no
    # rules, so tools + system are the same prefix in every request.
    assert body["system"] == [{"type": "text", "text": GUIDE_TEXT,
                               "cache_control": {"type": "ephemeral"}}]
    assert body["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    assert [t["name"] for t in body["tools"]] == [TOOL_NAME]
    assert "A1" not in json.dumps(body["tools"])
    assert requested_rules(body) == ["A1", "A6", "B2"]
    assert "temperature" not in body  # None by default: the 2026-10-21 API rejects it
    text = user_text(body)
    for needle in ("I think the cause is the cache.", "all must-words present",
                   "A6: strength of conjecture kept", '"short": true', '"genre": "chat"'):
        assert needle in text
    # Blind judging: no product name, case id or canary reaches the judge.
    raw = json.dumps(body)
    assert "AcmeDictate" not in raw and "DICTBENCH-CANARY" not in raw and '"c1"' not in raw
    outcome = run.outcome(request.key, "judge-a")
    assert outcome is not None and outcome.status == "judged"
    assert {r: v.score for r, v in outcome.verdict.rules.items()} == {"A1": 2, "A6": 2, "B2": 2}


def test_temperature_is_sent_only_when_configured(server: MessagesServer) -> None:
    warm = JudgeConfig("warm", "model-w", temperature=0.0)
    run_judges([make_request()], server.url, judges=[warm])
    assert server.requests[0].body["temperature"] == 0.0


def test_key_and_base_url_from_environment(
    server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-from-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    factory = AnthropicClientFactory()
    assert "sk-from-env" not in repr(factory)
    run = run_judges([make_request()], "unused", judges=[JUDGE_A], factory=factory)
    assert run.count("judged") == 1
    assert server.requests[0].headers["authorization"] == "Bearer sk-from-env"


def test_missing_key_fails_before_any_call(
    server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    factory = AnthropicClientFactory(base_url=server.url)
    with pytest.raises(JudgeError, match="ANTHROPIC_API_KEY"):
        run_judges([make_request()], server.url, factory=factory)
    assert server.requests == []


def test_429_and_500_are_retried_then_succeed(server: MessagesServer) -> None:
    server.script(
        error_reply(429, "rate_limit_error", retry_after="0"),
        error_reply(500, "api_error"),
        error_reply(529, "overloaded_error"),
    )
    run = run_judges([make_request()], server.url, judges=[JUDGE_A],
                     retry=RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.02))
    assert run.outcome(make_request().key, "judge-a").status == "judged"
    assert len(server.requests) == 4 and run.calls == 4


def _recording_sleep(delays: list[float]):
    async def sleep(seconds: float) -> None:
        delays.append(seconds)
        await asyncio.sleep(0)

    return sleep


def _judge_with_sleep(url: str, retry: RetryPolicy, delays: list[float]):
    factory = AnthropicClientFactory(api_key=API_KEY, base_url=url)
    return asyncio.run(judge_all([make_request()], [JUDGE_A], mode="live", cache=None,
                                 client_factory=factory, retry=retry,
                                 sleep=_recording_sleep(delays)))


def test_retry_after_header_replaces_the_backoff(server: MessagesServer) -> None:
    server.script(error_reply(429, "rate_limit_error", retry_after="2.5"),
                  Reply(status=503, body={"type": "error"}, headers={"retry-after-ms": "40"}))
    delays: list[float] = []
    run = _judge_with_sleep(server.url, RetryPolicy(base_delay=0.001, seed=1), delays)
    assert run.count("judged") == 1
    assert delays == [2.5, 0.04]


def test_backoff_is_exponential_capped_and_seeded(server: MessagesServer) -> None:
    policy = RetryPolicy(max_attempts=5, base_delay=1.0, max_delay=3.0, seed=42)
    runs = []
    for _ in range(2):
        server.script(*[error_reply(500, "api_error")] * 4)
        delays: list[float] = []
        _judge_with_sleep(server.url, policy, delays)
        runs.append(delays)
    # attempt k waits min(3, 1 * 2**(k-1)) * jitter, jitter in [0.5, 1): caps 1, 2, 3, 3.
    for delay, cap in zip(runs[0], (1.0, 2.0, 3.0, 3.0), strict=True):
        assert cap * 0.5 <= delay < cap
    assert runs[0] == runs[1]  # same seed, same request: same jitter


def test_persistent_failure_gives_error_outcome_without_score(server: MessagesServer) -> None:
    server.responder = lambda rec: error_reply(500, "api_error")
    request = make_request()
    run = run_judges([request], server.url, judges=[JUDGE_A])
    outcome = run.outcome(request.key, "judge-a")
    assert outcome.status == "error" and outcome.error == "InternalServerError"
    assert outcome.verdict is None and "after 3 attempts" in outcome.detail
    assert len(server.requests) == FAST_RETRY.max_attempts == 3


def test_client_errors_are_not_retried(server: MessagesServer) -> None:
    server.responder = lambda rec: error_reply(400, "invalid_request_error")
    run = run_judges([make_request()], server.url, judges=[JUDGE_A])
    assert run.outcome(make_request().key, "judge-a").error == "BadRequestError"
    assert len(server.requests) == 1


def test_invalid_tool_input_is_retried_once_then_judge_error(server: MessagesServer) -> None:
    bad_score = verdict_reply({"A1": 2, "A6": 3, "B2": 2})
    missing_rule = verdict_reply({"A1": 2, "A6": 2})
    server.script(bad_score, missing_rule)
    request = make_request()
    run = run_judges([request], server.url, judges=[JUDGE_A])
    outcome = run.outcome(request.key, "judge-a")
    assert outcome.status == "error" and outcome.error == "JudgeError"
    assert "verdicts" in outcome.detail and "B2" in outcome.detail  # the second flaw named
    assert len(server.requests) == 2
    # Both invalid answers were billed: 2 x (100 in, 20 out).
    assert (run.spend["model-a"].input_tokens, run.spend["model-a"].output_tokens) == (200, 40)


def test_one_invalid_answer_then_valid_is_accepted(server: MessagesServer) -> None:
    server.script(Reply(body=b"{this is not json"), verdict_reply({"A1": 1, "A6": 2, "B2": 0}))
    run = run_judges([make_request()], server.url, judges=[JUDGE_A])
    verdict = run.outcome(make_request().key, "judge-a").verdict
    assert {r: v.score for r, v in verdict.rules.items()} == {"A1": 1, "A6": 2, "B2": 0}
    assert len(server.requests) == 2


def test_answer_without_tool_call_is_invalid(server: MessagesServer) -> None:
    text_only = message_body({})
    text_only["content"] = [{"type": "text", "text": "All fine."}]
    text_only["stop_reason"] = "end_turn"
    server.script(Reply(body=text_only), Reply(body=text_only))
    run = run_judges([make_request()], server.url, judges=[JUDGE_A])
    outcome = run.outcome(make_request().key, "judge-a")
    assert outcome.error == "JudgeError" and "no record_verdicts call" in outcome.detail


def test_timeout_becomes_error_after_attempts(server: MessagesServer) -> None:
    server.responder = lambda rec: Reply(body=message_body({}), delay=1.5)
    policy = RetryPolicy(max_attempts=2, base_delay=0.01)
    started = time.monotonic()
    run = run_judges([make_request()], server.url, judges=[JUDGE_A], retry=policy, timeout=0.3)
    assert time.monotonic() - started < 1.5
    outcome = run.outcome(make_request().key, "judge-a")
    assert outcome.status == "error" and outcome.error == "APITimeoutError"
    assert len(server.requests) == 2


def test_replay_never_touches_the_network(server: MessagesServer) -> None:
    def no_client(config: JudgeConfig):
        raise AssertionError("replay must not build a client")

    requests = [make_request("c1"), make_request("c2", "Something else.")]
    run = run_judges(requests, server.url, mode="replay", factory=no_client)
    assert server.requests == [] and run.calls == 0
    assert run.count("missing") == 4 and run.count("judged") == 0


def test_warm_cache_makes_zero_requests(server: MessagesServer, tmp_path) -> None:
    path = tmp_path / "verdicts.jsonl"
    requests = [make_request(f"c{i}", f"Output {i}.") for i in range(3)]
    with VerdictCache(path) as cache:
        first = run_judges(requests, server.url, cache=cache)
    assert first.calls == 6 and first.count("judged") == 6
    sent = len(server.requests)
    with VerdictCache(path) as cache:
        again = run_judges(requests, server.url, cache=cache)
    assert len(server.requests) == sent and again.calls == 0
    assert again.cache_hits == 6 and again.count("cached") == 6
    for request in requests:
        for judge in ("judge-a", "judge-b"):
            assert (again.outcome(request.key, judge).verdict
                    == first.outcome(request.key, judge).verdict)
    # The cached spend is what those verdicts cost when they were made.
    assert again.cached_spend["model-a"].input_tokens == first.spend["model-a"].input_tokens
    replay = run_judges(requests, server.url, mode="replay", cache=VerdictCache(path))
    assert replay.count("cached") == 6 and len(server.requests) == sent


def test_identical_content_is_judged_once(server: MessagesServer) -> None:
    same = [make_request(product="p1"), make_request(product="p2"),
            make_request(product="p1", repetition=2)]
    run = run_judges(same, server.url)
    assert len(server.requests) == 2  # one per judge
    assert all(run.outcome(r.key, "judge-b").status == "judged" for r in same)


def test_concurrency_is_bounded(server: MessagesServer) -> None:
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def slow(rec: Recorded) -> Reply:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.1)
        with lock:
            state["now"] -= 1
        return verdict_reply({rule: 2 for rule in requested_rules(rec.body)})

    server.responder = slow
    requests = [make_request(f"c{i}", f"Output {i}.") for i in range(6)]
    run = run_judges(requests, server.url, concurrency=3)
    assert run.count("judged") == 12
    assert state["peak"] == 3


def test_cost_is_usage_times_prices(server: MessagesServer) -> None:
    def priced(rec: Recorded) -> Reply:
        scores = {rule: 2 for rule in requested_rules(rec.body)}
        if rec.body["model"] == "model-a":
            return verdict_reply(scores, input_tokens=1000, output_tokens=200)
        return verdict_reply(scores, input_tokens=2000, output_tokens=400)

    server.responder = priced
    requests = [make_request("c1", "One."), make_request("c2", "Two.")]
    run = run_judges(requests, server.url)
    # judge-a: 2 calls x (1000 x $3 + 200 x $15) / 1e6 = 2 x 0.006 = 0.012
    # judge-b: 2 calls x (2000 x $1 + 400 x $5) / 1e6 = 2 x 0.004 = 0.008
    a, b = run.spend["model-a"], run.spend["model-b"]
    assert (a.calls, a.input_tokens, a.output_tokens) == (2, 2000, 400)
    assert a.cost_usd == pytest.approx(0.012) and b.cost_usd == pytest.approx(0.008)
    assert run.cost_usd == pytest.approx(0.020)
    assert run.summary()["cost_usd"] == pytest.approx(0.02)


def test_rule_ids_come_from_the_request(server: MessagesServer) -> None:
    rules = [("D3", "numbers written as expected")]
    run_judges([make_request(rules=rules)], server.url, judges=[JUDGE_B])
    assert requested_rules(server.requests[0].body) == ["D3"]
    assert RULES[0][0] not in requested_rules(server.requests[0].body)
