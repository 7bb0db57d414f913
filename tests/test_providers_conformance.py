"""Each provider kind against its provider's own published material (issue 44): the
answers of ``tests/published/`` (SDK fixtures, spec examples; sources in its README)
replayed through the adapter against the loopback fakes, and every request the adapter
sends validated against the published request schema: a verbatim excerpt of the
provider's OpenAPI or Swagger file (``tests/published/specs/``, read by
``published_schemas``) where one is published and reachable, else a JSON Schema excerpt
written from the spec or SDK (``tests/published/request_schemas.json``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from adapter_support import first_output, live_adapter, make_product, make_suite
from http_stt_server import Reply
from provider_servers import (
    KEY_ENV,
    AssemblyAIFake,
    AzureFake,
    DeepgramFake,
    ElevenLabsFake,
    GeminiFake,
    OpenAIFake,
    ProviderServer,
    Request,
    SpeechmaticsFake,
)
from published_schemas import check_form, check_json, check_query

from pytest_dictbench.model import Output, Suite

PUBLISHED = Path(__file__).with_name("published")
EXAMPLES: dict[str, Any] = json.loads((PUBLISHED / "examples.json").read_text("utf-8"))
SCHEMAS: dict[str, Any] = json.loads((PUBLISHED / "request_schemas.json").read_text("utf-8"))


def valid(schema: str, instance: Any) -> None:
    """``instance`` conforms to the named published schema excerpt (all errors shown)."""
    errors = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
              for e in jsonschema.Draft202012Validator(SCHEMAS[schema]).iter_errors(instance)]
    assert not errors, f"{schema}: " + "; ".join(errors)


def form(request: Request) -> dict[str, Any]:
    """A multipart request as the schema sees it: text fields (repeated ones as lists)
    and the file part by name."""
    out: dict[str, Any] = {}
    for name, value in request.field_pairs:
        if name in out:
            out[name] = [*out[name], value] if isinstance(out[name], list) else [out[name],
                                                                                   value]
        else:
            out[name] = value
    out.update({name: "<file>" for name in request.files})
    return out


pytestmark = pytest.mark.usefixtures("provider_key")


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return make_suite(tmp_path / "suite", {"c1": "audio/c1.wav"}, locale="ja-JP")


@pytest.fixture
def run(tmp_path: Path, suite: Suite) -> Iterator[Any]:
    def capture(kind: str, fake: Any, **settings: Any) -> Output:
        with ProviderServer(fake) as server:
            polls = {"poll_s": 0.01} if kind in ("assemblyai", "speechmatics") else {}
            product = make_product(tmp_path / kind, kind, {
                "base_url": server.url, "api_key_env": KEY_ENV, "timeout_s": 10, **polls,
                **settings})
            return first_output(live_adapter(product, suite), suite)

    yield capture


def answering(base: type, body: Any, route: str = "", **headers: str) -> Any:
    """A fake of ``base`` that answers ``body`` (on ``route``, when given)."""

    class Published(base):  # type: ignore[misc, valid-type]
        def answer(self, request: Request) -> Reply:
            reply = super().answer(request)
            if not route or request.route.endswith(route):
                return Reply(reply.status, body, headers={**reply.headers, **headers})
            return reply

    return Published()


def test_openai_default_example_and_the_request_schema(run: Any) -> None:
    """openapi.yaml's "Default" answer: the text, and token usage priced per token."""
    example = EXAMPLES["openai_transcription_default"]
    fake = answering(OpenAIFake, example, **{"x-request-id": "req_1"})
    output = run("openai", fake, model="gpt-4o-transcribe", prompt="{context}",
                 options={"temperature": 0.2})
    assert output.status == "complete" and output.text == example["text"]
    facts = output.meta["provider"]
    assert facts["tokens"] == {"input_audio": 14, "input_text": 0, "output": 45}
    assert facts["cost_usd"] == "0.000534" and facts["cost_basis"] == "tokens"
    for request in fake.requests:
        check_form("openai", "#/components/schemas/CreateTranscriptionRequest",
                   list(request.field_pairs), list(request.files))


def test_deepgram_sdk_fixture_and_the_query_schema(run: Any, suite: Suite) -> None:
    """The SDK's recorded response (its ``sha256`` set to this audio's, as the service
    computes it from what it received)."""
    body = json.loads((PUBLISHED / "deepgram_listen_response.json").read_text("utf-8"))
    audio = (suite.root / "audio/c1.wav").read_bytes()
    body["metadata"]["sha256"] = hashlib.sha256(audio).hexdigest()
    fake = answering(DeepgramFake, body)
    output = run("deepgram", fake, options={"smart_format": True, "keyterm": ["Sato"]})
    assert output.status == "complete"
    assert output.text.startswith("Yep. I said it before, and I'll say it again.")
    facts = output.meta["provider"]
    assert facts["request_id"] == "0e91145a-2e66-4384-9956-b68b9ec6703f"
    assert facts["billed_seconds"] == 17.566313
    assert facts["model_info"] == [{"name": "general-nova-3", "version": "2024-12-20.0",
                                    "arch": "nova-3"}]
    for request in fake.requests:
        check_query("deepgram", "#/paths/~1v1~1listen/post/parameters", list(request.query))


def test_deepgram_published_fixture_for_other_audio_is_refused(run: Any) -> None:
    """Replayed as stored, the fixture's ``sha256`` names the SDK's audio, not ours."""
    body = json.loads((PUBLISHED / "deepgram_listen_response.json").read_text("utf-8"))
    output = run("deepgram", answering(DeepgramFake, body))
    assert output.status == "error" and "metadata.sha256" in output.error


def test_deepgram_modern_error_keeps_its_details(run: Any) -> None:
    fake = DeepgramFake()
    fake.faults = [Reply(400, EXAMPLES["deepgram_modern_error"])]
    output = run("deepgram", fake)
    assert output.error.endswith("Bad Request: language 'xx' is not supported by nova-3")


TRANSCRIPT_PARAMS = "#/components/schemas/TranscriptParams"


def test_assemblyai_transcript_and_the_transcript_params_schema(run: Any) -> None:
    example = EXAMPLES["assemblyai_transcript_completed"]
    fake = answering(AssemblyAIFake, example, route="/v2/transcript/job-1")
    fake.states = []
    output = run("assemblyai", fake, options={"keyterms_prompt": ["Sato"], "punctuate": True})
    assert output.status == "complete" and output.text == example["text"]
    facts = output.meta["provider"]
    assert facts["speech_model_used"] == "universal-2" and facts["billed_seconds"] == 281.0
    [create] = [r for r in fake.requests if r.route == "/v2/transcript"]
    check_json("assemblyai", TRANSCRIPT_PARAMS, create.json)


def test_the_old_assemblyai_request_fails_the_published_schema() -> None:
    """What the adapter sent before PS4: the vendored excerpt shows what broke."""
    with pytest.raises(AssertionError, match=r"'speech_models' is a required property.*"
                                             r"speech_model: deprecated by the spec"):
        check_json("assemblyai", TRANSCRIPT_PARAMS, {"audio_url": "https://x/y",
                                                     "speech_model": "universal"})


def test_elevenlabs_answer_and_the_body_schema(run: Any) -> None:
    example = EXAMPLES["elevenlabs_single_channel"]
    fake = answering(ElevenLabsFake, example)
    output = run("elevenlabs", fake, options={"keyterms": ["Sato", "Kyoto"],
                                              "tag_audio_events": True,
                                              "timestamps_granularity": "word"})
    assert output.status == "complete" and output.text == "Hello world!"
    facts = output.meta["provider"]
    assert facts["request_id"] == "transcription_123" and facts["billed_seconds"] == 12.5
    for request in fake.requests:
        valid("elevenlabs.BodySpeechToTextV1", form(request))


def test_speechmatics_diarized_txt_example_and_the_job_config_schema(run: Any) -> None:
    fake = answering(SpeechmaticsFake, EXAMPLES["speechmatics_txt_diarized"].encode(),
                     route="/transcript")
    output = run("speechmatics", fake, options={"diarization": "speaker",
                                                "additional_vocab": [{"content": "Sato"}]})
    assert output.status == "complete" and output.text == "Hello world."
    check_json("speechmatics", "#/definitions/JobConfig", fake.config)


def test_speechmatics_error_example_keeps_its_detail(run: Any) -> None:
    fake = SpeechmaticsFake()
    fake.faults = [Reply(400, EXAMPLES["speechmatics_error_400"])]
    output = run("speechmatics", fake)
    assert output.error.endswith("Job rejected: Job config JSON is invalid")


@pytest.mark.parametrize("version", ["2024-11-15", "2025-10-15"])
def test_azure_example_and_the_transcribe_definition_schema(run: Any, version: str) -> None:
    """The spec's own example answers ``duration`` where its schema requires
    ``durationMilliseconds``: the text is kept and the billed duration is unknown."""
    example = json.loads((PUBLISHED / "azure_transcribe_file.json").read_text("utf-8"))
    fake = answering(AzureFake, example["responses"]["200"]["body"])
    options: dict[str, Any] = {"profanityFilterMode": "Masked",
                               "diarization": {"enabled": True, "maxSpeakers": 2}}
    if version >= "2025-10-15":
        options["phraseList"] = {"phrases": ["Sato"]}
    output = run("azure", fake, api_version=version, options=options)
    assert output.status == "complete" and output.text == "Weather"
    assert "billed_seconds" not in output.meta["provider"]
    valid(f"azure.TranscribeDefinition.{version}", fake.definition)


def test_gemini_answer_and_the_request_schema(run: Any) -> None:
    fake = answering(GeminiFake, EXAMPLES["gemini_generate_content"])
    output = run("gemini", fake, thinking_budget=0, options={"temperature": 0, "seed": 7})
    assert output.status == "complete" and output.text == "こんにちは、佐藤です。"
    facts = output.meta["provider"]
    assert facts["tokens"] == {"input_audio": 200, "input_text": 24, "output": 12}
    assert facts["model_version"] == "gemini-2.5-flash"
    for request in fake.requests:
        valid("gemini.GenerateContentRequest", request.json)


def test_gemini_rate_limit_example_waits_its_retry_delay(run: Any) -> None:
    fake = GeminiFake()
    fake.faults = [Reply(429, EXAMPLES["gemini_rate_limited"])]
    output = run("gemini", fake)
    assert output.status == "complete" and output.meta["provider"]["retry_waits_s"] == [1.5]


@pytest.mark.parametrize(("check", "args", "error"), [
    (check_form, ("openai", "#/components/schemas/CreateTranscriptionRequest",
                  [("model", "whisper-1"), ("temperature", "warm"), ("speed", "2")], ["file"]),
     "'speed' was unexpected.*temperature: 'warm' is not of type 'number'"),
    (check_query, ("deepgram", "#/paths/~1v1~1listen/post/parameters",
                   [("model", "nova-3"), ("smart_format", "yes")]),
     "smart_format: 'yes' is not of type 'boolean'"),
    (check_json, ("speechmatics", "#/definitions/JobConfig",
                  {"type": "transcription", "transcription_config": {
                      "language": "en", "operating_point": "enhanced"}}),
     "transcription_config/operating_point: deprecated by the spec"),
])
def test_the_stored_specs_refuse_what_they_do_not_allow(check: Any, args: tuple[Any, ...],
                                                         error: str) -> None:
    """The verbatim excerpts are read strictly enough to fail: an unknown field, a value
    of the wrong type, a field the spec deprecates."""
    with pytest.raises(AssertionError, match=error):
        check(*args)
