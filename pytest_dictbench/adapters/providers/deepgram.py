"""``deepgram``: Deepgram pre-recorded transcription: ``POST {base_url}/v1/listen`` with
the raw audio as the body, ``Authorization: Token``, the options as query parameters
(``model``, ``language``, ``smart_format``, ``keyterm`` ...)."""

from __future__ import annotations

import hashlib
from typing import Any

from ...errors import CaptureError
from ..live import CaptureRequest
from .base import Audio, Limits, Provider, ProviderTranscriber, Result
from .client import Session

__all__ = ["DEEPGRAM"]

_OPTIONS = {"smart_format": "bool", "punctuate": "bool", "keyterm": "string or strings",
            "keywords": "string or strings", "diarize": "bool", "filler_words": "bool",
            "numerals": "bool", "profanity_filter": "bool", "paragraphs": "bool",
            "utterances": "bool", "detect_language": "bool", "dictation": "bool",
            "measurements": "bool"}


def _query(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return [_query(v) for v in value]
    return str(value)


def _dig(value: Any, *path: str | int) -> Any:
    """``value[path[0]][path[1]]...``, ``None`` where the answer lacks a step."""
    for step in path:
        if isinstance(step, int):
            if not isinstance(value, list) or len(value) <= step:
                return None
        elif not isinstance(value, dict):
            return None
        value = value[step] if isinstance(step, int) else value.get(step)
    return value


def _run(transcriber: ProviderTranscriber, session: Session, request: CaptureRequest,
         audio: Audio) -> Result:
    params: list[tuple[str, Any]] = [("model", transcriber.model)]
    language = transcriber.language_code(request)
    if language:
        params.append(("language", language))
    for name, value in sorted(transcriber.options.items()):
        values = _query(value)
        params.extend((name, v) for v in (values if isinstance(values, list) else [values]))
    reply = session.send("POST", "/v1/listen", params=params, content=audio.content,
                         headers={"Content-Type": audio.content_type})
    body: Any = reply.body if isinstance(reply.body, dict) else {}
    meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    facts: dict[str, Any] = {"request_id": meta.get("request_id")}
    info = meta.get("model_info")
    if isinstance(info, dict) and info:
        facts["model_info"] = [info[k] for k in sorted(info)]
    channels = _dig(body, "results", "channels")
    if isinstance(channels, list) and len(channels) > 1:  # never asked for (PV11)
        raise CaptureError(f"Deepgram answered {len(channels)} channels (results.channels): "
                           "one transcript per case is scored")
    digest = meta.get("sha256")
    if isinstance(digest, str) and digest != hashlib.sha256(audio.content).hexdigest():
        raise CaptureError("Deepgram answered for other audio (metadata.sha256 is not the "
                           "digest of the audio sent)")
    text = _dig(body, "results", "channels", 0, "alternatives", 0, "transcript")
    duration = meta.get("duration")
    billed = float(duration) if isinstance(duration, (int, float)) else None
    missing = "results.channels is empty" if not channels else \
        "results.channels[0].alternatives is empty" if not _dig(
            body, "results", "channels", 0, "alternatives") else \
        "no results.channels[0].alternatives[0].transcript"
    return Result(text if isinstance(text, str) else None, facts, billed_seconds=billed,
                  missing=missing)


DEEPGRAM = Provider(
    kind="deepgram", title="Deepgram", run=_run, default_base_url="https://api.deepgram.com",
    auth=("Authorization", "Token {key}"), options=_OPTIONS, default_model="nova-3",
    # documented maximum file size for pre-recorded audio: 2 GB
    limits={"*": Limits(max_bytes=2 * 1024 ** 3, max_bytes_text="2 GB file")})
