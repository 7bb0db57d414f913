"""``soniox-rt``: Soniox real-time, ``wss://stt-rt.soniox.com/transcribe-websocket``.

The key goes in the handshake's ``Authorization: Bearer`` header (the start message's
``api_key`` field is deprecated and never used here). The start message names the
model, ``pcm_s16le`` at 16 kHz mono, the language as a hint and the options
(``enable_endpoint_detection`` ...); audio goes as binary frames; an empty frame ends
the stream, answered by the last tokens and ``{"finished": true}``. Each response holds
tokens: final ones are sent once and never change (they extend the final text), the
non-final ones are the current tail (replaced by the next response). The marker tokens
``<end>`` and ``<fin>`` are not text.
"""

from __future__ import annotations

import json
from typing import Any

from .protocol import Config, Protocol, Reading, Segment, json_message, number

__all__ = ["SONIOX_RT"]

_OPTIONS = frozenset({"enable_endpoint_detection", "context",
                      "enable_speaker_diarization", "enable_language_identification"})
_MARKERS = frozenset({"<end>", "<fin>"})


def _opening(config: Config) -> list[str]:
    start: dict[str, Any] = {"model": config.model, "audio_format": "pcm_s16le",
                             "sample_rate": config.sample_rate, "num_channels": 1}
    if config.language:
        start["language_hints"] = [config.language]
    start.update(sorted(config.options.items()))
    return [json.dumps(start)]


class _Reader:
    def __init__(self, config: Config) -> None:
        self.final = ""
        self.started = False

    def read(self, message: str | bytes) -> Reading:
        body = json_message(message)
        if body.get("error_code") is not None or body.get("error_message"):
            return Reading(error=f"{body.get('error_code')}: {body.get('error_message')}")
        tokens = body.get("tokens", [])
        if not isinstance(tokens, list):
            raise ValueError("tokens is not a list")
        tail, end = "", None
        grew = False
        for token in tokens:
            text = token["text"]
            if not isinstance(text, str):
                raise ValueError("a token without text")
            if text in _MARKERS:
                continue
            end = number(token.get("end_ms"))
            if token.get("is_final"):
                self.final += text
                grew = True
            else:
                tail += text
        audio_end = None if end is None else end / 1000.0
        updates = []
        if not self.started or grew:
            updates.append(Segment("final", self.final, self.started or grew, audio_end))
            self.started = True
        updates.append(Segment("tail", tail, False, audio_end if tail else None))
        return Reading(updates, done=bool(body.get("finished")))


SONIOX_RT = Protocol(
    kind="soniox-rt", title="Soniox real-time", default_base_url="wss://stt-rt.soniox.com",
    path="/transcribe-websocket", auth=("Authorization", "Bearer {key}"), sample_rate=16000,
    query=lambda config: [], opening=_opening, audio=lambda chunk: chunk,
    closing=lambda config, sent: [b""], reader=_Reader, options=_OPTIONS,
    default_model="stt-rt-v6")
