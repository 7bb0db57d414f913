"""Judges of two model families: an OpenAI-compatible chat-completions judge beside an
Anthropic one, with the same verdict schema, cache, retries and redaction."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from judge_server import MessagesServer, Recorded, Reply, error_reply, verdict_reply
from judge_support import API_KEY, FAST_RETRY, JUDGE_A, make_request

from pytest_dictbench.errors import JudgeError
from pytest_dictbench.judge import (
    JudgeClientFactory,
    JudgeConfig,
    VerdictCache,
    combine,
    judge_all,
    parse_judge_settings,
)

OTHER_KEY = "sk-other-family-0f1e2d3c4b5a69788796a5b4c3d2e1f0-SECRET"


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer() as srv:
        yield srv


def open_judge(url: str) -> JudgeConfig:
    return JudgeConfig("judge-o", "gpt-x", family="openai", base_url=url + "/v1",
                       api_key_env="OTHER_JUDGE_KEY", price_in_per_mtok=2.0,
                       price_out_per_mtok=8.0)


def run(server: MessagesServer, judges: list[JudgeConfig], cache: VerdictCache | None = None):
    factory = JudgeClientFactory(api_key=API_KEY, base_url=server.url, timeout=5.0,
                                 environ={"OTHER_JUDGE_KEY": OTHER_KEY})
    return asyncio.run(judge_all([make_request()], judges, mode="live",
                                 cache=cache if cache is not None else VerdictCache(None),
                                 client_factory=factory,
                                 retry=FAST_RETRY))


def test_mixed_families_one_schema(server: MessagesServer) -> None:
    judge_o = open_judge(server.url)
    result = run(server, [JUDGE_A, judge_o])
    by_path = {r.path: r for r in server.requests}
    assert set(by_path) == {"/v1/messages", "/v1/chat/completions"}
    chat = by_path["/v1/chat/completions"]
    assert chat.headers["authorization"] == f"Bearer {OTHER_KEY}"
    assert API_KEY not in json.dumps(chat.headers)
    body = chat.body
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    schema = body["response_format"]["json_schema"]
    assert schema["strict"] is True and schema["name"] == "record_verdicts"
    assert schema["schema"]["properties"]["verdicts"]["required"] == ["A1", "A6", "B2"]
    key = make_request().key
    for name in ("judge-a", "judge-o"):
        outcome = result.outcome(key, name)
        assert outcome is not None and outcome.status == "judged"
        assert {r: v.score for r, v in outcome.verdict.rules.items()} == {  # type: ignore
            "A1": 2, "A6": 2, "B2": 2}
    combined = combine(result)
    assert {s.source for s in combined.final[key].values()} == {"judge"}


def test_cached_prompt_tokens_are_cache_reads(server: MessagesServer) -> None:
    def respond(request: Recorded) -> Reply:
        reply = verdict_reply({"A1": 2, "A6": 2, "B2": 2}, input_tokens=700, output_tokens=50)
        reply.body["usage"]["cache_read_input_tokens"] = 300
        return reply

    server.responder = respond
    judge_o = open_judge(server.url)
    result = run(server, [judge_o])
    verdict = result.outcome(make_request().key, "judge-o").verdict  # type: ignore[union-attr]
    # prompt_tokens 1000 of which 300 cached: 700 input + 300 cache reads
    assert verdict.usage.input_tokens == 700 and verdict.usage.cache_read_tokens == 300
    assert result.cost_usd == pytest.approx((700 * 2.0 + 300 * 0.2 + 50 * 8.0) / 1e6)


def test_family_in_cache_key_and_shared_cache(server: MessagesServer) -> None:
    judge_o = open_judge(server.url)
    cache = VerdictCache(None)
    run(server, [JUDGE_A, judge_o], cache)
    again = run(server, [JUDGE_A, judge_o], cache)
    assert again.cache_hits == 2 and again.calls == 0
    assert len({v.content_hash for v in cache}) == 2


def test_openai_errors_retried_and_redacted(server: MessagesServer) -> None:
    server.script(error_reply(429, "rate_limit_error", retry_after="0"),
                  Reply(status=400, body={"error": {"message": f"bad key {OTHER_KEY}"}}))
    result = run(server, [open_judge(server.url)])
    outcome = result.outcome(make_request().key, "judge-o")
    assert outcome is not None and outcome.status == "error"
    assert outcome.error == "TransportError" and "HTTP 400" in outcome.detail
    assert OTHER_KEY not in outcome.detail and "[redacted]" in outcome.detail
    assert len(server.requests) == 2  # the 429 was retried, the 400 was not


def test_invalid_structured_answer_retried_once(server: MessagesServer) -> None:
    server.script(verdict_reply({"A1": 2}), verdict_reply({"A1": 5, "A6": 2, "B2": 2}))
    result = run(server, [open_judge(server.url)])
    outcome = result.outcome(make_request().key, "judge-o")
    assert outcome is not None and outcome.status == "error"
    assert "2 attempts" in outcome.detail and len(server.requests) == 2


def test_settings_for_openai_judges() -> None:
    prices = {"price_in_per_mtok": 1.0, "price_out_per_mtok": 2.0}
    table = {"judges": [{"name": "a", "model": "m", **prices},
                        {"name": "o", "model": "g", "family": "openai",
                         "base_url": "http://127.0.0.1:9/v1", "api_key_env": "O_KEY",
                         **prices}],
             "budget_usd": 2.5, "batch_failures": "report"}
    settings = parse_judge_settings(table)
    assert [j.family for j in settings.judges] == ["anthropic", "openai"]
    assert settings.budget_usd == 2.5 and settings.batch_failures == "report"
    with pytest.raises(JudgeError, match="needs a base_url"):
        parse_judge_settings({"judges": [{"name": "o", "model": "g", "family": "openai"}]})
    with pytest.raises(JudgeError, match="api_key_env"):
        parse_judge_settings({"judges": [{"name": "o", "model": "g", "api_key_env": "sk-1"}]})
    with pytest.raises(JudgeError, match="credential"):
        parse_judge_settings({"judges": [{"name": "o", "model": "g", "api_key": "sk-1"}]})


def test_key_only_over_https_or_loopback() -> None:
    factory = JudgeClientFactory(environ={"OTHER_JUDGE_KEY": OTHER_KEY})
    with pytest.raises(JudgeError, match="only sent over https"):
        factory(open_judge("http://judge.example.com"))
    assert factory(open_judge("https://judge.example.com")) is not None


def test_missing_key_names_the_variable(server: MessagesServer) -> None:
    factory = JudgeClientFactory(base_url=server.url, environ={})
    with pytest.raises(JudgeError, match="export OTHER_JUDGE_KEY"):
        factory(open_judge(server.url))
