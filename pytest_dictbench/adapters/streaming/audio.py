"""An item's audio as a stream: 16-bit little-endian mono PCM at the provider's rate
(resampled by the project's audio code), cut into chunks of ``chunk_s``, with the
positions its timings are measured from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...audio.io import read_audio
from .marks import audio_marks
from .metrics import AudioMarks

__all__ = ["StreamAudio", "stream_audio"]


@dataclass(frozen=True)
class StreamAudio:
    chunks: list[bytes]
    marks: AudioMarks
    duration_s: float
    samples: np.ndarray
    rate: int


def stream_audio(path: Path, rate: int, chunk_s: float) -> StreamAudio:
    """The audio of ``path`` as ``rate`` Hz PCM chunks (the last one may be shorter)."""
    samples, _ = read_audio(path, target_rate=rate)
    samples = np.asarray(samples, dtype=np.float32)
    pcm = (np.clip(samples, -1.0, 1.0) * 32767.0).round().astype("<i2").tobytes()
    step = max(1, round(rate * chunk_s)) * 2
    chunks = [pcm[i:i + step] for i in range(0, len(pcm), step)]
    return StreamAudio(chunks, audio_marks(samples, rate), samples.shape[0] / rate,
                       samples, rate)
