"""Reading, describing, resampling and hashing audio files (pytest_dictbench.audio.io)."""

from __future__ import annotations

import hashlib
import struct
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from pytest_dictbench.audio.io import (
    AudioError,
    audio_info,
    read_audio,
    resample,
    sha256_file,
)
from pytest_dictbench.errors import DictbenchError


def _sine_pcm16(freq: float, rate: int, seconds: float, amplitude: int) -> np.ndarray:
    t = np.arange(round(rate * seconds)) / rate
    return np.round(amplitude * np.sin(2 * np.pi * freq * t)).astype(np.int16)


@pytest.fixture
def flac_file(tmp_path: Path) -> Path:
    path = tmp_path / "tone.flac"
    sf.write(path, _sine_pcm16(440, 16000, 1.0, 10000), 16000, subtype="PCM_16")
    return path


# --- reading -------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["WAV", "FLAC"])
def test_read_audio_returns_float32_scaled_by_32768(tmp_path: Path, fmt: str) -> None:
    pcm = _sine_pcm16(440, 16000, 0.5, 12345)
    path = tmp_path / f"x.{fmt.lower()}"
    sf.write(path, pcm, 16000, format=fmt, subtype="PCM_16")
    samples, rate = read_audio(path)
    assert rate == 16000
    assert samples.dtype == np.float32
    assert samples.ndim == 1
    # Lossless round trip: every 16-bit value v comes back as v / 32768.
    np.testing.assert_array_equal(samples, pcm.astype(np.float32) / 32768.0)


def test_read_audio_mono_averages_channels_and_mono_false_keeps_them(tmp_path: Path) -> None:
    left = np.full(1600, 8192, dtype=np.int16)  # 0.25
    right = np.full(1600, -4096, dtype=np.int16)  # -0.125
    path = tmp_path / "stereo.wav"
    sf.write(path, np.stack([left, right], axis=1), 16000, subtype="PCM_16")
    mono, _ = read_audio(path)
    # (0.25 + -0.125) / 2 = 0.0625
    np.testing.assert_allclose(mono, 0.0625)
    both, _ = read_audio(path, mono=False)
    assert both.shape == (1600, 2)
    np.testing.assert_allclose(both[:, 0], 0.25)
    np.testing.assert_allclose(both[:, 1], -0.125)


def test_read_audio_mono_false_is_2d_for_a_mono_file(flac_file: Path) -> None:
    samples, _ = read_audio(flac_file, mono=False)
    assert samples.shape == (16000, 1)


def test_read_audio_resamples_keeping_frequency_and_level(tmp_path: Path) -> None:
    path = tmp_path / "hi.wav"
    sf.write(path, _sine_pcm16(1000, 48000, 1.0, 16384), 48000, subtype="PCM_16")
    samples, rate = read_audio(path, target_rate=16000)
    assert rate == 16000
    assert samples.shape == (16000,)  # 48000 frames / 3
    # Independent check: least-squares fit of a 1 kHz sine at 16 kHz in the middle
    # (away from filter edges) must explain the signal with amplitude 0.5.
    middle = samples[2000:14000].astype(np.float64)
    t = np.arange(2000, 14000) / 16000
    basis = np.stack([np.sin(2 * np.pi * 1000 * t), np.cos(2 * np.pi * 1000 * t)], axis=1)
    coef, *_ = np.linalg.lstsq(basis, middle, rcond=None)
    assert np.hypot(*coef) == pytest.approx(0.5, abs=0.002)
    residual = middle - basis @ coef
    assert np.sqrt(np.mean(residual**2)) < 1e-3


def test_resample_same_rate_is_identity_and_bad_rate_raises() -> None:
    x = np.arange(10, dtype=np.float32)
    assert resample(x, 16000, 16000) is x
    with pytest.raises(AudioError, match="positive"):
        resample(x, 0, 16000)


def test_missing_soxr_gives_an_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "soxr", None)  # makes "import soxr" fail
    with pytest.raises(AudioError, match=r"pytest-dictbench\[audio\]"):
        resample(np.zeros(100, dtype=np.float32), 48000, 16000)


# --- describing ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "subtype", "bits"),
    [("FLAC", "PCM_16", 16), ("WAV", "PCM_24", 24), ("WAV", "FLOAT", 32), ("FLAC", "PCM_S8", 8)],
)
def test_audio_info_reports_header_fields(
    tmp_path: Path, fmt: str, subtype: str, bits: int
) -> None:
    path = tmp_path / f"x.{fmt.lower()}"
    sf.write(path, np.zeros((22050, 2)), 22050, format=fmt, subtype=subtype)
    info = audio_info(path)
    assert (info.container, info.subtype, info.bit_depth) == (fmt, subtype, bits)
    assert (info.sample_rate, info.channels, info.frames) == (22050, 2, 22050)
    assert info.duration == pytest.approx(1.0)
    assert info.to_json()["duration"] == pytest.approx(1.0)


# --- hashing -------------------------------------------------------------------------


def test_sha256_file_streams_across_chunks(tmp_path: Path) -> None:
    data = bytes(range(256)) * 9000  # 2.3 MB: three 1 MiB chunks
    path = tmp_path / "blob.bin"
    path.write_bytes(data)
    assert sha256_file(path) == hashlib.sha256(data).hexdigest()


def test_sha256_file_of_empty_file_is_the_known_constant(tmp_path: Path) -> None:
    path = tmp_path / "empty"
    path.write_bytes(b"")
    assert sha256_file(path) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_sha256_file_missing_raises_audio_error(tmp_path: Path) -> None:
    with pytest.raises(AudioError, match="nope"):
        sha256_file(tmp_path / "nope")


# --- broken files --------------------------------------------------------------------


def _assert_names_file(exc: AudioError, path: Path) -> None:
    assert isinstance(exc, DictbenchError)
    assert exc.path == str(path)
    assert str(path) in str(exc)


def test_truncated_flac_raises_naming_file(tmp_path: Path) -> None:
    path = tmp_path / "noise.flac"
    noise = np.random.default_rng(1).normal(0, 0.1, 32000)
    sf.write(path, noise, 16000, subtype="PCM_16")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    # The header still claims 32000 frames: only decoding finds the damage.
    assert audio_info(path).frames == 32000
    with pytest.raises(AudioError, match="cannot decode audio") as info:
        read_audio(path)
    _assert_names_file(info.value, path)


def test_truncated_wav_is_detected_although_libsndfile_accepts_it(tmp_path: Path) -> None:
    path = tmp_path / "cut.wav"
    sf.write(path, np.zeros(16000), 16000, subtype="PCM_16")  # 32000 data bytes
    data = path.read_bytes()
    path.write_bytes(data[:-10000])
    with pytest.raises(AudioError, match="declares 32000 bytes, only 22000 present") as info:
        read_audio(path)
    _assert_names_file(info.value, path)


def test_wav_with_unknown_data_size_is_accepted(tmp_path: Path) -> None:
    """Streaming writers leave the data size as 0xFFFFFFFF; that is not truncation."""
    path = tmp_path / "stream.wav"
    sf.write(path, np.zeros(1600), 16000, subtype="PCM_16")
    data = bytearray(path.read_bytes())
    at = data.index(b"data") + 4
    data[at : at + 4] = struct.pack("<I", 0xFFFFFFFF)
    path.write_bytes(bytes(data))
    samples, _ = read_audio(path)
    assert samples.size == 1600


def test_text_file_named_wav_raises(tmp_path: Path) -> None:
    path = tmp_path / "notes.wav"
    path.write_text("this is not audio\n", encoding="utf-8")
    with pytest.raises(AudioError, match="Format not recognised") as info:
        read_audio(path)
    _assert_names_file(info.value, path)
    with pytest.raises(AudioError):
        audio_info(path)


def test_empty_file_raises(tmp_path: Path) -> None:
    path = tmp_path / "empty.flac"
    path.write_bytes(b"")
    with pytest.raises(AudioError, match="empty") as info:
        read_audio(path)
    _assert_names_file(info.value, path)


def test_missing_file_and_directory_raise(tmp_path: Path) -> None:
    with pytest.raises(AudioError, match="does not exist"):
        read_audio(tmp_path / "absent.wav")
    with pytest.raises(AudioError, match="not a regular file"):
        audio_info(tmp_path)
