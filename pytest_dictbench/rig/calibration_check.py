"""Per-block calibration of a rig's input route.

Before each block of a rig run the operator records the published calibration stimulus
through the complete input route. A recording is accepted when

* it decodes, has the stimulus's sample rate, is not silent and is not clipped;
* its onset is within ``onset_ms`` of the published stimulus's onset; and
* its integrated loudness (ITU-R BS.1770) is within ``level_db`` of the *first accepted*
  calibration of the run (the first recording is compared with itself).

The onset is the first sample whose magnitude reaches ``ONSET_THRESHOLD_DB`` below the
signal's own peak, so it does not depend on the route's gain. When the recording and
the stimulus correlate clearly (normalised cross-correlation >= ``XCORR_MIN``), the lag
of the cross-correlation peak is used instead: it is robust to a soft attack that a
threshold reads late. Example: a recording that starts 25 ms later than the stimulus
has an onset delta of +25 ms and fails a 20 ms tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..audio.io import AudioError, read_audio
from ..audio.spec import integrated_loudness

__all__ = [
    "CalibrationResult",
    "Recording",
    "Tolerance",
    "calibrate_blocks",
    "measure",
    "onset_seconds",
]

#: Onset threshold relative to the signal's own peak.
ONSET_THRESHOLD_DB = -30.0
#: Normalised cross-correlation above which its lag replaces the threshold onset.
XCORR_MIN = 0.5
#: A sample at or above this magnitude counts as clipped.
CLIP_LEVEL = 0.999
#: Consecutive clipped samples that make a recording clipped.
CLIP_RUN = 3


@dataclass(frozen=True)
class Tolerance:
    """The methodology's tolerances (manifest ``protocol.calibration``)."""

    level_db: float = 0.2
    onset_ms: float = 20.0


@dataclass(frozen=True)
class Recording:
    """Measurements of one calibration recording (or of the published stimulus)."""

    path: str
    sample_rate: int
    loudness_lufs: float
    onset_s: float | None
    clipped: bool
    samples: np.ndarray = field(repr=False, compare=False)
    #: Samples at full scale, and where the first run of ``CLIP_RUN`` of them starts (s).
    clip_count: int = 0
    clip_start_s: float | None = None

    @property
    def silent(self) -> bool:
        return self.onset_s is None


@dataclass(frozen=True)
class CalibrationResult:
    """The verdict on one block's calibration recording."""

    block: str
    path: str
    accepted: bool
    #: Human-readable reasons, e.g. ``"onset +25.0 ms from the stimulus (tolerance ±20 ms)"``.
    failures: tuple[str, ...]
    #: Recording loudness minus the first accepted calibration's, in dB.
    level_delta_db: float | None
    #: Recording onset minus the stimulus's onset, in ms.
    onset_delta_ms: float | None
    #: What changed without failing the block (an inverted polarity, another channel
    #: count), e.g. ``"polarity inverted against the stimulus (a route change?)"``.
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "block": self.block,
            "path": self.path,
            "accepted": self.accepted,
            "failures": list(self.failures),
            "level_delta_db": _rounded(self.level_delta_db),
            "onset_delta_ms": _rounded(self.onset_delta_ms),
            **({"notes": list(self.notes)} if self.notes else {}),
        }


def onset_seconds(samples: np.ndarray, rate: int,
                  threshold_db: float = ONSET_THRESHOLD_DB) -> float | None:
    """Seconds to the first sample within ``threshold_db`` of the peak; ``None`` if silent."""
    data = np.abs(np.asarray(samples, dtype=np.float64))
    peak = float(data.max()) if data.size else 0.0
    if peak <= 0.0:
        return None
    hits = np.flatnonzero(data >= peak * 10.0 ** (threshold_db / 20.0))
    return float(hits[0]) / rate


def is_clipped(samples: np.ndarray) -> bool:
    """Whether ``CLIP_RUN`` consecutive samples sit at full scale."""
    return _clip_run(samples) is not None


def _clip_run(samples: np.ndarray) -> int | None:
    """Index of the first run of ``CLIP_RUN`` samples at full scale, or None."""
    at_limit = np.abs(np.asarray(samples)) >= CLIP_LEVEL
    if not at_limit.any():
        return None
    run = np.convolve(at_limit.astype(np.int32), np.ones(CLIP_RUN, dtype=np.int32), "valid")
    starts = np.flatnonzero(run >= CLIP_RUN)
    return int(starts[0]) if starts.size else None


def measure(path: Path | str) -> Recording:
    """Decode a recording and measure loudness, onset and clipping.

    Raises:
        AudioError: the file is missing, corrupt or too short to measure.
    """
    samples, rate = read_audio(path)
    try:
        loudness = integrated_loudness(samples, rate)
    except AudioError as exc:
        raise AudioError(str(exc), path=path) from exc
    start = _clip_run(samples)
    return Recording(str(path), rate, loudness, onset_seconds(samples, rate),
                     start is not None, samples,
                     int((np.abs(np.asarray(samples)) >= CLIP_LEVEL).sum()),
                     None if start is None else start / rate)


def onset_delta_ms(recording: Recording, stimulus: Recording) -> float | None:
    """Recording onset minus stimulus onset (ms), by cross-correlation where it is clear."""
    if recording.onset_s is None or stimulus.onset_s is None:
        return None
    threshold_delta = (recording.onset_s - stimulus.onset_s) * 1000.0
    lag = _xcorr_lag(recording.samples, stimulus.samples)
    if lag is None:
        return threshold_delta
    return lag * 1000.0 / recording.sample_rate


def calibrate_blocks(stimulus: Recording, recordings: Iterable[tuple[str, Path | str]],
                     tolerance: Tolerance = Tolerance()) -> list[CalibrationResult]:
    """Judge each block's recording, in the order given (the order the blocks ran).

    A recording that cannot be decoded is a failed calibration with the decoder's
    message, never an exception: one bad file must not hide the other blocks.
    """
    results: list[CalibrationResult] = []
    first_accepted: Recording | None = None
    for block, path in recordings:
        try:
            recording = measure(path)
        except AudioError as exc:
            kind = "too short" if "too short" in str(exc) else "unreadable"
            results.append(CalibrationResult(block, str(path), False,
                                             (f"{kind}: {exc}",), None, None))
            continue
        failures = _signal_failures(recording, stimulus)
        onset = None
        level = None
        if not failures:
            onset = onset_delta_ms(recording, stimulus)
            if onset is not None and abs(onset) > tolerance.onset_ms + 1e-9:
                failures.append(f"onset {onset:+.1f} ms from the stimulus "
                                f"(tolerance ±{tolerance.onset_ms:g} ms)")
            reference = first_accepted or recording
            level = recording.loudness_lufs - reference.loudness_lufs
            # compared at 0.001 dB, inclusive: +0.2000000075 is +0.200 and passes ±0.2
            if round(abs(level), 3) > tolerance.level_db:
                failures.append(f"level {level:+.3f} dB from the first accepted calibration "
                                f"(tolerance ±{tolerance.level_db:g} dB)")
        accepted = not failures
        if accepted and first_accepted is None:
            first_accepted = recording
        notes = _route_notes(path, recording, stimulus)
        results.append(CalibrationResult(block, str(path), accepted, tuple(failures),
                                         level, onset, notes))
    return results


def _route_notes(path: Path | str, recording: Recording, stimulus: Recording
                 ) -> tuple[str, ...]:
    """Route changes that do not fail a block but are worth a note: an inverted
    polarity, and a channel count other than the stimulus's (levels are compared on the
    down-mix, so a one-sided stereo route also shows as about -6 dB)."""
    notes = []
    if _inverted(recording.samples, stimulus.samples):
        notes.append("polarity inverted against the stimulus (a route change?)")
    channels = _channels(path)
    expected = _channels(stimulus.path)
    if channels is not None and expected is not None and channels != expected:
        notes.append(f"{channels} channels, the stimulus has {expected} (levels are "
                     "compared on the down-mix)")
    return tuple(notes)


def _channels(path: Path | str) -> int | None:
    try:
        import soundfile

        return int(soundfile.info(str(path)).channels)
    except Exception:  # a note only: the measurement has already read the file
        return None


def _inverted(recording: np.ndarray, stimulus: np.ndarray) -> bool:
    """Whether the clearest cross-correlation peak is negative (polarity inverted)."""
    a = np.asarray(recording, dtype=np.float64)
    b = np.asarray(stimulus, dtype=np.float64)
    norm = math.sqrt(float(np.dot(a, a)) * float(np.dot(b, b)))
    if norm == 0.0:
        return False
    size = 1 << (len(a) + len(b) - 1).bit_length()
    corr = np.fft.irfft(np.fft.rfft(a, size) * np.conj(np.fft.rfft(b, size)), size)
    low, high = float(corr.min()), float(corr.max())
    return -low > high and -low / norm >= XCORR_MIN


def _signal_failures(recording: Recording, stimulus: Recording) -> list[str]:
    failures = []
    if recording.sample_rate != stimulus.sample_rate:
        failures.append(f"sample rate {recording.sample_rate} Hz, the stimulus has "
                        f"{stimulus.sample_rate} Hz")
    if recording.silent:
        failures.append("silent: every sample is zero (digital silence)")
    elif not math.isfinite(recording.loudness_lufs):
        failures.append("silent: integrated loudness below the -70 LUFS absolute gate "
                        "(ITU-R BS.1770)")
    if recording.clipped:
        failures.append(f"clipped: {recording.clip_count} samples at full scale (|x| >= "
                        f"{CLIP_LEVEL}), from {recording.clip_start_s:.3f} s")
    return failures


def _xcorr_lag(recording: np.ndarray, stimulus: np.ndarray) -> int | None:
    """Lag (samples) of the cross-correlation peak, or ``None`` when it is not clear."""
    a = np.asarray(recording, dtype=np.float64)
    b = np.asarray(stimulus, dtype=np.float64)
    norm = math.sqrt(float(np.dot(a, a)) * float(np.dot(b, b)))
    if norm == 0.0:
        return None
    size = 1 << (len(a) + len(b) - 1).bit_length()
    spectrum = np.fft.rfft(a, size) * np.conj(np.fft.rfft(b, size))
    corr = np.fft.irfft(spectrum, size)
    best = int(np.argmax(corr))
    if corr[best] / norm < XCORR_MIN:
        return None
    return best if best < len(a) else best - size


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def describe_failures(results: Sequence[CalibrationResult]) -> list[str]:
    """One line per rejected block: ``block_2: onset +25.0 ms ...``."""
    return [f"{r.block}: {'; '.join(r.failures)}" for r in results if not r.accepted]
