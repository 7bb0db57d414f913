"""What each provider kind sends and keeps: its documented request shape, the language
code from the suite locale, its options, and the facts of the run in the capture record."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from adapter_support import cache_lines, first_output, live_adapter, make_product, make_suite
from http_stt_server import Reply
from provider_servers import (
    KEY,
    KEY_ENV,
    AssemblyAIFake,
    AzureFake,
    DeepgramFake,
    ElevenLabsFake,
    GeminiFake,
    OpenAIFake,
    ProviderServer,
    SpeechmaticsFake,
)

from pytest_dictbench.errors import ProductError
from pytest_dictbench.model import Output, Suite


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    suite = make_suite(tmp_path / "suite", {"c1": "audio/c1.wav"}, locale="ja-JP")
    suite.cases[0].data["context"] = "Names: Sato."
    return suite


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[ProviderServer] = []

    def start(fake: Any) -> ProviderServer:
        server = ProviderServer(fake).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__()


def capture(tmp_path: Path, suite: Suite, kind: str, server: ProviderServer,
            **values: Any) -> Output:
    product = make_product(tmp_path / "products", kind, {
        "base_url": server.url, "api_key_env": KEY_ENV, "timeout_s": 5, **values})
    return first_output(live_adapter(product, suite), suite)


def test_openai_sends_model_language_and_the_prompt_with_the_cases_context(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = OpenAIFake()
    output = capture(tmp_path, suite, "openai", serve(fake), model="gpt-4o-transcribe",
                     prompt="Vocabulary. {context}", options={"temperature": 0})
    assert output.status == "complete" and output.text == "hello from the provider"
    [request] = fake.requests
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.fields == {"model": "gpt-4o-transcribe", "response_format": "json",
                              "language": "ja", "prompt": "Vocabulary. Names: Sato.",
                              "temperature": "0"}
    facts = output.meta["provider"]
    assert facts["request_id"] == "req_openai_1" and facts["billed_seconds"] == 1.0
    # gpt-4o-transcribe is priced per token (PS1); an answer with a duration instead of
    # token usage cannot be priced, and says so
    assert facts["cost_usd"] is None and facts["price"]["origin"] == "bundled"
    assert facts["cost_unknown"] == "no token usage in the answer"


def test_openai_compatible_base_url_with_a_path_and_an_explicit_language(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = OpenAIFake()
    server = serve(fake)  # Groq's root is https://api.groq.com/openai/v1
    output = capture(tmp_path, suite, "openai", server, model="whisper-large-v3",
                     language="ko", base_url=server.url + "/v1")
    assert output.status == "complete", output.error
    [request] = fake.requests
    assert request.route == "/v1/audio/transcriptions"
    assert request.fields["language"] == "ko"  # given: sent as it is (in OpenAI's form, PV28)
    # Groq bills at least 10 s (PS2): 10 s x 0.00185 / 60
    assert output.meta["provider"]["cost_usd"] == "0.0003083333333333333333333333333"


def test_a_base_url_with_a_query_or_user_info_is_a_product_error(
        tmp_path: Path, suite: Suite) -> None:
    for url in ("https://api.openai.com/?key=1", "https://user:pw@api.openai.com",
                "ftp://api.openai.com"):
        product = make_product(tmp_path / "products", "openai", {"base_url": url,
                                                                "model": "whisper-1"})
        with pytest.raises(ProductError, match="base_url"):
            live_adapter(product, suite)


def test_deepgram_sends_raw_audio_with_token_auth_and_query_options(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = DeepgramFake()
    output = capture(tmp_path, suite, "deepgram", serve(fake),
                     options={"smart_format": True, "keyterm": ["Sato", "Kyoto"]})
    assert output.status == "complete", output.error
    [request] = fake.requests
    assert request.headers["Authorization"] == f"Token {KEY}"
    assert request.headers["Content-Type"] == "audio/wav"
    assert request.body == (suite.root / "audio/c1.wav").read_bytes()
    assert request.query == [("model", "nova-3"), ("language", "ja"), ("keyterm", "Sato"),
                             ("keyterm", "Kyoto"), ("smart_format", "true")]
    facts = output.meta["provider"]
    assert facts["request_id"] == "dg-req-1" and facts["billed_seconds"] == 0.5
    assert facts["model_info"][0]["version"] == "2025-01"
    assert facts["cost_usd"] == "0.00003583333333333333333333333333"  # 0.5 s x 0.0043 / 60


@pytest.mark.parametrize(("values", "config"), [
    ({"thinking_budget": 0}, {"thinkingConfig": {"thinkingBudget": 0}}),
    ({"thinking_level": "high"}, {"thinkingConfig": {"thinkingLevel": "high"}}),
    ({}, None)], ids=["thinking-off", "thinking-level", "default"])
def test_gemini_sends_the_instruction_then_inline_audio_and_the_thinking_setting(
        tmp_path: Path, suite: Suite, serve: Any, values: dict[str, Any],
        config: dict[str, Any] | None) -> None:
    fake = GeminiFake()
    output = capture(tmp_path, suite, "gemini", serve(fake),
                     prompt="Transcribe ({language}). {context}", **values)
    assert output.status == "complete" and output.text == "hello from the provider"
    [request] = fake.requests
    assert request.route == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert request.headers["x-goog-api-key"] == KEY and "key=" not in request.path
    parts = request.json["contents"][0]["parts"]
    assert parts[0] == {"text": "Transcribe (ja). Names: Sato."}
    assert parts[1]["inline_data"]["mime_type"] == "audio/wav"
    assert request.json.get("generationConfig") == config
    facts = output.meta["provider"]
    assert facts["model_version"] == "gemini-2.5-flash-001"
    assert facts["request_id"] == "gem-resp-1" and facts["finish_reason"] == "STOP"
    assert facts["tokens"] == {"input_audio": 16, "input_text": 24, "output": 16}
    # (16 x 1.00 + 24 x 0.30 + 16 x 2.50) / 1e6
    assert facts["cost_usd"] == "0.0000632"


def test_gemini_thinking_budget_and_level_together_are_a_product_error(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    server = serve(GeminiFake())
    product = make_product(tmp_path / "products", "gemini", {
        "base_url": server.url, "thinking_budget": 0, "thinking_level": "low"})
    with pytest.raises(ProductError, match="not both"):  # at load, not per item (PV14)
        live_adapter(product, suite)


def test_gemini_blocked_answer_without_text_is_an_error(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = GeminiFake()
    fake.faults = [Reply(body={"candidates": [{"finishReason": "SAFETY"}],
                               "usageMetadata": {"promptTokenCount": 3}})]
    output = capture(tmp_path, suite, "gemini", serve(fake))
    assert output.status == "error"  # with its reason (PS15)
    assert output.error == "Gemini API stopped with finishReason SAFETY"


def test_elevenlabs_sends_multipart_with_model_language_and_event_tagging(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = ElevenLabsFake()
    output = capture(tmp_path, suite, "elevenlabs", serve(fake),
                     options={"tag_audio_events": True})
    assert output.status == "complete", output.error
    [request] = fake.requests
    assert request.headers["xi-api-key"] == KEY and "Authorization" not in request.headers
    assert request.fields == {"model_id": "scribe_v1", "language_code": "ja",
                              "tag_audio_events": "true"}
    assert request.files["file"][2] == (suite.root / "audio/c1.wav").read_bytes()
    facts = output.meta["provider"]
    assert facts["request_id"] == "el-tr-1" and facts["language_code"] == "jpn"
    assert facts["language_probability"] == 0.98


def test_elevenlabs_sends_each_key_term_as_its_own_field(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = ElevenLabsFake()
    output = capture(tmp_path, suite, "elevenlabs", serve(fake), model="scribe_v2",
                     options={"keyterms": ["Sato", "Kyoto"], "diarization_threshold": 0.3,
                              "file_format": "other"})
    assert output.status == "complete", output.error
    [request] = fake.requests
    assert request.field_pairs == [
        ("model_id", "scribe_v2"), ("language_code", "ja"), ("diarization_threshold", "0.3"),
        ("file_format", "other"), ("keyterms", "Sato"), ("keyterms", "Kyoto")]


def test_elevenlabs_options_that_change_the_answer_shape_are_refused(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    server = serve(ElevenLabsFake())
    for option in ("webhook", "use_multi_channel"):
        with pytest.raises(ProductError, match=f"unknown option.*{option}.*known: .*keyterms"):
            capture(tmp_path, suite, "elevenlabs", server, options={option: True})


def test_elevenlabs_validation_error_quotes_each_problem(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = ElevenLabsFake()
    fake.faults = [Reply(422, {"detail": [
        {"loc": ["body", "language_code"], "msg": "Invalid language code", "type": "value"},
        {"loc": ["body", "seed"], "msg": "must be at most 2147483647", "type": "value"}]})]
    output = capture(tmp_path, suite, "elevenlabs", serve(fake))
    assert output.status == "error"
    assert "HTTP 422" in output.error
    assert "body.language_code: Invalid language code" in output.error
    assert "body.seed: must be at most 2147483647" in output.error


def test_assemblyai_uploads_creates_and_polls_until_completed(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = AssemblyAIFake()
    output = capture(tmp_path, suite, "assemblyai", serve(fake), poll_s=0.01,
                     options={"keyterms_prompt": ["Sato"]})
    assert output.status == "complete" and output.text == "hello from the provider"
    assert [(r.method, r.route) for r in fake.requests] == [
        ("POST", "/v2/upload"), ("POST", "/v2/transcript"), ("GET", "/v2/transcript/job-1"),
        ("GET", "/v2/transcript/job-1"), ("GET", "/v2/transcript/job-1")]
    assert all(r.headers["Authorization"] == KEY for r in fake.requests)
    assert fake.requests[0].body == (suite.root / "audio/c1.wav").read_bytes()
    # speech_models, which the spec requires (PS4), with today's model names
    assert fake.job == {"audio_url": f"{fake.url}/cdn/upload/abc123",
                        "speech_models": ["universal-2"], "language_code": "ja",
                        "keyterms_prompt": ["Sato"]}
    facts = output.meta["provider"]
    assert facts["request_id"] == "job-1" and facts["billed_seconds"] == 1.0
    assert facts["speech_model_used"] == "universal-2"  # the model that ran (PS16)


def failed_job(tmp_path: Path, suite: Suite, kind: str, fake: Any, serve: Any,
               reason: str) -> str | None:
    """The error of a capture whose job the provider ends with ``reason``."""
    fake.failure = reason
    output = capture(tmp_path, suite, kind, serve(fake), poll_s=0.01)
    assert output.status == "error"
    return output.error


def unfinished_job(tmp_path: Path, suite: Suite, kind: str, fake: Any, serve: Any) -> None:
    """A job that never finishes ends the capture at its deadline, as an error."""
    fake.finish = False
    output = capture(tmp_path, suite, kind, serve(fake), poll_s=0.05, poll_max_s=0.1,
                     timeout_s=0.8)
    assert output.status == "error" and "within timeout_s = 0.8 s" in output.error


def test_assemblyai_failed_job_is_an_error_quoting_its_reason(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    error = failed_job(tmp_path, suite, "assemblyai", AssemblyAIFake(), serve,
                       "Audio file contains no speech")
    assert error == "AssemblyAI transcript job-1 failed: Audio file contains no speech"


def test_assemblyai_job_that_never_finishes_ends_at_the_deadline(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = AssemblyAIFake()
    unfinished_job(tmp_path, suite, "assemblyai", fake, serve)
    polls = [r for r in fake.requests if r.method == "GET"]
    assert 3 <= len(polls) <= 16  # polled with growing waits, never past the deadline


def test_the_capture_record_line_holds_the_provider_facts(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = DeepgramFake()
    capture(tmp_path, suite, "deepgram", serve(fake))
    [line] = cache_lines(make_product(tmp_path / "products", "deepgram", {}), suite)
    record = json.loads(line)
    assert record["provider"]["request_id"] == "dg-req-1"
    assert record["engine"] == "deepgram" and record["model"] == "nova-3"


def test_speechmatics_submits_a_job_polls_it_and_fetches_the_text_transcript(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = SpeechmaticsFake()
    output = capture(tmp_path, suite, "speechmatics", serve(fake), poll_s=0.01,
                     options={"additional_vocab": [{"content": "Sato"}]})
    assert output.status == "complete" and output.text == "hello from the provider"
    assert [(r.method, r.route) for r in fake.requests] == [
        ("POST", "/v2/jobs"), ("GET", "/v2/jobs/sm-job-1"), ("GET", "/v2/jobs/sm-job-1"),
        ("GET", "/v2/jobs/sm-job-1"), ("GET", "/v2/jobs/sm-job-1/transcript")]
    assert all(r.headers["Authorization"] == f"Bearer {KEY}" for r in fake.requests)
    assert fake.config == {"type": "transcription", "transcription_config": {
        "language": "ja", "model": "enhanced",  # not the deprecated operating_point (PS6)
        "additional_vocab": [{"content": "Sato"}]}}
    facts = output.meta["provider"]
    assert facts["request_id"] == "sm-job-1" and facts["billed_seconds"] == 2.0


def test_speechmatics_rejected_job_is_an_error_with_its_reason(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    error = failed_job(tmp_path, suite, "speechmatics", SpeechmaticsFake(), serve,
                       "unsupported audio codec")
    assert error == "Speechmatics job sm-job-1 rejected: unsupported audio codec"


def test_speechmatics_job_that_never_finishes_ends_at_the_deadline(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    unfinished_job(tmp_path, suite, "speechmatics", SpeechmaticsFake(), serve)


def test_azure_sends_the_audio_and_a_definition_with_the_full_locale(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = AzureFake()
    output = capture(tmp_path, suite, "azure", serve(fake), api_version="2025-10-15",
                     options={"phraseList": {"phrases": ["Sato"]}})  # PS5: phraseList's version
    assert output.status == "complete" and output.text == "hello from the provider"
    [request] = fake.requests
    assert request.headers["Ocp-Apim-Subscription-Key"] == KEY
    assert "Authorization" not in request.headers
    assert fake.definition == {"locales": ["ja-JP"], "phraseList": {"phrases": ["Sato"]}}
    assert request.files["audio"][2] == (suite.root / "audio/c1.wav").read_bytes()
    facts = output.meta["provider"]
    assert facts["request_id"] == "az-req-1" and facts["billed_seconds"] == 1.5


def test_azure_needs_a_region_or_a_base_url(tmp_path: Path, suite: Suite) -> None:
    for values, message in (({}, "needs region"), ({"region": "Japan East"}, "region name")):
        product = make_product(tmp_path / "products", "azure", values)
        with pytest.raises(ProductError, match=message):
            live_adapter(product, suite)
    product = make_product(tmp_path / "products", "azure", {"region": "japaneast"})
    live = live_adapter(product, suite)
    assert live.product.settings["region"] == "japaneast"


def test_gemini_uploads_through_the_files_api_and_waits_until_the_file_is_active(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = GeminiFake()
    output = capture(tmp_path, suite, "gemini", serve(fake), upload="always", poll_s=0.01)
    assert output.status == "complete", output.error
    assert [(r.method, r.route) for r in fake.requests] == [
        ("POST", "/upload/v1beta/files"), ("POST", "/upload/v1beta/files"),
        ("GET", "/v1beta/files/abc"),
        ("POST", "/v1beta/models/gemini-2.5-flash:generateContent"),
        ("DELETE", "/v1beta/files/abc")]
    assert all(r.headers["x-goog-api-key"] == KEY for r in fake.requests)
    assert fake.leaks == []
    assert fake.deleted == ["files/abc"]
    assert output.meta["provider"]["file_uri"] == f"{fake.url}/v1beta/files/abc"
    assert output.meta["provider"]["file_deleted"] is True


def test_gemini_deletes_the_uploaded_file_when_the_request_after_it_fails(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = GeminiFake()
    fake.file_states = ("ACTIVE",)
    original = fake.answer

    def refuse_generate(request: Any) -> Reply:
        if request.route.endswith(":generateContent"):
            return Reply(400, {"error": {"message": "Request contains an invalid argument."}})
        return original(request)

    fake.answer = refuse_generate  # type: ignore[method-assign]
    output = capture(tmp_path, suite, "gemini", serve(fake), upload="always", poll_s=0.01)
    assert output.status == "error" and "invalid argument" in output.error
    assert fake.deleted == ["files/abc"]
    assert fake.requests[-1].method == "DELETE"


def test_gemini_deletes_a_file_that_failed_processing(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = GeminiFake()
    fake.file_states = ("FAILED",)
    output = capture(tmp_path, suite, "gemini", serve(fake), upload="always", poll_s=0.01)
    assert output.status == "error"
    assert fake.deleted == ["files/abc"]


def test_gemini_a_file_that_cannot_be_deleted_is_said_in_the_record_and_the_error(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = GeminiFake()
    original = fake.answer

    def refuse_delete(request: Any) -> Reply:
        if request.method == "DELETE":
            return Reply(403, {"error": {"message": "Permission denied on files/abc"}})
        return original(request)

    fake.answer = refuse_delete  # type: ignore[method-assign]
    output = capture(tmp_path, suite, "gemini", serve(fake), upload="always", poll_s=0.01)
    assert output.status == "complete", output.error
    facts = output.meta["provider"]
    assert facts["file_deleted"] is False
    assert "files/abc could not be deleted" in facts["file_delete_error"]
    assert "Permission denied" in facts["file_delete_error"]
    assert KEY not in facts["file_delete_error"]

    fake.file_states = ("FAILED",)
    failed = capture(tmp_path / "again", suite, "gemini", serve(fake), upload="always",
                     poll_s=0.01)
    assert failed.status == "error"
    assert "could not process the uploaded audio" in failed.error
    assert "files/abc could not be deleted" in failed.error


def test_gemini_failed_upload_processing_is_an_error(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    fake = GeminiFake()
    fake.file_states = ("PROCESSING", "FAILED")
    output = capture(tmp_path, suite, "gemini", serve(fake), upload="always", poll_s=0.01)
    assert output.status == "error"
    assert "could not process the uploaded audio (files/abc): audio could not be decoded" \
        in output.error


def test_gemini_upload_url_on_another_host_gets_no_key(
        tmp_path: Path, suite: Suite, serve: Any) -> None:
    elsewhere = GeminiFake()
    other = serve(elsewhere)
    fake = GeminiFake()
    fake.upload_origin = other.url  # another port: another origin
    output = capture(tmp_path, suite, "gemini", serve(fake), upload="always")
    assert output.status == "error" and "the key is not sent there" in output.error
    assert elsewhere.requests == []


def test_gemini_audio_above_the_inline_limit_goes_through_the_files_api(
        tmp_path: Path, suite: Suite, serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_dictbench.adapters.providers import gemini

    monkeypatch.setattr(gemini, "INLINE_MAX_BYTES", 1000)  # the test tone is 16 kB
    fake = GeminiFake()
    output = capture(tmp_path, suite, "gemini", serve(fake), poll_s=0.01)
    assert output.status == "complete", output.error
    assert fake.requests[0].route == "/upload/v1beta/files"


def test_openai_context_only_prompt_is_left_out_for_a_case_without_context(
        tmp_path: Path, serve: Any) -> None:
    plain = make_suite(tmp_path / "plain", {"c1": "audio/c1.wav"})  # no context
    fake = OpenAIFake()
    output = capture(tmp_path, plain, "openai", serve(fake), model="whisper-1",
                     prompt="{context}")
    assert output.status == "complete"
    assert "prompt" not in fake.requests[0].fields
