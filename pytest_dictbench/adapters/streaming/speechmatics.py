"""``speechmatics-rt``: Speechmatics real-time, ``wss://eu2.rt.speechmatics.com/v2``.

``StartRecognition`` (raw ``pcm_s16le`` at 16 kHz, ``transcription_config`` with the
language, ``enable_partials`` and the options, endpointing among them: ``max_delay``,
``end_of_utterance_silence_trigger`` ...), audio as binary ``AddAudio`` frames after
``RecognitionStarted``, ``EndOfStream`` with ``last_seq_no`` (the chunks sent) at the
end, answered by the last transcripts and ``EndOfTranscript``. An ``AddTranscript`` is
final text that follows the finals before it; ``AddPartialTranscript`` is the text
after them, replaced by the next.
"""

from __future__ import annotations

import json
from typing import Any

from .protocol import Config, Protocol, Reading, Segment, json_message, number

__all__ = ["SPEECHMATICS_RT"]

_OPTIONS = frozenset({"max_delay", "max_delay_mode", "end_of_utterance_silence_trigger",
                      "additional_vocab", "enable_entities", "diarization",
                      "punctuation_overrides", "domain", "output_locale"})


def _opening(config: Config) -> list[str]:
    transcription: dict[str, Any] = {"language": config.language or "en",
                                     "enable_partials": True,
                                     "operating_point": config.model}
    conversation = {}
    for name, value in sorted(config.options.items()):
        if name == "end_of_utterance_silence_trigger":
            conversation[name] = value
        else:
            transcription[name] = value
    if conversation:
        transcription["conversation_config"] = conversation
    return [json.dumps({"message": "StartRecognition",
                        "audio_format": {"type": "raw", "encoding": "pcm_s16le",
                                         "sample_rate": config.sample_rate},
                        "transcription_config": transcription})]


class _Reader:
    def __init__(self, config: Config) -> None:
        self.run = 0

    def read(self, message: str | bytes) -> Reading:
        body = json_message(message)
        kind = body.get("message")
        if kind == "RecognitionStarted":
            return Reading(ready=True, facts={"session_id": body.get("id")})
        if kind in ("AddPartialTranscript", "AddTranscript"):
            meta = body["metadata"]
            text = meta["transcript"]
            if not isinstance(text, str):
                raise ValueError(f"{kind} without metadata.transcript")
            final = kind == "AddTranscript"
            segment = Segment(str(self.run), text, final, number(meta.get("end_time")))
            if final:
                self.run += 1
            return Reading([segment])
        if kind == "EndOfTranscript":
            return Reading(done=True)
        if kind == "Error":
            return Reading(error=f"{body.get('type')}: {body.get('reason')}")
        return Reading()  # AudioAdded, Info, Warning, EndOfUtterance


SPEECHMATICS_RT = Protocol(
    kind="speechmatics-rt", title="Speechmatics real-time",
    default_base_url="wss://eu2.rt.speechmatics.com", path="/v2",
    auth=("Authorization", "Bearer {key}"), sample_rate=16000, query=lambda config: [],
    opening=_opening, audio=lambda chunk: chunk,
    closing=lambda config, sent: [json.dumps({"message": "EndOfStream",
                                              "last_seq_no": sent})],
    reader=_Reader, options=_OPTIONS, default_model="enhanced", wait_ready=True)
