"""``deepgram-live``: Deepgram live transcription, ``wss://api.deepgram.com/v1/listen``.

Query: ``model``, ``language``, ``encoding=linear16``, ``sample_rate``, ``channels=1``,
``interim_results=true`` and the options (endpointing among them); the audio as binary
frames; ``{"type": "CloseStream"}`` at the end, after which the server sends its last
results and a ``Metadata`` message, then closes. ``Results`` messages are the updates:
``is_final`` closes a result run (a segment), interim results revise it.
"""

from __future__ import annotations

import json
from typing import Any

from .protocol import Config, Protocol, Reading, Segment, json_message, number

__all__ = ["DEEPGRAM_LIVE"]

_OPTIONS = frozenset({"smart_format", "punctuate", "endpointing", "utterance_end_ms",
                      "vad_events", "keyterm", "filler_words", "numerals",
                      "profanity_filter", "diarize", "no_delay"})


def _value(value: Any) -> list[str]:
    if isinstance(value, list):
        return [v for item in value for v in _value(item)]
    if isinstance(value, bool):
        return ["true" if value else "false"]
    return [str(value)]


def _query(config: Config) -> list[tuple[str, str]]:
    params = [("model", str(config.model)), ("encoding", "linear16"),
              ("sample_rate", str(config.sample_rate)), ("channels", "1"),
              ("interim_results", "true")]
    if config.language:
        params.append(("language", config.language))
    for name, value in sorted(config.options.items()):
        params.extend((name, v) for v in _value(value))
    return params


class _Reader:
    def __init__(self, config: Config) -> None:
        self.run = 0

    def read(self, message: str | bytes) -> Reading:
        body = json_message(message)
        kind = body.get("type")
        if kind == "Results":
            alternative = body["channel"]["alternatives"][0]
            text = alternative["transcript"]
            if not isinstance(text, str):
                raise ValueError("Results without a transcript")
            words = alternative.get("words") or []
            end = number(words[-1].get("end")) if words else None
            segment = Segment(str(self.run), text, bool(body.get("is_final")), end)
            if segment.final:
                self.run += 1
            return Reading([segment])
        if kind == "Metadata":
            return Reading(done=True, facts={"request_id": body.get("request_id"),
                                             "duration_s": body.get("duration")})
        if kind == "Error" or "err_msg" in body:
            return Reading(error=str(body.get("description") or body.get("err_msg")
                                     or body.get("message") or body))
        return Reading()  # SpeechStarted, UtteranceEnd: no text


DEEPGRAM_LIVE = Protocol(
    kind="deepgram-live", title="Deepgram live", default_base_url="wss://api.deepgram.com",
    path="/v1/listen", auth=("Authorization", "Token {key}"), sample_rate=16000,
    query=_query, opening=lambda config: [], audio=lambda chunk: chunk,
    closing=lambda config, sent: [json.dumps({"type": "CloseStream"})],
    reader=_Reader, options=_OPTIONS, default_model="nova-3")
