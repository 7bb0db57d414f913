"""Where the speech is in an item's audio: the positions timings are measured from.

- **first audible sample** and **last audible sample**: the edges of the first and
  last 10 ms window whose RMS exceeds -50 dBFS (the project's silence detector,
  :func:`pytest_dictbench.audio.spec.silence_ms`, at its default threshold);
- **speech onset**: the start of the first window within 25 dB of the item's loudest
  window (a breath or click above -50 dBFS is audible but not yet speech).
"""

from __future__ import annotations

import numpy as np

from ...audio.spec import SILENCE_HOP_MS, SILENCE_WINDOW_MS, silence_ms
from .metrics import AudioMarks

__all__ = ["AUDIBLE_DB", "ONSET_BELOW_PEAK_DB", "audio_marks"]

AUDIBLE_DB = -50.0
ONSET_BELOW_PEAK_DB = 25.0


def audio_marks(samples: np.ndarray, rate: int) -> AudioMarks:
    """The marks of mono ``samples`` at ``rate`` Hz (silence: all at the end)."""
    data = np.asarray(samples, dtype=np.float64)
    duration = data.shape[0] / rate
    lead, trail = silence_ms(data, rate, AUDIBLE_DB)
    onset_ms = lead
    peak = _loudest_window_db(data, rate)
    if peak is not None and peak - ONSET_BELOW_PEAK_DB > AUDIBLE_DB:
        onset_ms, _ = silence_ms(data, rate, peak - ONSET_BELOW_PEAK_DB)
    return AudioMarks(lead / 1000.0, max(lead, onset_ms) / 1000.0,
                      max(0.0, duration - trail / 1000.0))


def _loudest_window_db(data: np.ndarray, rate: int) -> float | None:
    window = max(1, round(SILENCE_WINDOW_MS * rate / 1000))
    hop = max(1, round(SILENCE_HOP_MS * rate / 1000))
    if data.shape[0] < window:
        return None
    energy = np.concatenate([[0.0], np.cumsum(data ** 2)])
    starts = np.arange(0, data.shape[0] - window + 1, hop)
    mean_square = (energy[starts + window] - energy[starts]) / window
    loudest = float(mean_square.max())
    return 10.0 * np.log10(loudest) if loudest > 0 else None
