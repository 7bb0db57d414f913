"""The provider client's error messages: whatever a provider sends back as an error body
or a broken answer, the item's error quotes it without the key, never crashes, and no
log line carries the key."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
from http_stt_server import Reply
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from provider_servers import KEY, DeepgramFake, ProviderServer

from pytest_dictbench.adapters.providers.client import ProviderClient, _message
from pytest_dictbench.errors import CaptureError
from pytest_dictbench.redact import register_secret

#: JSON values an error body may hold, the key sometimes among them.
_TEXT = st.one_of(st.text(max_size=40), st.just(KEY), st.builds(lambda a, b: a + KEY + b,
                                                                 st.text(max_size=10),
                                                                 st.text(max_size=10)))
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | _TEXT,
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.sampled_from(["error", "message", "detail",
                                                        "err_msg", "code", "x"]),
                                       inner, max_size=4), max_leaves=12)


@given(body=_JSON)
def test_the_message_of_any_json_error_body_is_short_text(body: object) -> None:
    """For every JSON error body: a string of at most the quoted length (plus ': ' and
    '...'), taken from the body."""
    message = _message(json.dumps(body).encode())
    assert isinstance(message, str) and len(message) <= 305


@given(raw=st.binary(max_size=300))
def test_the_message_of_any_bytes_is_text(raw: bytes) -> None:
    """For every byte string (HTML, binary, broken UTF-8): text, never an exception."""
    assert isinstance(_message(raw), str)


@pytest.fixture(scope="module")
def fake() -> DeepgramFake:
    return DeepgramFake()


@pytest.fixture(scope="module")
def server(fake: DeepgramFake) -> Iterator[ProviderServer]:
    with ProviderServer(fake) as running:
        yield running


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=_JSON, status=st.sampled_from([400, 401, 403, 404, 413, 422]))
def test_no_error_body_puts_the_key_in_the_items_error(
        fake: DeepgramFake, server: ProviderServer, body: object, status: int) -> None:
    """For every permanent error a provider answers, with the key anywhere in its body:
    a CaptureError naming the status, without the key."""
    register_secret(KEY)
    client = ProviderClient("Deepgram", server.url, KEY, ("Authorization", f"Token {KEY}"), 5)
    fake.faults = [Reply(status, body)]
    with pytest.raises(CaptureError) as caught:
        client.session("c1").send("POST", "/v1/listen", content=b"RIFF")
    assert f"HTTP {status}" in str(caught.value) and KEY not in str(caught.value)
    client.close()


def test_no_log_line_carries_the_key(fake: DeepgramFake, server: ProviderServer,
                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    client = ProviderClient("Deepgram", server.url, KEY, ("Authorization", f"Token {KEY}"), 5)
    fake.faults = [Reply(429, {"err_msg": "slow"}, headers={"Retry-After": "0"})]
    reply = client.session("c1").send("POST", "/v1/listen?model=nova-3", content=b"RIFF....",
                                      headers={"Content-Type": "audio/wav"})
    assert reply.status == 200
    assert caplog.records  # httpx and httpcore did log the requests
    assert KEY not in caplog.text
    client.close()
