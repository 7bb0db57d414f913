"""Every cloud provider kind against its loopback fake: the faults the issue lists.

Each kind must: send the key only in its header, retry 429 (honouring Retry-After), 5xx
and dropped connections, turn permanent failures into error outputs quoting the
provider's scrubbed message, hold ``timeout_s`` as a deadline against a trickled answer,
refuse redirects and malformed JSON, treat an empty transcript as a result and an answer
without text as an error, and refuse audio over a limit without sending anything.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from adapter_support import cache_lines, first_output, live_adapter, make_product, make_suite
from http_stt_server import Reply
from provider_servers import (
    DROP,
    KEY,
    KEY_ENV,
    AssemblyAIFake,
    AzureFake,
    DeepgramFake,
    ElevenLabsFake,
    Fake,
    GeminiFake,
    OpenAIFake,
    ProviderServer,
    SpeechmaticsFake,
)

from pytest_dictbench.adapters import builtin_adapters
from pytest_dictbench.adapters.live import LiveAdapter
from pytest_dictbench.adapters.providers import PROVIDERS
from pytest_dictbench.adapters.providers.base import Limits, provider_adapter
from pytest_dictbench.errors import ProductError
from pytest_dictbench.model import Output, Suite

#: kind -> (its fake, settings beside base_url, api_key_env and timeout_s)
KINDS: dict[str, tuple[type[Fake], dict[str, Any]]] = {
    "openai": (OpenAIFake, {"model": "whisper-1"}),
    "deepgram": (DeepgramFake, {}),
    "gemini": (GeminiFake, {}),
    "assemblyai": (AssemblyAIFake, {"poll_s": 0.02}),
    "elevenlabs": (ElevenLabsFake, {}),
    "speechmatics": (SpeechmaticsFake, {"poll_s": 0.02}),
    "azure": (AzureFake, {}),
}


@pytest.fixture(params=sorted(KINDS))
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def fake(kind: str) -> Fake:
    return KINDS[kind][0]()


@pytest.fixture
def server(fake: Fake) -> Iterator[ProviderServer]:
    with ProviderServer(fake) as running:
        yield running


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return make_suite(tmp_path / "suite", {"c1": "audio/c1.wav"})


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def settings(kind: str, server: ProviderServer, **extra: Any) -> dict[str, Any]:
    return {"base_url": server.url, "api_key_env": KEY_ENV, "timeout_s": 5,
            **KINDS[kind][1], **extra}


def adapter(tmp_path: Path, suite: Suite, kind: str, values: dict[str, Any],
            factory: Any = None) -> LiveAdapter:
    return live_adapter(make_product(tmp_path / "products", kind, values), suite, factory)


def capture(tmp_path: Path, suite: Suite, kind: str, server: ProviderServer,
            **extra: Any) -> Output:
    return first_output(adapter(tmp_path, suite, kind, settings(kind, server, **extra)), suite)


def no_key_written(tmp_path: Path) -> None:
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_every_kind_is_registered_next_to_the_other_adapters() -> None:
    assert set(KINDS) <= set(builtin_adapters()) and set(KINDS) == set(PROVIDERS)


def test_a_capture_completes_with_the_key_only_in_its_header(
        tmp_path: Path, suite: Suite, kind: str, fake: Fake, server: ProviderServer) -> None:
    output = capture(tmp_path, suite, kind, server)
    assert output.status == "complete", (output.error, [(r.method, r.path) for r in fake.requests])
    assert output.text == "hello from the provider"
    assert fake.requests and fake.leaks == []
    line = json.loads(cache_lines(adapter(tmp_path, suite, kind, settings(kind, server)).product,
                                  suite)[0])
    assert line["engine"] == kind and line["provider"]["requests"] == len(fake.requests)
    assert line["settings"]["api_key_env"] == KEY_ENV
    no_key_written(tmp_path)


def test_429_is_retried_after_the_servers_retry_after(
        tmp_path: Path, suite: Suite, kind: str, fake: Fake, server: ProviderServer) -> None:
    fake.faults = [Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "1"})]
    output = capture(tmp_path, suite, kind, server)
    assert output.status == "complete", output.error
    assert output.meta["provider"]["retry_waits_s"] == [1.0]


@pytest.mark.parametrize("first", [Reply(500, {"error": "boom"}), Reply(503, b"<html>busy"),
                                   Reply(DROP)], ids=["500", "503-html", "dropped"])
def test_a_transient_failure_is_retried_then_succeeds(
        tmp_path: Path, suite: Suite, kind: str, fake: Fake, server: ProviderServer,
        first: Reply) -> None:
    fake.faults = [first]
    output = capture(tmp_path, suite, kind, server)
    assert output.status == "complete", output.error
    waits = output.meta["provider"]["retry_waits_s"]
    assert len(waits) == 1 and 0.5 <= waits[0] < 1.0  # the policy's first delay, jittered


def test_a_permanent_failure_is_an_error_quoting_the_scrubbed_message(
        tmp_path: Path, suite: Suite, kind: str, fake: Fake, server: ProviderServer) -> None:
    fake.faults = [fake.refused(KEY)]  # a provider that echoes the key it was sent
    output = capture(tmp_path, suite, kind, server)
    assert output.status == "error"
    assert "HTTP 40" in output.error and "<redacted>" in output.error
    assert KEY not in output.error and "attempts" not in output.error
    assert len(fake.requests) == 1  # not retried
    no_key_written(tmp_path)


def test_a_wrong_key_is_refused_without_leaking_it(
        tmp_path: Path, suite: Suite, kind: str, fake: Fake, server: ProviderServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "wrong-key-9876543210")
    output = capture(tmp_path, suite, kind, server)
    assert output.status == "error" and "HTTP 40" in output.error
    assert "wrong-key-9876543210" not in output.error
    assert "wrong-key-9876543210" not in "\n".join(
        cache_lines(make_product(tmp_path / "products", kind, {}), suite))


def test_a_trickled_answer_ends_at_the_capture_deadline(
        tmp_path: Path, suite: Suite, kind: str, fake: Fake, server: ProviderServer) -> None:
    fake.faults = [Reply(body={"text": "x" * 60}, trickle_s=0.05)]
    output = capture(tmp_path, suite, kind, server, timeout_s=0.6)
    assert output.status == "error"
    assert "within timeout_s = 0.6 s" in output.error


def test_malformed_json_is_an_error(tmp_path: Path, suite: Suite, kind: str, fake: Fake,
                                    server: ProviderServer) -> None:
    fake.faults = [Reply(body=b'{"text": "half')]
    output = capture(tmp_path, suite, kind, server)
    assert output.status == "error" and "not valid JSON" in output.error


def test_cf21_a_repeated_key_is_named(tmp_path: Path, suite: Suite, kind: str, fake: Fake,
                                      server: ProviderServer) -> None:
    """CF21: valid JSON syntax with a key twice is not "not valid JSON": the key is named."""
    fake.faults = [Reply(body=b'{"text": "right", "text": "wrong"}')]
    output = capture(tmp_path, suite, kind, server)
    assert output.status == "error" and "repeats the key 'text' in one object" in output.error


def test_a_redirect_is_refused(tmp_path: Path, suite: Suite, kind: str, fake: Fake,
                               server: ProviderServer) -> None:
    fake.faults = [Reply(307, b"", headers={"Location": "http://example.invalid/steal"})]
    output = capture(tmp_path, suite, kind, server)
    assert output.status == "error" and "redirects are refused" in output.error
    assert len(fake.requests) == 1


def test_an_answer_without_text_is_an_error_and_an_empty_transcript_a_result(
        tmp_path: Path, suite: Suite, kind: str, fake: Fake, server: ProviderServer) -> None:
    fake.text = ""
    output = capture(tmp_path, suite, kind, server)
    assert output.status == "complete" and output.text == ""
    if kind == "assemblyai":  # its answers come from the job's poll
        fake.faults = [Reply(body={"upload_url": None})]
    else:
        fake.faults = [Reply(body={"unexpected": True})]
    output = adapter(tmp_path / "again", suite, kind, settings(kind, server)).get(
        suite.cases[0], 1)
    assert output is not None and output.status == "error"
    assert "without" in output.error


def test_audio_over_a_limit_is_unsupported_and_nothing_is_sent(
        tmp_path: Path, suite: Suite, kind: str, fake: Fake, server: ProviderServer) -> None:
    small = dataclasses.replace(PROVIDERS[kind], limits={"*": Limits(
        max_seconds=0.25, max_seconds_text="quarter-second")})
    output = adapter(tmp_path, suite, kind, settings(kind, server),
                     factory=provider_adapter(small)).get(suite.cases[0], 1)
    assert output is not None and output.status == "unsupported"
    # the figures, measured and allowed (PV20)
    model = PROVIDERS[kind].default_model or "whisper-1"
    assert output.error == f"0.5 s, over {model}'s quarter-second limit (0.25 s)"
    assert fake.requests == []
    tiny = dataclasses.replace(PROVIDERS[kind], limits={"*": Limits(max_bytes=100)})
    output = adapter(tmp_path / "b", suite, kind, settings(kind, server),
                     factory=provider_adapter(tiny)).get(suite.cases[0], 1)
    assert output is not None and output.status == "unsupported"
    size = (suite.root / suite.cases[0].data["audio"]).stat().st_size
    assert output.error == f"{size:,} bytes, over {model}'s 100-byte limit (100 bytes)"
    assert fake.requests == []


def test_an_unknown_option_is_a_product_error_listing_the_known_ones(
        tmp_path: Path, suite: Suite, kind: str, server: ProviderServer) -> None:
    with pytest.raises(ProductError, match=r"unknown option.*typo_option.*known:"):
        adapter(tmp_path, suite, kind, settings(kind, server, options={"typo_option": 1}))


def test_an_unknown_setting_and_an_inline_key_are_product_errors(
        tmp_path: Path, suite: Suite, kind: str, server: ProviderServer) -> None:
    with pytest.raises(ProductError, match=r"unknown key.*modle"):
        adapter(tmp_path, suite, kind, settings(kind, server, modle="x"))
    with pytest.raises(ProductError, match="api_key is not accepted"):
        adapter(tmp_path, suite, kind, settings(kind, server, api_key=KEY))


def test_a_key_is_never_sent_over_plain_http_to_another_host(
        tmp_path: Path, suite: Suite, kind: str) -> None:
    values = {"base_url": "http://stt.example.com", "api_key_env": KEY_ENV, **KINDS[kind][1]}
    with pytest.raises(ProductError, match="only sent over https"):
        adapter(tmp_path, suite, kind, values)
