"""``openai-realtime``: OpenAI Realtime transcription sessions (the GA interface),
``wss://api.openai.com/v1/realtime?intent=transcription`` with no ``model`` in the URL
and no ``OpenAI-Beta`` header (that header selects the deprecated beta interface, whose
opening was ``transcription_session.update``).

``session.update`` with a session of ``type: "transcription"`` sets the input audio
(``audio.input``: ``format`` ``audio/pcm`` at 24 kHz, ``transcription`` with the model,
language and prompt, ``turn_detection``: server VAD by default, its
``silence_duration_ms`` and the like as options, ``noise_reduction``); audio goes as
``input_audio_buffer.append`` events (base64); ``input_audio_buffer.commit`` ends the
stream. Each committed audio item is a segment: ``...input_audio_transcription.delta``
events add to its text, ``...completed`` gives its final text. The session is over
once the closing commit is answered (``input_audio_buffer.committed``, or the error
``input_audio_buffer_commit_empty`` when VAD had committed everything) and every
committed item is completed.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from .protocol import Config, Protocol, Reading, Segment, json_message

__all__ = ["OPENAI_REALTIME"]

_OPTIONS = frozenset({"turn_detection", "prompt", "noise_reduction"})
_PREFIX = "conversation.item.input_audio_transcription."


def _opening(config: Config) -> list[str]:
    transcription: dict[str, Any] = {"model": config.model}
    if config.language:
        transcription["language"] = config.language
    if "prompt" in config.options:
        transcription["prompt"] = config.options["prompt"]
    audio_input: dict[str, Any] = {
        "format": {"type": "audio/pcm", "rate": 24000},
        "transcription": transcription,
        "turn_detection": config.options.get("turn_detection", {"type": "server_vad"})}
    if "noise_reduction" in config.options:
        audio_input["noise_reduction"] = {"type": config.options["noise_reduction"]}
    return [json.dumps({"type": "session.update", "session": {
        "type": "transcription", "audio": {"input": audio_input}}})]


def _audio(chunk: bytes) -> str:
    return json.dumps({"type": "input_audio_buffer.append",
                       "audio": base64.b64encode(chunk).decode("ascii")})


class _Reader:
    def __init__(self, config: Config) -> None:
        self.texts: dict[str, str] = {}
        self.pending: set[str] = set()
        self.ending = False
        self.end_answered = False

    def ended(self) -> bool:
        self.ending = True
        return False  # the closing commit is always answered

    def _done(self) -> bool:
        return self.end_answered and not self.pending

    def read(self, message: str | bytes) -> Reading:
        body = json_message(message)
        kind = body.get("type")
        if kind == "input_audio_buffer.committed":
            self.pending.add(str(body["item_id"]))
            self.end_answered = self.end_answered or self.ending
            return Reading(done=self._done())
        if kind == _PREFIX + "delta":
            item = str(body["item_id"])
            self.pending.add(item)
            self.texts[item] = self.texts.get(item, "") + str(body["delta"])
            return Reading([Segment(item, self.texts[item], False)])
        if kind == _PREFIX + "completed":
            item = str(body["item_id"])
            text = body["transcript"]
            if not isinstance(text, str):
                raise ValueError("completed without a transcript")
            self.pending.discard(item)
            return Reading([Segment(item, text, True)], done=self._done())
        if kind == _PREFIX + "failed":
            return Reading(error=str((body.get("error") or {}).get("message") or body))
        if kind == "error":
            error = body.get("error") or {}
            if self.ending and error.get("code") == "input_audio_buffer_commit_empty":
                self.end_answered = True
                return Reading(done=self._done())
            return Reading(error=str(error.get("message") or error or body))
        if kind in ("session.created", "session.updated", "transcription_session.created",
                    "transcription_session.updated"):
            return Reading(facts={"session_id": (body.get("session") or {}).get("id")})
        return Reading()


OPENAI_REALTIME = Protocol(
    kind="openai-realtime", title="OpenAI Realtime transcription",
    default_base_url="wss://api.openai.com", path="/v1/realtime",
    auth=("Authorization", "Bearer {key}"), sample_rate=24000,
    query=lambda config: [("intent", "transcription")], opening=_opening, audio=_audio,
    closing=lambda config, sent: [json.dumps({"type": "input_audio_buffer.commit"})],
    reader=_Reader, options=_OPTIONS, default_model="gpt-4o-transcribe")
