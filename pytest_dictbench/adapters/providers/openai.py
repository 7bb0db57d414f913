"""``openai``: OpenAI's transcription endpoint and any service that speaks it (Groq,
Mistral, local servers): ``POST {base_url}/v1/audio/transcriptions``, multipart with
``file``, ``model``, ``language`` and ``prompt``; ``Authorization: Bearer``.

The request body is the ``http`` adapter's OpenAI shape (:func:`..http.encode_multipart`);
this kind adds the provider machinery: limits checked before sending, retries, a
deadline, usage and request id in the capture record, price.
"""

from __future__ import annotations

from typing import Any

from ..http import encode_multipart
from ..live import CaptureRequest
from .base import Audio, Limits, Provider, ProviderTranscriber, Result
from .client import Session

__all__ = ["OPENAI"]

#: Documented for every model: 25 MB uploads in these formats.
_LIMITS = Limits(max_bytes=25 * 1024 * 1024, max_bytes_text="25 MB upload",
                 formats=frozenset({".flac", ".mp3", ".mp4", ".mpeg", ".mpga", ".m4a",
                                    ".ogg", ".wav", ".webm"}))


def _path(base_url: str) -> str:
    return "/audio/transcriptions" if base_url.endswith("/v1") else "/v1/audio/transcriptions"


def _run(transcriber: ProviderTranscriber, session: Session, request: CaptureRequest,
         audio: Audio) -> Result:
    fields: dict[str, str] = {"model": str(transcriber.model), "response_format": "json"}
    language = transcriber.language_code(request)
    if language:
        fields["language"] = language
    prompt = request.fill(transcriber.settings.get("prompt", str, ""))
    if prompt.strip():  # a "{context}" template and a case without context: no prompt
        fields["prompt"] = prompt
    fields.update({k: _form(v) for k, v in sorted(transcriber.options.items())})
    body, content_type = encode_multipart(fields, "file", audio.path.name, audio.content,
                                          audio.content_type)
    reply = session.send("POST", _path(transcriber.client.base_url), content=body,
                         headers={"Content-Type": content_type})
    answer: Any = reply.body if isinstance(reply.body, dict) else {}
    text = answer.get("text")
    facts: dict[str, Any] = {"request_id": reply.headers.get("x-request-id")}
    if isinstance(answer.get("model"), str):  # the model version that ran, where given
        facts["model"] = answer["model"]
    usage = answer.get("usage")
    result = Result(text if isinstance(text, str) else None, facts)
    if isinstance(usage, dict):
        facts["usage"] = usage
        if usage.get("type") == "duration" and isinstance(usage.get("seconds"), (int, float)):
            result.billed_seconds = float(usage["seconds"])
        details = usage.get("input_token_details")
        if usage.get("type") == "tokens" and isinstance(details, dict):
            result.tokens = {"input_audio": int(details.get("audio_tokens", 0)),
                             "input_text": int(details.get("text_tokens", 0)),
                             "output": int(usage.get("output_tokens", 0))}
    if result.billed_seconds is None and not result.tokens:
        # billed by audio length (a minimum such as Groq's 10 s is the price's rule)
        result.billed_seconds = round(audio.duration_s, 3)
    return result


def _form(value: Any) -> str:
    """A form field value: booleans as ``true``/``false``, lists as repeated text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


OPENAI = Provider(
    kind="openai", title="OpenAI-compatible transcription", run=_run,
    default_base_url="https://api.openai.com", auth=("Authorization", "Bearer {key}"),
    settings=frozenset({"prompt"}), options={"temperature": "number"},
    limits={"*": _LIMITS})
