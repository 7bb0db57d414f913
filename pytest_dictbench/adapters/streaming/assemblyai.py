"""``assemblyai-streaming``: AssemblyAI Universal-Streaming (v3),
``wss://streaming.assemblyai.com/v3/ws``.

Query: ``sample_rate``, ``encoding=pcm_s16le``, ``speech_model`` and the options (turn
detection: ``end_of_turn_confidence_threshold``, ``min_end_of_turn_silence_when_confident``,
``max_turn_silence``; ``format_turns`` ...); audio as binary frames after the server's
``Begin``; ``{"type": "Terminate"}`` at the end, answered by the turns in flight and a
``Termination`` message. Each ``Turn`` message carries its turn's whole transcript so
far (``turn_order`` is the segment); ``end_of_turn`` makes it final, or with
``format_turns`` the formatted turn that follows it.
"""

from __future__ import annotations

import json
from typing import Any

from .protocol import Config, Protocol, Reading, Segment, json_message, number

__all__ = ["ASSEMBLYAI_STREAMING"]

_OPTIONS = frozenset({"format_turns", "end_of_turn_confidence_threshold",
                      "min_end_of_turn_silence_when_confident", "max_turn_silence",
                      "keyterms_prompt", "vad_threshold", "language_detection"})


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return json.dumps(value)
    return str(value)


def _query(config: Config) -> list[tuple[str, str]]:
    params = [("sample_rate", str(config.sample_rate)), ("encoding", "pcm_s16le"),
              ("speech_model", str(config.model))]
    params.extend((k, _text(v)) for k, v in sorted(config.options.items()))
    return params


class _Reader:
    def __init__(self, config: Config) -> None:
        self.formatted = config.options.get("format_turns") is True

    def read(self, message: str | bytes) -> Reading:
        body = json_message(message)
        kind = body.get("type")
        if kind == "Begin":
            return Reading(ready=True, facts={"session_id": body.get("id")})
        if kind == "Turn":
            text = body["transcript"]
            if not isinstance(text, str) or not isinstance(body.get("turn_order"), int):
                raise ValueError("Turn without transcript or turn_order")
            final = bool(body.get("end_of_turn")) and (
                not self.formatted or bool(body.get("turn_is_formatted")))
            words = body.get("words") or []
            end = number(words[-1].get("end")) if words else None
            return Reading([Segment(str(body["turn_order"]), text, final,
                                    None if end is None else end / 1000.0)])
        if kind == "Termination":
            return Reading(done=True, facts={
                "audio_duration_s": body.get("audio_duration_seconds"),
                "session_duration_s": body.get("session_duration_seconds")})
        if kind == "Error" or "error" in body:
            return Reading(error=str(body.get("error") or body))
        return Reading()  # SpeechStarted and the like


ASSEMBLYAI_STREAMING = Protocol(
    kind="assemblyai-streaming", title="AssemblyAI Universal-Streaming",
    default_base_url="wss://streaming.assemblyai.com", path="/v3/ws",
    auth=("Authorization", "{key}"), sample_rate=16000, query=_query,
    opening=lambda config: [], audio=lambda chunk: chunk,
    closing=lambda config, sent: [json.dumps({"type": "Terminate"})], reader=_Reader,
    options=_OPTIONS, default_model="universal-streaming-english", wait_ready=True)
