"""The lean Messages API caller behind live judging, against the loopback server."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from judge_server import MessagesServer, Reply, error_reply

from pytest_dictbench.judge.backoff import classify
from pytest_dictbench.judge.messages_http import ANTHROPIC_VERSION, MessagesEndpoint
from pytest_dictbench.judge.transport import TransportError

KEY = "sk-ant-messages-http-test-key-0123456789"
BODY = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "日本語 ok"}]}


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer() as srv:
        yield srv


def create(url: str, body: dict[str, Any] = BODY, timeout: float = 5.0) -> str:
    async def call() -> str:
        endpoint = MessagesEndpoint(api_key=KEY, base_url=url, timeout=timeout)
        try:
            return await endpoint.create(body)
        finally:
            await endpoint.aclose()

    return asyncio.run(call())


def failure(url: str, **kwargs: Any) -> TransportError:
    with pytest.raises(TransportError) as info:
        create(url, **kwargs)
    assert KEY not in str(info.value)
    return info.value


def test_the_request_carries_the_body_key_and_version(server: MessagesServer) -> None:
    server.script(Reply(body={"ok": True}))
    assert create(server.url + "/") == '{"ok": true}'  # a trailing slash is dropped
    seen = server.requests[0]
    assert seen.path == "/v1/messages" and seen.body == BODY
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert seen.headers["content-type"] == "application/json"


@pytest.mark.parametrize(("status", "name", "retried"), [
    (400, "BadRequestError", False), (401, "AuthenticationError", False),
    (404, "NotFoundError", False), (418, "APIStatusError", False),
    (429, "RateLimitError", True), (500, "InternalServerError", True),
    (502, "InternalServerError", True), (503, "ServiceUnavailableError", True),
    (529, "OverloadedError", True),
])
def test_a_status_failure_has_the_sdk_name_and_the_backoff_verdict(
        server: MessagesServer, status: int, name: str, retried: bool) -> None:
    server.script(error_reply(status, "some_error", retry_after="7"))
    exc = failure(server.url)
    assert type(exc).__name__ == name and exc.status_code == status
    assert f"HTTP {status}" in str(exc) and "scripted" in str(exc)  # the API's message
    assert classify(exc) == (retried, 7.0 if retried else None)


def test_a_redirect_is_not_followed(server: MessagesServer) -> None:
    with MessagesServer() as elsewhere:
        server.script(Reply(status=307, body={},
                            headers={"location": elsewhere.url + "/v1/messages"}))
        exc = failure(server.url)
        assert elsewhere.requests == []  # the key never reached the other server
    assert (type(exc).__name__, exc.status_code, classify(exc)) == ("APIStatusError", 307,
                                                                     (False, None))


def test_no_answer_in_time_and_a_refused_connection_are_retried(server: MessagesServer) -> None:
    server.script(Reply(body={}, delay=1.0))
    late = failure(server.url, timeout=0.2)
    assert type(late).__name__ == "APITimeoutError" and classify(late) == (True, None)
    with socket.socket() as unused:  # a port that nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    refused = failure(f"http://127.0.0.1:{port}")
    assert type(refused).__name__ == "APIConnectionError" and classify(refused) == (True, None)


def test_plain_http_takes_no_proxy_from_the_environment(
        server: MessagesServer, monkeypatch: pytest.MonkeyPatch) -> None:
    with MessagesServer() as proxy:
        for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
            monkeypatch.setenv(name, proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        server.script(Reply(body={"ok": 1}))
        assert create(server.url) == '{"ok": 1}'
        assert proxy.requests == [] and len(server.requests) == 1
