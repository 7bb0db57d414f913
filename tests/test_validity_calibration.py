"""Calibration blocks: real WAV files written in the test, measured by BS.1770 and onset."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from pytest_dictbench.rig.calibration_check import (
    CalibrationResult,
    Tolerance,
    calibrate_blocks,
    describe_failures,
    measure,
    onset_seconds,
)

RATE = 48_000


def _stimulus() -> np.ndarray:
    """0.5 s silence, 2 s of seeded noise with a 5 ms fade-in, 0.5 s silence."""
    rng = np.random.default_rng(7)
    burst = rng.normal(0.0, 0.05, 2 * RATE)
    burst[: RATE // 200] *= np.linspace(0.0, 1.0, RATE // 200)
    silence = np.zeros(RATE // 2)
    return np.concatenate([silence, burst, silence])


def _write(path: Path, samples: np.ndarray, rate: int = RATE) -> Path:
    sf.write(path, samples, rate, subtype="PCM_24")
    return path


def _shift(samples: np.ndarray, ms: float) -> np.ndarray:
    n = round(ms * RATE / 1000)
    return np.concatenate([np.zeros(n), samples[: len(samples) - n]])


def _gain(samples: np.ndarray, db: float) -> np.ndarray:
    return samples * 10.0 ** (db / 20.0)


@pytest.fixture
def stimulus(tmp_path: Path):
    return measure(_write(tmp_path / "stimulus.wav", _stimulus()))


def test_onset_is_first_sample_within_30_db_of_the_peak() -> None:
    samples = np.zeros(1000)
    samples[400] = 0.01  # 40 dB below the peak: below the threshold
    samples[500] = 0.05  # 26 dB below: the onset
    samples[700] = 1.0
    assert onset_seconds(samples, 1000) == 0.5
    assert onset_seconds(np.zeros(100), 1000) is None


def test_each_block_is_judged_against_stimulus_and_first_accepted(tmp_path: Path,
                                                                  stimulus) -> None:
    base = _stimulus()
    blocks = [
        ("block_1", _write(tmp_path / "b1.wav", base)),
        ("block_2", _write(tmp_path / "b2.wav", _gain(_shift(base, 10), -0.1))),
        ("block_3", _write(tmp_path / "b3.wav", _shift(base, 25))),
        ("block_4", _write(tmp_path / "b4.wav", _gain(base, -0.3))),
    ]
    results = calibrate_blocks(stimulus, blocks)
    assert [r.accepted for r in results] == [True, True, False, False]
    first, within, shifted, quieter = results
    assert first.onset_delta_ms == pytest.approx(0.0, abs=1e-9)
    assert first.level_delta_db == pytest.approx(0.0, abs=1e-9)
    assert within.onset_delta_ms == pytest.approx(10.0, abs=1e-9)  # 480 samples
    # BS.1770 gates 400 ms blocks on a 100 ms hop: a 10 ms shift moves the block
    # edges, worth a few thousandths of a dB here.
    assert within.level_delta_db == pytest.approx(-0.1, abs=1e-2)
    assert shifted.onset_delta_ms == pytest.approx(25.0, abs=1e-9)  # 1200 samples
    assert shifted.failures == ("onset +25.0 ms from the stimulus (tolerance ±20 ms)",)
    assert quieter.level_delta_db == pytest.approx(-0.3, abs=2e-3)
    assert quieter.failures == (
        "level -0.300 dB from the first accepted calibration (tolerance ±0.2 dB)",)
    assert describe_failures(results) == [
        "block_3: onset +25.0 ms from the stimulus (tolerance ±20 ms)",
        "block_4: level -0.300 dB from the first accepted calibration (tolerance ±0.2 dB)",
    ]


def test_level_is_compared_with_the_first_accepted_not_the_first_recorded(
        tmp_path: Path, stimulus) -> None:
    base = _stimulus()
    blocks = [
        ("block_1", _write(tmp_path / "late.wav", _shift(base, 40))),  # rejected: onset
        ("block_1#2", _write(tmp_path / "loud.wav", _gain(base, 1.0))),  # first accepted
        ("block_2", _write(tmp_path / "same.wav", _gain(base, 0.9))),  # -0.1 dB from it
        ("block_3", _write(tmp_path / "orig.wav", base)),  # -1.0 dB from it
    ]
    results = calibrate_blocks(stimulus, blocks)
    assert [r.accepted for r in results] == [False, True, True, False]
    assert results[1].level_delta_db == pytest.approx(0.0, abs=1e-9)
    assert results[2].level_delta_db == pytest.approx(-0.1, abs=2e-3)
    assert results[3].level_delta_db == pytest.approx(-1.0, abs=2e-3)


def test_clipped_silent_wrong_rate_and_corrupt_recordings_fail(tmp_path: Path,
                                                               stimulus) -> None:
    base = _stimulus()
    corrupt = tmp_path / "corrupt.wav"
    corrupt.write_bytes(b"RIFF\x00\x00\x00\x00WAVEfmt garbage")
    blocks = [
        ("clipped", _write(tmp_path / "clipped.wav", np.clip(base * 40.0, -1.0, 1.0))),
        ("silent", _write(tmp_path / "silent.wav", np.zeros_like(base))),
        ("rate", _write(tmp_path / "rate.wav", base[: 3 * 44_100], 44_100)),
        ("corrupt", corrupt),
    ]
    results = {r.block: r for r in calibrate_blocks(stimulus, blocks)}
    assert not any(r.accepted for r in results.values())
    [clipped] = results["clipped"].failures
    assert clipped.startswith("clipped: ") and " samples at full scale (|x| >= 0.999), " \
        "from " in clipped
    assert results["silent"].failures == ("silent: every sample is zero (digital silence)",)
    assert results["rate"].failures == ("sample rate 44100 Hz, the stimulus has 48000 Hz",)
    assert results["corrupt"].failures[0].startswith("unreadable: ")
    assert str(corrupt) in results["corrupt"].failures[0]


def test_tolerances_come_from_the_manifest(tmp_path: Path, stimulus) -> None:
    base = _stimulus()
    blocks = [("block_1", _write(tmp_path / "a.wav", base)),
              ("block_2", _write(tmp_path / "b.wav", _shift(base, 25)))]
    loose = calibrate_blocks(stimulus, blocks, Tolerance(level_db=0.5, onset_ms=30.0))
    assert [r.accepted for r in loose] == [True, True]


def test_result_json_is_rounded_and_plain() -> None:
    result = CalibrationResult("block_2", "b.wav", False, ("x",), -0.30004, 25.00001)
    assert result.to_json() == {"block": "block_2", "path": "b.wav", "accepted": False,
                                "failures": ["x"], "level_delta_db": -0.3,
                                "onset_delta_ms": 25.0}
