"""Audio specifications and the conformance checks that compare a file against one.

A suite declares its audio specification in the ``[audio]`` table of ``suite.toml``;
every field is optional and only declared fields are checked. The measurements are
pure functions of the samples:

* integrated loudness (LUFS): ITU-R BS.1770 K-weighting and gating, by pyloudnorm;
* true peak (dBTP): the largest absolute sample after 4x oversampling with soxr;
* leading/trailing silence (ms): see :func:`silence_ms`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..errors import SuiteError
from ..model import Suite
from .io import AudioError, audio_info, import_soxr, read_audio

__all__ = [
    "AudioSpec",
    "Finding",
    "check_audio",
    "integrated_loudness",
    "silence_ms",
    "true_peak_dbtp",
]

#: Oversampling factor of the true-peak measurement.
TRUE_PEAK_OVERSAMPLING = 4
#: Window over which the silence detector measures RMS.
SILENCE_WINDOW_MS = 10.0
#: Step between successive silence-detector windows.
SILENCE_HOP_MS = 1.0

Comparison = Literal["equal", "within", "at_most", "at_least"]

_FIELD_TYPES: dict[str, type] = {
    "container": str,
    "sample_rate": int,
    "channels": int,
    "bit_depth": int,
    "loudness_lufs": float,
    "loudness_tolerance": float,
    "true_peak_max_dbtp": float,
    "silence_ms": float,
    "silence_tolerance_ms": float,
    "silence_threshold_db": float,
}


@dataclass(frozen=True)
class AudioSpec:
    """What every audio file of a suite must look like. ``None`` means "not checked"."""

    #: Container as libsndfile names it (``"FLAC"``, ``"WAV"``), compared case-blind;
    #: ``WAVEX`` (WAVE_FORMAT_EXTENSIBLE) is a ``WAV`` file.
    container: str | None = None
    sample_rate: int | None = None
    channels: int | None = None
    #: Bits per sample (16 for PCM_16; 32 for PCM_32 and FLOAT).
    bit_depth: int | None = None
    #: Target integrated loudness (LUFS), met within ``loudness_tolerance`` LU.
    loudness_lufs: float | None = None
    loudness_tolerance: float = 1.0
    #: Highest allowed true peak (dBTP).
    true_peak_max_dbtp: float | None = None
    #: Silence at each end (ms): within ``silence_tolerance_ms`` when that is given,
    #: otherwise at least this long.
    silence_ms: float | None = None
    silence_tolerance_ms: float | None = None
    #: RMS level (dBFS) a 10 ms window must exceed to count as sound.
    silence_threshold_db: float = -50.0

    @classmethod
    def from_table(cls, table: Mapping[str, Any], *, path: Path | str | None = None) -> AudioSpec:
        """Build a spec from an ``[audio]`` table, rejecting unknown or mistyped fields."""
        unknown = sorted(set(table) - set(_FIELD_TYPES))
        if unknown:
            raise SuiteError(
                f"[audio] has unknown field(s) {', '.join(unknown)}; "
                f"known fields: {', '.join(_FIELD_TYPES)}",
                path=path,
            )
        values = {name: _typed(name, value, path) for name, value in table.items()}
        return cls(**values)

    @classmethod
    def from_suite(cls, suite: Suite) -> AudioSpec | None:
        """The suite's ``[audio]`` specification, or ``None`` when it declares none."""
        table = suite.manifest.get("audio")
        if table is None:
            return None
        where = suite.root / "suite.toml"
        if not isinstance(table, Mapping):
            raise SuiteError("[audio] must be a table", path=where)
        return cls.from_table(table, path=where)

    def to_json(self) -> dict[str, Any]:
        """All fields, ``None`` for the checks not declared."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def needs_samples(self) -> bool:
        """Whether any declared check measures the signal (not just the header)."""
        return any(
            v is not None for v in (self.loudness_lufs, self.true_peak_max_dbtp, self.silence_ms)
        )


@dataclass(frozen=True)
class Finding:
    """The outcome of one check of one file."""

    #: Name of the check, e.g. ``"sample_rate"`` or ``"leading_silence_ms"``.
    check: str
    expected: str | float
    measured: str | float | None
    passed: bool
    #: How ``measured`` is compared with ``expected``.
    comparison: Comparison = "equal"
    tolerance: float | None = None
    unit: str = ""
    #: Extra context, e.g. the sample subtype behind a bit depth.
    detail: str = ""

    def describe(self) -> str:
        """One line: ``loudness_lufs: expected -23.0 ± 1.0 LUFS, measured -25.31 LUFS (fail)``."""
        unit = f" {self.unit}" if self.unit else ""
        if self.comparison == "within":
            expected = f"{_fmt(self.expected)} ± {_fmt(self.tolerance)}{unit}"
        elif self.comparison == "at_most":
            expected = f"≤ {_fmt(self.expected)}{unit}"
        elif self.comparison == "at_least":
            expected = f"≥ {_fmt(self.expected)}{unit}"
        else:
            expected = f"{_fmt(self.expected)}{unit}"
        detail = f" [{self.detail}]" if self.detail else ""
        verdict = "pass" if self.passed else "fail"
        return f"{self.check}: expected {expected}, measured {_fmt(self.measured)}{unit}" + (
            f"{detail} ({verdict})"
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (non-finite numbers become strings such as ``"-inf"``)."""
        return {
            "check": self.check,
            "expected": _json_number(self.expected),
            "measured": _json_number(self.measured),
            "passed": self.passed,
            "comparison": self.comparison,
            "tolerance": self.tolerance,
            "unit": self.unit,
            "detail": self.detail,
        }


####################################################################################
# Measurements (pure functions of the samples)
####################################################################################


def integrated_loudness(samples: np.ndarray, rate: int) -> float:
    """Integrated loudness (LUFS) by ITU-R BS.1770 via pyloudnorm; ``-inf`` for silence.

    Raises:
        AudioError: shorter than one 400 ms gating block, or pyloudnorm missing.
    """
    pyln = _import_pyloudnorm()
    data = np.asarray(samples, dtype=np.float64)
    duration = data.shape[0] / rate
    if duration <= 0.4:
        raise AudioError(f"too short to measure loudness: {duration:.3f} s, needs more than 0.4 s")
    with np.errstate(divide="ignore"):
        return float(pyln.Meter(rate).integrated_loudness(data))


def true_peak_dbtp(samples: np.ndarray, rate: int) -> float:
    """True peak (dBTP): max |sample| after 4x oversampling with soxr; ``-inf`` if silent.

    The oversampling filter rings at abrupt edges (a signal that starts at full level
    on its first sample), which a true-peak meter is meant to report.
    """
    data = np.asarray(samples, dtype=np.float64)
    if data.size == 0:
        return -math.inf
    soxr = import_soxr()
    oversampled = soxr.resample(data, rate, rate * TRUE_PEAK_OVERSAMPLING, quality="VHQ")
    peak = float(np.max(np.abs(oversampled))) if oversampled.size else 0.0
    return 20.0 * math.log10(peak) if peak > 0.0 else -math.inf


def silence_ms(
    samples: np.ndarray,
    rate: int,
    threshold_db: float = -50.0,
    *,
    window_ms: float = SILENCE_WINDOW_MS,
    hop_ms: float = SILENCE_HOP_MS,
) -> tuple[float, float]:
    """Leading and trailing silence in milliseconds.

    The signal is cut into ``window_ms`` windows every ``hop_ms``; a window is *sound*
    when its RMS (over samples, the loudest channel) exceeds ``threshold_db`` dBFS
    (1.0 = 0 dBFS). Leading silence ends where the first sound window starts; trailing
    silence starts where the last sound window ends. An onset is thus found up to one
    window (plus one hop) early: measurements err short by at most ~11 ms. A file with
    no sound window is silence throughout: both values equal its duration.
    """
    data = np.asarray(samples, dtype=np.float64)
    if data.ndim == 1:
        data = data[:, None]
    count = data.shape[0]
    if count == 0:
        return 0.0, 0.0
    window = min(count, max(1, round(window_ms * rate / 1000)))
    hop = max(1, round(hop_ms * rate / 1000))
    energy = np.concatenate([np.zeros((1, data.shape[1])), np.cumsum(data**2, axis=0)])
    starts = np.arange(0, count - window + 1, hop)
    if starts[-1] != count - window:
        starts = np.append(starts, count - window)
    mean_square = (energy[starts + window] - energy[starts]) / window
    loud = np.flatnonzero(mean_square.max(axis=1) > 10.0 ** (threshold_db / 10.0))
    to_ms = 1000.0 / rate
    if loud.size == 0:
        return count * to_ms, count * to_ms
    leading = starts[loud[0]]
    trailing = count - (starts[loud[-1]] + window)
    return float(leading * to_ms), float(trailing * to_ms)


####################################################################################
# The check
####################################################################################


#: libsndfile's names for variants of one container.
_SAME_CONTAINER = {"WAVEX": "WAV"}


def _container(name: str) -> str:
    upper = name.upper()
    return _SAME_CONTAINER.get(upper, upper)


def check_audio(path: Path | str, spec: AudioSpec) -> list[Finding]:
    """Check one file against a spec: one finding per declared check, in field order.

    The file is always decoded completely, so a corrupt or truncated file raises
    :class:`AudioError` even when only header fields are declared.
    """
    info = audio_info(path)
    samples, rate = read_audio(path, mono=False)
    findings: list[Finding] = []
    if spec.container is not None:
        findings.append(
            Finding(
                "container",
                spec.container,
                info.container,
                _container(info.container) == _container(spec.container),
            )
        )
    for name, measured in (("sample_rate", info.sample_rate), ("channels", info.channels)):
        expected = getattr(spec, name)
        if expected is not None:
            unit = "Hz" if name == "sample_rate" else ""
            findings.append(Finding(name, expected, measured, measured == expected, unit=unit))
    if spec.bit_depth is not None:
        findings.append(
            Finding(
                "bit_depth",
                spec.bit_depth,
                info.bit_depth,
                info.bit_depth == spec.bit_depth,
                unit="bit",
                detail=info.subtype,
            )
        )
    try:
        findings.extend(_signal_findings(samples, rate, spec))
    except AudioError as exc:
        raise AudioError(str(exc), path=path) from exc
    return findings


def _signal_findings(samples: np.ndarray, rate: int, spec: AudioSpec) -> list[Finding]:
    """Findings for the declared loudness, true-peak and silence checks."""
    findings: list[Finding] = []
    if spec.loudness_lufs is not None:
        loudness = integrated_loudness(samples, rate)
        findings.append(
            Finding(
                "loudness_lufs",
                spec.loudness_lufs,
                round(loudness, 2),
                abs(loudness - spec.loudness_lufs) <= spec.loudness_tolerance,
                comparison="within",
                tolerance=spec.loudness_tolerance,
                unit="LUFS",
            )
        )
    if spec.true_peak_max_dbtp is not None:
        peak = true_peak_dbtp(samples, rate)
        findings.append(
            Finding(
                "true_peak_dbtp",
                spec.true_peak_max_dbtp,
                round(peak, 2),
                peak <= spec.true_peak_max_dbtp,
                comparison="at_most",
                unit="dBTP",
            )
        )
    if spec.silence_ms is not None:
        leading, trailing = silence_ms(samples, rate, spec.silence_threshold_db)
        for end, measured in (("leading", leading), ("trailing", trailing)):
            findings.append(_silence_finding(end, measured, spec))
    return findings


def _silence_finding(end: str, measured: float, spec: AudioSpec) -> Finding:
    assert spec.silence_ms is not None
    tolerance = spec.silence_tolerance_ms
    detail = f"threshold {_fmt(spec.silence_threshold_db)} dBFS RMS"
    if tolerance is None:
        passed = measured >= spec.silence_ms
        return Finding(
            f"{end}_silence_ms",
            spec.silence_ms,
            round(measured, 1),
            passed,
            comparison="at_least",
            unit="ms",
            detail=detail,
        )
    return Finding(
        f"{end}_silence_ms",
        spec.silence_ms,
        round(measured, 1),
        abs(measured - spec.silence_ms) <= tolerance,
        comparison="within",
        tolerance=tolerance,
        unit="ms",
        detail=detail,
    )


####################################################################################
# Private helpers
####################################################################################


def _import_pyloudnorm() -> Any:
    try:
        import pyloudnorm
    except ImportError as exc:
        raise AudioError(
            "loudness measurement needs the optional package 'pyloudnorm': "
            "pip install 'pytest-dictbench[audio]'"
        ) from exc
    return pyloudnorm


def _typed(name: str, value: Any, path: Path | str | None) -> Any:
    """Check one ``[audio]`` value's type; ints are accepted where floats are wanted."""
    wanted = _FIELD_TYPES[name]
    if wanted is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, wanted) and not isinstance(value, bool):
        if wanted is int and value <= 0:
            raise SuiteError(f"[audio] {name} must be positive, got {value}", path=path)
        return value
    raise SuiteError(
        f"[audio] {name} must be {'a number' if wanted is float else wanted.__name__}, "
        f"got {value!r}",
        path=path,
    )


def _fmt(value: Any) -> str:
    """Numbers as people write them: ``-23.0``, ``-4.84``, ``300.0``, ``-inf``."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return f"{value:.1f}" if value == int(value) else f"{value:g}"
    return "none" if value is None else str(value)


def _json_number(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value
