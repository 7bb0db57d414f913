"""Audio specification parsing, measurements and conformance checks (audio.spec)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from scipy import signal

from pytest_dictbench.audio.io import AudioError
from pytest_dictbench.audio.spec import (
    AudioSpec,
    Finding,
    check_audio,
    integrated_loudness,
    silence_ms,
    true_peak_dbtp,
)
from pytest_dictbench.errors import SuiteError
from pytest_dictbench.model import Suite

# ITU-R BS.1770-4 K-weighting coefficients at 48 kHz, as published in the standard
# (stage 1: high shelf, stage 2: RLB high-pass). Used as an independent reference.
_BS1770_SHELF = ([1.53512485958697, -2.69169618940638, 1.19839281085285],
                 [1.0, -1.69065929318241, 0.73248077421585])  # fmt: skip
_BS1770_HIGHPASS = ([1.0, -2.0, 1.0], [1.0, -1.99004745483398, 0.99007225036621])


def _k_weighting_gain_db(freq: float) -> float:
    """|H(f)| of the published 48 kHz K-weighting filter cascade, in dB."""
    gain = 1.0
    for b, a in (_BS1770_SHELF, _BS1770_HIGHPASS):
        _, h = signal.freqz(b, a, worN=[freq], fs=48000)
        gain *= abs(h[0])
    return 20 * math.log10(gain)


def _sine(freq: float, rate: int, seconds: float, amplitude: float, phase: float = 0.0):
    t = np.arange(round(rate * seconds)) / rate
    return amplitude * np.sin(2 * np.pi * freq * t + phase)


def _faded(x: np.ndarray, rate: int, fade_s: float = 0.05) -> np.ndarray:
    """Raised-cosine fade in and out, so resampling filters do not ring at the edges."""
    n = round(rate * fade_s)
    ramp = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, n))
    y = x.copy()
    y[:n] *= ramp
    y[-n:] *= ramp[::-1]
    return y


# --- loudness ------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [48000, 16000])
def test_loudness_of_997hz_sine_matches_bs1770_by_hand(rate: int) -> None:
    # Hand computation (BS.1770): L = -0.691 + 10 log10(mean square after K-weighting).
    # A sine of amplitude A has mean square A²/2; K-weighting at 997 Hz scales power by
    # g² with g from the published filter (about +0.691 dB). For A = 0.5:
    # L = -0.691 + 20 log10(0.5) + 10 log10(0.5) + 0.691 ≈ -9.031 LUFS.
    expected = -0.691 + 20 * math.log10(0.5) + 10 * math.log10(0.5) + _k_weighting_gain_db(997)
    assert expected == pytest.approx(-9.031, abs=0.001)
    measured = integrated_loudness(_sine(997, rate, 5.0, 0.5), rate)
    # pyloudnorm designs its K filter per rate; it differs from the published 48 kHz
    # coefficients by < 0.08 dB near 1 kHz.
    assert measured == pytest.approx(expected, abs=0.1)


def test_loudness_gates_out_silence() -> None:
    # Plain RMS over 3 s tone + 3 s silence would drop by 10 log10(2) = 3.01 dB. BS.1770
    # cuts 400 ms blocks every 100 ms: the tone alone gives 27 full blocks; with the
    # silence appended there are 3 more blocks holding 75 %, 50 % and 25 % tone (all
    # within the -10 LU relative gate) and the all-silent blocks fall under the -70 LUFS
    # absolute gate. Mean block power = (27 + 0.75 + 0.5 + 0.25) / 30 = 0.95 of the
    # tone's, i.e. 10 log10(0.95) = -0.223 LU.
    rate = 16000
    tone = _sine(997, rate, 3.0, 0.25)
    with_silence = np.concatenate([tone, np.zeros(3 * rate)])
    drop = integrated_loudness(with_silence, rate) - integrated_loudness(tone, rate)
    assert drop == pytest.approx(10 * math.log10(0.95), abs=0.01)


def test_loudness_sums_channel_powers() -> None:
    # Two identical channels carry twice the power of one: +10 log10(2) = +3.01 LU.
    rate = 16000
    mono = _sine(997, rate, 2.0, 0.25)
    stereo = np.stack([mono, mono], axis=1)
    difference = integrated_loudness(stereo, rate) - integrated_loudness(mono, rate)
    assert difference == pytest.approx(3.0103, abs=0.01)


def test_loudness_of_silence_is_minus_infinity_and_short_audio_raises() -> None:
    assert integrated_loudness(np.zeros(16000), 16000) == -math.inf
    with pytest.raises(AudioError, match="too short"):
        integrated_loudness(np.zeros(6000), 16000)  # 0.375 s < one 400 ms block


# --- true peak -----------------------------------------------------------------------


def test_true_peak_finds_the_inter_sample_peak() -> None:
    # A sine at fs/4 with phase π/4 is sampled at ±A·sin(π/4) = ±0.7071·A only, but the
    # waveform between samples reaches A. With A = 0.5: sample peak 20 log10(0.35355) =
    # -9.03 dBFS, true peak 20 log10(0.5) = -6.02 dBTP.
    rate = 16000
    x = _faded(_sine(rate / 4, rate, 1.0, 0.5, phase=math.pi / 4), rate)
    sample_peak_db = 20 * math.log10(np.max(np.abs(x)))
    assert sample_peak_db == pytest.approx(-9.03, abs=0.01)
    assert true_peak_dbtp(x, rate) == pytest.approx(-6.02, abs=0.05)


def test_true_peak_of_a_low_tone_equals_its_sample_peak() -> None:
    # At 100 Hz / 16 kHz the samples lie densely on the waveform: peak ≈ A = 0.25,
    # 20 log10(0.25) = -12.04 dBTP.
    x = _faded(_sine(100, 16000, 1.0, 0.25), 16000)
    assert true_peak_dbtp(x, 16000) == pytest.approx(-12.04, abs=0.02)


def test_true_peak_of_silence() -> None:
    assert true_peak_dbtp(np.zeros(1000), 16000) == -math.inf


# --- silence -------------------------------------------------------------------------


def _padded_tone(rate: int, lead_s: float, tone_s: float, tail_s: float) -> np.ndarray:
    return np.concatenate(
        [
            np.zeros(round(lead_s * rate)),
            _sine(440, rate, tone_s, 0.3),
            np.zeros(round(tail_s * rate)),
        ]
    )


def test_silence_of_a_padded_tone() -> None:
    # 250 ms zeros, 1 s tone, 400 ms zeros. The first 10 ms window that reaches into the
    # tone already exceeds -50 dBFS, so the measure errs short by at most one window
    # plus one hop (11 ms): leading in [239, 250], trailing in [389, 400].
    leading, trailing = silence_ms(_padded_tone(16000, 0.25, 1.0, 0.4), 16000)
    assert 239 <= leading <= 250
    assert 389 <= trailing <= 400


def test_silence_threshold_is_an_rms_level() -> None:
    rate = 16000
    x = _padded_tone(rate, 0.3, 0.5, 0.3)
    # Add noise at -70 dBFS RMS everywhere (σ = 10^(-70/20) ≈ 0.000316).
    x = x + np.random.default_rng(7).normal(0, 10 ** (-70 / 20), x.size)
    leading, trailing = silence_ms(x, rate, threshold_db=-50)
    assert 289 <= leading <= 300 and 289 <= trailing <= 300
    # With the threshold below the noise floor the noise counts as sound.
    assert silence_ms(x, rate, threshold_db=-80) == (0.0, 0.0)


def test_silence_uses_the_loudest_channel_and_all_silent_is_full_length() -> None:
    rate = 16000
    tone = _padded_tone(rate, 0.1, 0.5, 0.2)
    stereo = np.stack([np.zeros_like(tone), tone], axis=1)
    leading, trailing = silence_ms(stereo, rate)
    assert 89 <= leading <= 100 and 189 <= trailing <= 200
    assert silence_ms(np.zeros(8000), rate) == (500.0, 500.0)


# --- spec parsing --------------------------------------------------------------------

_FULL_TABLE = {
    "container": "FLAC",
    "sample_rate": 16000,
    "channels": 1,
    "bit_depth": 16,
    "loudness_lufs": -23,
    "loudness_tolerance": 1.0,
    "true_peak_max_dbtp": -1.0,
    "silence_ms": 300,
    "silence_tolerance_ms": 100,
    "silence_threshold_db": -50,
}


def test_spec_from_table_accepts_ints_for_numbers() -> None:
    spec = AudioSpec.from_table(_FULL_TABLE)
    assert spec.loudness_lufs == -23.0 and isinstance(spec.loudness_lufs, float)
    assert spec.sample_rate == 16000 and spec.silence_ms == 300.0


@pytest.mark.parametrize(
    ("table", "pattern"),
    [
        ({"sample_rte": 16000}, "unknown field.*sample_rte"),
        ({"sample_rate": "16000"}, "sample_rate must be int"),
        ({"channels": True}, "channels must be int"),
        ({"loudness_lufs": "loud"}, "loudness_lufs must be a number"),
        ({"bit_depth": 0}, "bit_depth must be positive"),
    ],
)
def test_spec_from_table_rejects_bad_fields(table: dict, pattern: str) -> None:
    with pytest.raises(SuiteError, match=pattern) as info:
        AudioSpec.from_table(table, path="suite.toml")
    assert info.value.path == "suite.toml"


def test_spec_from_suite(tmp_path: Path) -> None:
    def suite(manifest: dict) -> Suite:
        return Suite(
            "s", "1", "t", "error_rate", "en-US", "CANARY-x", tmp_path, (), manifest=manifest
        )

    assert AudioSpec.from_suite(suite({})) is None
    spec = AudioSpec.from_suite(suite({"audio": {"sample_rate": 48000}}))
    assert spec == AudioSpec(sample_rate=48000)
    with pytest.raises(SuiteError, match="must be a table"):
        AudioSpec.from_suite(suite({"audio": 3}))


# --- check_audio ---------------------------------------------------------------------


def _conforming_file(path: Path) -> Path:
    """16 kHz mono 16-bit FLAC: 300 ms silence, 2 s tone at -23 LUFS, 300 ms silence."""
    rate = 16000
    tone = _faded(_sine(997, rate, 2.0, 1.0), rate, 0.005)
    pad = np.zeros(round(0.3 * rate))
    x = np.concatenate([pad, tone, pad])
    x *= 10 ** ((-23 - integrated_loudness(x, rate)) / 20)
    sf.write(path, x, rate, subtype="PCM_16")
    return path


def test_conforming_file_passes_every_declared_check(tmp_path: Path) -> None:
    findings = check_audio(
        _conforming_file(tmp_path / "ok.flac"), AudioSpec.from_table(_FULL_TABLE)
    )
    checks = [f.check for f in findings]
    assert checks == [
        "container", "sample_rate", "channels", "bit_depth", "loudness_lufs",
        "true_peak_dbtp", "leading_silence_ms", "trailing_silence_ms",
    ]  # fmt: skip
    assert all(f.passed for f in findings), [f.describe() for f in findings if not f.passed]
    loudness = findings[4]
    assert loudness.measured == pytest.approx(-23.0, abs=0.05)


def test_every_failing_field_is_reported_with_expected_and_measured(tmp_path: Path) -> None:
    # 48 kHz stereo 24-bit WAV, loud (A = 0.95 → about -0.5 dBFS peak, -3.5 LUFS + 3 LU
    # for two channels), no silence at either end.
    path = tmp_path / "bad.wav"
    x = _sine(997, 48000, 1.5, 0.95)
    sf.write(path, np.stack([x, x], axis=1), 48000, subtype="PCM_24")
    findings = {f.check: f for f in check_audio(path, AudioSpec.from_table(_FULL_TABLE))}
    assert not any(f.passed for f in findings.values())
    assert len(findings) == 8
    assert (findings["container"].expected, findings["container"].measured) == ("FLAC", "WAV")
    assert (findings["sample_rate"].expected, findings["sample_rate"].measured) == (16000, 48000)
    assert (findings["channels"].expected, findings["channels"].measured) == (1, 2)
    assert (findings["bit_depth"].expected, findings["bit_depth"].measured) == (16, 24)
    # Hand value: -0.691 + 20log10(0.95) + 10log10(0.5) + 0.691 + 10log10(2) ≈ -0.45 LUFS.
    assert findings["loudness_lufs"].measured == pytest.approx(-0.45, abs=0.1)
    assert findings["true_peak_dbtp"].measured > -1.0
    assert findings["leading_silence_ms"].measured == 0.0
    assert findings["trailing_silence_ms"].measured == 0.0
    text = findings["sample_rate"].describe()
    assert text == "sample_rate: expected 16000 Hz, measured 48000 Hz (fail)"


def test_only_declared_fields_are_checked(tmp_path: Path) -> None:
    findings = check_audio(_conforming_file(tmp_path / "ok.flac"), AudioSpec(channels=2))
    assert [(f.check, f.expected, f.measured, f.passed) for f in findings] == [
        ("channels", 2, 1, False)
    ]


def test_silence_without_tolerance_means_at_least(tmp_path: Path) -> None:
    path = tmp_path / "pad.flac"
    sf.write(path, _padded_tone(16000, 0.35, 1.0, 0.25), 16000, subtype="PCM_16")
    findings = {f.check: f for f in check_audio(path, AudioSpec(silence_ms=300))}
    assert findings["leading_silence_ms"].passed  # ~340-350 ms ≥ 300
    assert not findings["trailing_silence_ms"].passed  # ~240-250 ms < 300
    assert (
        findings["trailing_silence_ms"]
        .describe()
        .startswith("trailing_silence_ms: expected ≥ 300 ms, measured 2")
    )


def test_check_audio_raises_on_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.flac"
    sf.write(path, np.random.default_rng(0).normal(0, 0.1, 16000), 16000, subtype="PCM_16")
    path.write_bytes(path.read_bytes()[:-9000])
    with pytest.raises(AudioError, match=r"corrupt\.flac"):
        check_audio(path, AudioSpec(sample_rate=16000))


def test_check_audio_names_file_when_too_short_for_loudness(tmp_path: Path) -> None:
    path = tmp_path / "blip.wav"
    sf.write(path, _sine(440, 16000, 0.2, 0.5), 16000)
    with pytest.raises(AudioError, match=r"blip\.wav: too short"):
        check_audio(path, AudioSpec(loudness_lufs=-23))


def test_finding_describe_and_json() -> None:
    within = Finding("loudness_lufs", -23.0, -25.31, False, "within", 1.0, "LUFS")
    expected_line = "loudness_lufs: expected -23.0 ± 1.0 LUFS, measured -25.31 LUFS (fail)"
    assert within.describe() == expected_line
    silent = Finding("true_peak_dbtp", -1.0, -math.inf, True, "at_most", unit="dBTP")
    assert silent.describe() == "true_peak_dbtp: expected ≤ -1.0 dBTP, measured -inf dBTP (pass)"
    assert silent.to_json()["measured"] == "-inf"


def test_a_wave_format_extensible_file_is_a_wav_container(tmp_path: Path) -> None:
    """WAVEX (WAVE_FORMAT_EXTENSIBLE, what many recorders write for 24-bit audio) is WAV:
    the container check passes; rate, depth and channels are still checked."""
    path = tmp_path / "take.wav"
    x = _sine(997, 48000, 0.5, 0.1)
    sf.write(path, x, 48000, subtype="PCM_24", format="WAVEX")
    spec = AudioSpec.from_table({"container": "WAV", "sample_rate": 48000, "channels": 1,
                                 "bit_depth": 24})
    findings = {f.check: f for f in check_audio(path, spec)}
    assert findings["container"].passed, findings["container"].describe()
    assert all(f.passed for f in findings.values())
    flac = AudioSpec.from_table({"container": "FLAC"})
    assert not check_audio(path, flac)[0].passed
