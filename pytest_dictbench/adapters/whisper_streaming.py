"""``whisper-streaming``: the local Whisper engine driven as a stream, no key, no
network: the default streaming product (``products/whisper-tiny-streaming.toml``).

The item's audio arrives in ``chunk_ms`` chunks on one monotonic clock, as from a
microphone (the same schedule as the WebSocket kinds: chunk ``k`` is there from
``(k + 1) * chunk_ms``; with no transport, no chunk can be late); the engine
transcribes its buffer again whenever ``min_chunk_ms`` of new audio has arrived and
commits what two successive hypotheses agree on (local agreement,
:mod:`.streaming.agreement`). Committed words are final; the rest of the latest
hypothesis is the partial tail. At the end of the audio the buffer is transcribed once
more and all of it committed. A buffer longer than ``buffer_trim_s`` is cut after the
last committed word, whose text then prompts the next hypotheses.

With ``batch = true`` (the default) the same model, with the same settings, also
transcribes the whole file at once after the stream (not timed): its text is kept as
``streaming.batch_text`` and the report pairs it with the streamed text, item by item.
``realtime = false`` feeds the audio as fast as the engine takes it (accuracy only;
the timings are marked not comparable).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..model import Product, Suite
from .base import AdapterOptions
from .live import CaptureRequest, LiveAdapter
from .settings import Settings
from .streaming.adapter import capture_record
from .streaming.agreement import Agreement, Word
from .streaming.audio import stream_audio
from .streaming.metrics import DEFAULT_PACING_BOUND_MS, streaming_metrics
from .streaming.timeline import Send, StreamLog, Update
from .whisper import WHISPER_RATE, WhisperConfig, WhisperTranscriber

__all__ = ["STREAM_SETTINGS", "WhisperStreamingTranscriber", "whisper_streaming_adapter"]

STREAM_SETTINGS = frozenset({"chunk_ms", "min_chunk_ms", "realtime", "pacing_bound_ms",
                             "buffer_trim_s", "batch"})
#: Where the policy comes from (recorded with every capture).
POLICY = ("local agreement of 2 successive hypotheses (Whisper-Streaming, Machacek et al., "
          "IJCNLP-AACL 2023)")
#: Characters of committed text given as the prompt once the buffer was cut.
PROMPT_CHARS = 200


@dataclasses.dataclass(frozen=True)
class StreamConfig:
    chunk_s: float
    min_chunk_s: float
    realtime: bool
    bound_ms: float
    trim_s: float
    batch: bool

    @classmethod
    def from_settings(cls, settings: Settings) -> StreamConfig:
        chunk = settings.positive("chunk_ms", 100.0) / 1000.0
        minimum = settings.positive("min_chunk_ms", 1000.0) / 1000.0
        if minimum < chunk:
            raise settings.error("[settings] min_chunk_ms must be at least chunk_ms")
        return cls(chunk, minimum, settings.get("realtime", bool, True),
                   settings.positive("pacing_bound_ms", DEFAULT_PACING_BOUND_MS),
                   settings.positive("buffer_trim_s", 15.0), settings.get("batch", bool, True))


class _Clock:
    """The audio as it arrives, read off one monotonic clock: chunk ``k`` is there from
    its due time ``(k + 1) * chunk_s``, as from a microphone. There is no transport to
    fall behind, so every chunk arrives when due; an engine busy past that time finds
    it waiting, and its lag shows in the timings."""

    def __init__(self, total: int, config: StreamConfig) -> None:
        self.total, self.config = total, config
        self.step = max(1, round(WHISPER_RATE * config.chunk_s))
        self.chunks = -(-total // self.step)
        self.zero = time.monotonic()

    def now(self) -> float:
        return time.monotonic() - self.zero

    def due(self, samples: int) -> float:
        """When the chunk holding sample ``samples - 1`` is there."""
        return min(self.chunks, -(-samples // self.step)) * self.config.chunk_s

    def wait_for(self, needed: int) -> tuple[int, bool]:
        """Sleep until ``needed`` samples (or all) are there: (arrived, ended)."""
        wait = self.due(min(needed, self.total)) - self.now()
        if wait > 0:
            time.sleep(wait)
        arrived = min(self.total, int(self.now() / self.config.chunk_s) * self.step)
        arrived = max(arrived, min(needed, self.total))
        return arrived, arrived >= self.total

    def sends(self) -> list[Send]:
        return [Send((k + 1) * self.config.chunk_s, (k + 1) * self.config.chunk_s)
                for k in range(self.chunks)]


class WhisperStreamingTranscriber:
    """A :class:`~pytest_dictbench.adapters.live.Transcriber` running the policy above."""

    decodes_audio = True

    def __init__(self, whisper: WhisperConfig, config: StreamConfig) -> None:
        self.engine = WhisperTranscriber(whisper)
        self.whisper, self.config = whisper, config

    def describe(self) -> Mapping[str, Any]:
        return {**self.engine.describe(), "streaming_policy": POLICY}

    def _hypothesis(self, samples: np.ndarray, offset_s: float, prompt: str,
                    language: str) -> list[Word]:
        segments, _ = self.engine.model.transcribe(
            samples, language=language, beam_size=self.whisper.beam_size,
            word_timestamps=True, condition_on_previous_text=False,
            initial_prompt=prompt or None)
        return [Word(w.word, offset_s + w.start, offset_s + w.end)
                for segment in segments for w in (segment.words or [])]

    def transcribe(self, request: CaptureRequest) -> Mapping[str, Any]:
        config = self.config
        audio = stream_audio(request.audio_path(), WHISPER_RATE, config.chunk_s)
        log = StreamLog(chunk_s=config.chunk_s, realtime=config.realtime)
        total = audio.samples.shape[0]
        clock = _Clock(total, config)
        language = self.whisper.language or request.language
        policy = Agreement()
        shown_final = None
        step = max(1, round(WHISPER_RATE * config.min_chunk_s))
        start = done = 0  # the buffer's first sample; the samples transcribed so far
        while True:
            if config.realtime:
                arrived, ended = clock.wait_for(done + step)
            else:  # as fast as the engine takes it
                arrived = min(total, done + step)
                ended = arrived >= total
            prompt = Agreement.text([w for w in policy.committed
                                     if w.end <= start / WHISPER_RATE])[-PROMPT_CHARS:]
            words = self._hypothesis(audio.samples[start:arrived], start / WHISPER_RATE,
                                     prompt, language)
            (policy.finish if ended else policy.insert)(words)
            done = arrived
            t = clock.now()
            log.messages += 1
            final = Agreement.text(policy.committed)
            last = (policy.tail or policy.committed or [None])[-1]
            if final != shown_final:
                log.updates.append(Update(t, "committed", final, True,
                                          policy.committed[-1].end if policy.committed
                                          else None))
                shown_final = final
            log.updates.append(Update(t, "tail", Agreement.text(policy.tail), False,
                                      last.end if last is not None else None))
            if ended:
                break
            if (arrived - start) / WHISPER_RATE > config.trim_s and policy.committed:
                start = max(start, min(arrived, round(policy.committed[-1].end * WHISPER_RATE)))
        if config.realtime:
            log.sends = clock.sends()
            log.end_sent = clock.chunks * config.chunk_s
        log.closed = clock.now()
        figures = streaming_metrics(log, audio.marks, config.bound_ms)
        record = capture_record(log, figures, {"policy": POLICY,
                                               "min_chunk_ms": config.min_chunk_s * 1000})
        if config.batch:
            record["streaming"]["batch_text"] = self.engine.transcribe(request)
        return record


def whisper_streaming_adapter(product: Product, suite: Suite, options: AdapterOptions
                              ) -> LiveAdapter:
    """Adapter factory for ``adapter = "whisper-streaming"``."""
    stream_part = {k: v for k, v in product.settings.items() if k in STREAM_SETTINGS}
    whisper = WhisperConfig.from_product(dataclasses.replace(product, settings={
        k: v for k, v in product.settings.items() if k not in STREAM_SETTINGS}))
    config = StreamConfig.from_settings(Settings(
        dataclasses.replace(product, settings=stream_part), STREAM_SETTINGS))
    return LiveAdapter(product, suite, options,
                       lambda: WhisperStreamingTranscriber(whisper, config))
