"""The http adapter against a loopback server: request shapes, errors, key hygiene."""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from adapter_support import cache_lines, make_product, make_suite
from http_stt_server import Recorded, Reply, SttServer

from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.http import http_adapter
from pytest_dictbench.adapters.live import LiveAdapter
from pytest_dictbench.errors import DictbenchError, ProductError
from pytest_dictbench.model import Output, Suite

KEY = "sk-test-0123456789abcdef-DO-NOT-LEAK"


@pytest.fixture
def server() -> Iterator[SttServer]:
    with SttServer() as running:
        yield running


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return make_suite(tmp_path / "suite", {"c1": "audio/it's \"my\" file.wav",
                                           "c2": "audio/c2.flac"})


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICTBENCH_TEST_STT_KEY", KEY)


def adapter(tmp_path: Path, suite: Suite, settings: dict[str, Any], **options: Any
            ) -> LiveAdapter:
    product = make_product(tmp_path / "products", "http", settings)
    return http_adapter(product, suite, AdapterOptions(**{"warmup": False, **options}))


def openai(server: SttServer, **extra: Any) -> dict[str, Any]:
    return {"base_url": server.url, "model": "whisper-1",
            "api_key_env": "DICTBENCH_TEST_STT_KEY", "timeout_s": 5, **extra}


def capture(live: LiveAdapter, suite: Suite, case: int = 0) -> Output:
    output = live.get(suite.cases[case], 1)
    assert output is not None
    return output


def test_openai_mode_posts_multipart_with_the_audio_and_bearer_key(
        tmp_path: Path, suite: Suite, server: SttServer) -> None:
    live = adapter(tmp_path, suite, openai(server, prompt="Names: Priya."))
    output = capture(live, suite)
    assert output.status == "complete" and output.text == "hello from the server"
    [request] = server.requests
    assert request.path == "/v1/audio/transcriptions"
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.fields == {"model": "whisper-1", "response_format": "json",
                              "language": "en", "prompt": "Names: Priya."}
    filename, kind, content = request.files["file"]
    assert filename == "it's %22my%22 file.wav" and kind == "audio/wav"
    assert content == (suite.root / suite.cases[0].data["audio"]).read_bytes()
    line = json.loads(cache_lines(live.product, suite)[0])
    assert (line["engine"], line["model"]) == ("http", "whisper-1")
    assert line["settings"]["api_key_env"] == "DICTBENCH_TEST_STT_KEY"


def test_flac_content_type_base_url_with_v1_and_language_left_out(
        tmp_path: Path, suite: Suite, server: SttServer) -> None:
    capture(adapter(tmp_path, suite, openai(server, base_url=server.url + "/v1/",
                                            language="")), suite, case=1)
    [request] = server.requests
    assert request.path == "/v1/audio/transcriptions"
    assert request.files["file"][1] == "audio/flac"
    assert "language" not in request.fields


def test_json_mode_sends_base64_audio_and_reads_a_dotted_text_field(
        tmp_path: Path, suite: Suite) -> None:
    def reply(request: Recorded) -> Reply:
        return Reply(body={"result": {"text": " json text "}})

    with SttServer(reply) as server:
        settings = {"mode": "json", "url": server.url + "/recognize", "audio_field": "wav",
                    "text_field": "result.text", "fields": {"engine": "fast", "n": 2},
                    "locale_field": "lang", "timeout_s": 5}
        output = capture(adapter(tmp_path, suite, settings), suite)
    assert output.text == "json text"
    [request] = server.requests
    assert request.path == "/recognize" and "Authorization" not in request.headers
    body = request.json
    assert base64.b64decode(body.pop("wav")) == (
        suite.root / suite.cases[0].data["audio"]).read_bytes()
    assert body == {"engine": "fast", "n": 2, "lang": "en-US"}


@pytest.mark.parametrize(("reply", "message"), [
    (Reply(status=503, body={"error": "overloaded"}),
     'HTTP 503 from {url}/v1/audio/transcriptions: {{"error": "overloaded"}}'),
    (Reply(status=200, body=b"<html>oops</html>"),
     "response from {url}/v1/audio/transcriptions is not JSON: <html>oops</html>"),
    (Reply(status=200, body={"transcript": "x"}),
     "response from {url}/v1/audio/transcriptions has no text at 'text'"),
    (Reply(status=302, body=b"", headers={"Location": "http://127.0.0.2:9/steal"}),
     "HTTP 302 from {url}/v1/audio/transcriptions"),
])
def test_service_failures_are_capture_errors(tmp_path: Path, suite: Suite, reply: Reply,
                                             message: str) -> None:
    with SttServer(lambda request: reply) as server:
        output = capture(adapter(tmp_path, suite, openai(server)), suite)
    assert output.status == "error"
    assert output.error == message.format(url=server.url)
    assert len(server.requests) == 1  # a redirect is not followed


def test_timeout_is_a_capture_error(tmp_path: Path, suite: Suite) -> None:
    with SttServer(lambda request: Reply(delay_s=1.5)) as server:
        output = capture(adapter(tmp_path, suite, openai(server, timeout_s=0.3)), suite)
    assert output.status == "error"
    assert output.error == f"no response from {server.url}/v1/audio/transcriptions within 0.3 s"


def test_timeout_is_a_deadline_for_the_whole_capture_not_per_read(
        tmp_path: Path, suite: Suite) -> None:
    # Each byte arrives well within timeout_s of the last one; the whole answer does not.
    trickle = Reply(body={"text": "x" * 40}, trickle_s=0.1)
    with SttServer(lambda request: trickle) as server:
        start = time.monotonic()
        output = capture(adapter(tmp_path, suite, openai(server, timeout_s=0.5)), suite)
        elapsed = time.monotonic() - start
    assert elapsed < 3.0, elapsed  # the whole answer would take over 4 s
    assert output.status == "error"
    assert output.error == f"no response from {server.url}/v1/audio/transcriptions within 0.5 s"


def test_an_empty_transcript_is_a_result(tmp_path: Path, suite: Suite) -> None:
    with SttServer(lambda request: Reply(body={"text": "  "})) as server:
        output = capture(adapter(tmp_path, suite, openai(server)), suite)
    assert output.status == "complete" and output.text == "" and output.error is None


def test_unreachable_service_is_a_capture_error(tmp_path: Path, suite: Suite) -> None:
    with SttServer() as server:
        url = server.url
    output = capture(adapter(tmp_path, suite, {"base_url": url, "model": "m"}), suite)
    assert output.status == "error"
    assert output.error is not None and output.error.startswith(f"cannot reach {url}")


def test_the_key_never_appears_in_outputs_cache_errors_or_logs(
        tmp_path: Path, suite: Suite, caplog: pytest.LogCaptureFixture,
        capsys: pytest.CaptureFixture[str]) -> None:
    def echo_headers(request: Recorded) -> Reply:
        if request.files["file"][0].endswith(".flac"):  # c2: an error quoting the key
            return Reply(status=401, body={"error": f"bad key {request.headers['Authorization']}"})
        return Reply(body={"text": "fine"})

    caplog.set_level(logging.DEBUG)
    with SttServer(echo_headers) as server:
        live = adapter(tmp_path, suite, openai(server), warmup=True)
        outputs = [capture(live, suite, case) for case in (0, 1)]
    assert [o.status for o in outputs] == ["complete", "error"]
    assert outputs[1].error == (f"HTTP 401 from {server.url}/v1/audio/transcriptions: "
                                '{"error": "bad key Bearer <redacted>"}')
    assert all(r.headers["Authorization"] == f"Bearer {KEY}" for r in server.requests)
    captured = capsys.readouterr()
    haystacks = [repr(outputs), *cache_lines(live.product, suite), caplog.text, captured.out,
                 captured.err]
    for file in (tmp_path / "products").rglob("*"):
        if file.is_file():
            haystacks.append(file.read_text(encoding="utf-8", errors="replace"))
    assert not [h for h in haystacks if KEY in h]


def test_missing_key_variable_is_an_item_error_naming_only_the_variable(
        tmp_path: Path, suite: Suite, server: SttServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DICTBENCH_TEST_STT_KEY")
    live = adapter(tmp_path, suite, openai(server))
    with pytest.raises(DictbenchError, match=r"DICTBENCH_TEST_STT_KEY.*is not set"):
        live.get(suite.cases[0], 1)
    assert server.requests == [] and cache_lines(live.product, suite) == []


@pytest.mark.parametrize(("settings", "message"), [
    ({"base_url": "http://x", "model": "m", "api_key": KEY}, "api_key is not accepted"),
    ({"model": "m"}, "base_url is required"),
    ({"base_url": "http://x"}, "model is required"),
    ({"mode": "grpc", "url": "http://x"}, "mode must be 'openai' or 'json'"),
    ({"mode": "json"}, "url is required"),
    ({"mode": "json", "url": "file:///etc/passwd"}, "must be http"),
    ({"base_url": "http://x", "model": "m", "timeout_s": "fast"}, "timeout_s must be float"),
])
def test_bad_settings_are_product_errors(tmp_path: Path, suite: Suite,
                                         settings: dict[str, Any], message: str) -> None:
    product = make_product(tmp_path / "products", "http", settings)
    with pytest.raises(ProductError, match=message) as info:
        http_adapter(product, suite, AdapterOptions())
    assert KEY not in str(info.value)


def test_a_key_is_not_sent_over_plain_http_to_another_host(tmp_path: Path,
                                                           suite: Suite) -> None:
    live = adapter(tmp_path, suite, {"base_url": "http://asr.example.invalid", "model": "m",
                                     "api_key_env": "DICTBENCH_TEST_STT_KEY"})
    with pytest.raises(ProductError, match="only sent over https"):
        live.get(suite.cases[0], 1)
    assert cache_lines(live.product, suite) == []


def test_prompt_template_is_filled_with_the_case_context(
        tmp_path: Path, suite: Suite, server: SttServer) -> None:
    case = suite.cases[0]
    with_context = dataclasses.replace(case, data={**case.data, "context": "Priya, Kubernetes"})
    suite = dataclasses.replace(suite, cases=(with_context, *suite.cases[1:]))
    live = adapter(tmp_path, suite, openai(server, prompt="Names: {context}."))
    assert capture(live, suite).status == "complete"
    assert server.requests[0].fields["prompt"] == "Names: Priya, Kubernetes."


@pytest.mark.parametrize(("body", "status", "text", "error"), [
    ({"result": {"text": "hi", "capture_complete": False}}, "complete", "hi", None),
    ({"result": {"status": "unsupported"}}, "unsupported", "", None),
    ({"result": {"status": "invalid", "error": "wrong route"}}, "invalid", "", "wrong route"),
    ({"result": "hi"}, "error", "", "response from {url}/r has no transcript record at "
     "'result'"),
])
def test_json_mode_reads_a_transcript_record(tmp_path: Path, suite: Suite, body: Any,
                                             status: str, text: str, error: str | None
                                             ) -> None:
    with SttServer(lambda request: Reply(body=body)) as server:
        settings = {"mode": "json", "url": server.url + "/r", "text_field": "result",
                    "answer": "record", "timeout_s": 5}
        output = capture(adapter(tmp_path, suite, settings), suite)
    assert (output.status, output.text) == (status, text)
    assert output.error == (error.format(url=server.url) if error else None)
    if status == "complete":
        assert output.meta["capture_complete"] is False


@pytest.mark.parametrize("value", ["the", " ", "       ", "1234567"])
def test_a_blank_or_short_key_is_an_item_error_and_never_sent(
        tmp_path: Path, suite: Suite, server: SttServer, monkeypatch: pytest.MonkeyPatch,
        value: str) -> None:
    monkeypatch.setenv("DICTBENCH_TEST_STT_KEY", value)
    live = adapter(tmp_path, suite, openai(server))
    with pytest.raises(DictbenchError, match=r"DICTBENCH_TEST_STT_KEY \(api_key_env\) holds "
                                             r"a (blank|short) value.*it is not sent"):
        live.get(suite.cases[0], 1)
    assert server.requests == [] and cache_lines(live.product, suite) == []
