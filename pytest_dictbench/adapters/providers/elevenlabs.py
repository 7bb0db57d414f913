"""``elevenlabs``: ElevenLabs Scribe: ``POST {base_url}/v1/speech-to-text``, multipart
with ``file``, ``model_id``, ``language_code`` and the options (``tag_audio_events``
marks laughter and the like, useful for verbatim suites; ``keyterms``, a list, is sent
as one field per term); the key is ``xi-api-key``.

The answer is one transcript: ``text``, the detected ``language_code`` (ISO 639-3) and
its probability, ``words`` and ``transcription_id`` (the capture's request id). The
options that change that shape (``use_multi_channel``: one transcript per channel;
``webhook``: an answer without the transcript) are not accepted.
"""

from __future__ import annotations

from typing import Any

from ..http import encode_multipart
from ..live import CaptureRequest
from .base import Audio, Limits, Provider, ProviderTranscriber, Result
from .client import Session

__all__ = ["ELEVENLABS"]

_OPTIONS = {"tag_audio_events": "bool", "diarize": "bool", "num_speakers": "int",
            "diarization_threshold": "number", "timestamps_granularity": "string",
            "temperature": "number", "seed": "int", "keyterms": "strings",
            "file_format": "string"}


def _field(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _run(transcriber: ProviderTranscriber, session: Session, request: CaptureRequest,
         audio: Audio) -> Result:
    fields = [("model_id", str(transcriber.model))]
    language = transcriber.language_code(request)
    if language:
        fields.append(("language_code", language))
    for name, value in sorted(transcriber.options.items()):
        values = value if isinstance(value, list) else [value]
        fields.extend((name, _field(v)) for v in values)
    body, content_type = encode_multipart(fields, "file", audio.path.name, audio.content,
                                          audio.content_type)
    reply = session.send("POST", "/v1/speech-to-text", content=body,
                         headers={"Content-Type": content_type})
    answer: Any = reply.body if isinstance(reply.body, dict) else {}
    facts = {"request_id": answer.get("transcription_id") or reply.headers.get("request-id"),
             "language_code": answer.get("language_code"),
             "language_probability": answer.get("language_probability")}
    text = answer.get("text")
    seconds = answer.get("audio_duration_secs")  # what ElevenLabs bills, when it says
    billed = float(seconds) if isinstance(seconds, (int, float)) and not isinstance(
        seconds, bool) else round(audio.duration_s, 3)
    return Result(text if isinstance(text, str) else None, facts, billed_seconds=billed)


ELEVENLABS = Provider(
    kind="elevenlabs", title="ElevenLabs Scribe", run=_run,
    default_base_url="https://api.elevenlabs.io", auth=("xi-api-key", "{key}"),
    options=_OPTIONS, default_model="scribe_v1",
    # documented upload limit: 3 GB
    limits={"*": Limits(max_bytes=3 * 1024 ** 3, max_bytes_text="3 GB file")})
