"""Reading audio files, describing them, resampling and hashing them.

Files are decoded with soundfile (libsndfile: WAV, FLAC and the other formats it knows).
Resampling uses ``soxr``, an optional dependency (``pip install 'pytest-dictbench[audio]'``)
imported only when a resampling is asked for.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from ..errors import DictbenchError

__all__ = [
    "AudioError",
    "AudioInfo",
    "audio_info",
    "import_soxr",
    "read_audio",
    "resample",
    "sha256_file",
]

#: Bit depth of the libsndfile sample subtypes that have one.
_SUBTYPE_BITS = {
    "PCM_S8": 8,
    "PCM_U8": 8,
    "PCM_16": 16,
    "PCM_24": 24,
    "PCM_32": 32,
    "FLOAT": 32,
    "DOUBLE": 64,
}

#: Chunk size for streaming digests.
_HASH_CHUNK = 1 << 20

#: WAV data chunk sizes that writers use for "length unknown" (streamed files).
_WAV_UNKNOWN_SIZES = (0, 0xFFFFFFFF)


class AudioError(DictbenchError):
    """An audio file is missing, unreadable, corrupt or cannot be processed."""


@dataclass(frozen=True)
class AudioInfo:
    """What an audio file's header says about it."""

    #: Container as libsndfile names it: ``"FLAC"``, ``"WAV"``, ...
    container: str
    #: Sample encoding as libsndfile names it: ``"PCM_16"``, ``"FLOAT"``, ...
    subtype: str
    #: Bits per sample, or ``None`` for encodings without one (e.g. Vorbis).
    bit_depth: int | None
    sample_rate: int
    channels: int
    frames: int

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return self.frames / self.sample_rate if self.sample_rate else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "container": self.container,
            "subtype": self.subtype,
            "bit_depth": self.bit_depth,
            "sample_rate": self.sample_rate,
            "channels": self.channels,
            "frames": self.frames,
            "duration": self.duration,
        }


####################################################################################
# Public functions
####################################################################################


def audio_info(path: Path | str) -> AudioInfo:
    """Describe an audio file from its header, without decoding the samples.

    Raises:
        AudioError: the file is missing, empty or not in a format libsndfile reads.
    """
    _check_readable(path)
    try:
        info = sf.info(str(path))
    except (sf.SoundFileError, OSError) as exc:
        raise AudioError(f"cannot read audio header: {_reason(exc)}", path=path) from exc
    return AudioInfo(
        container=info.format,
        subtype=info.subtype,
        bit_depth=_SUBTYPE_BITS.get(info.subtype),
        sample_rate=int(info.samplerate),
        channels=int(info.channels),
        frames=int(info.frames),
    )


def read_audio(
    path: Path | str, target_rate: int | None = None, mono: bool = True
) -> tuple[np.ndarray, int]:
    """Decode a whole audio file to float32 samples in [-1, 1].

    Args:
        path: the file (WAV, FLAC, ...).
        target_rate: resample to this rate with soxr; ``None`` keeps the file's rate.
        mono: average the channels into a 1-D array; otherwise the result is 2-D,
            shaped ``(frames, channels)``, even for a one-channel file.

    Returns:
        ``(samples, rate)``.

    Raises:
        AudioError: the file is missing, empty, truncated or corrupt, or soxr is needed
            but not installed.
    """
    info = audio_info(path)
    _check_wav_complete(path, info)
    try:
        samples, rate = sf.read(str(path), dtype="float32", always_2d=True)
    except (sf.SoundFileError, OSError) as exc:
        raise AudioError(f"cannot decode audio: {_reason(exc)}", path=path) from exc
    if samples.shape[0] != info.frames:
        raise AudioError(
            f"header declares {info.frames} frames but {samples.shape[0]} could be decoded",
            path=path,
        )
    if mono:
        samples = samples.mean(axis=1, dtype=np.float32)
    if target_rate is not None and target_rate != rate:
        try:
            samples = resample(samples, int(rate), int(target_rate))
        except AudioError as exc:
            raise AudioError(str(exc), path=path) from exc
        rate = target_rate
    return samples, int(rate)


def resample(samples: np.ndarray, rate: int, target_rate: int) -> np.ndarray:
    """Resample 1-D or ``(frames, channels)`` samples with soxr (high quality).

    The result is float32 when the input is float32, otherwise float64.
    """
    if rate <= 0 or target_rate <= 0:
        raise AudioError(f"sample rates must be positive, got {rate} -> {target_rate}")
    if rate == target_rate:
        return samples
    soxr = import_soxr()
    return soxr.resample(samples, rate, target_rate, quality="HQ")


def sha256_file(path: Path | str) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    try:  # opened without blocking, and read only when it is a regular file
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise AudioError(f"cannot read file to hash it: {_reason(exc)}", path=path) from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise AudioError("not a regular file (a FIFO, device, socket or folder is never "
                         "read)", path=path)
    try:
        with os.fdopen(fd, "rb") as handle:
            while chunk := handle.read(_HASH_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        raise AudioError(f"cannot read file to hash it: {_reason(exc)}", path=path) from exc
    return digest.hexdigest()


def import_soxr() -> Any:
    """Import the optional soxr module, or raise :class:`AudioError` saying how to get it."""
    try:
        import soxr
    except ImportError as exc:
        raise AudioError(
            "resampling needs the optional package 'soxr': pip install 'pytest-dictbench[audio]'"
        ) from exc
    return soxr


####################################################################################
# Private helpers
####################################################################################


def _check_readable(path: Path | str) -> None:
    """Turn the usual "not a file" cases into messages better than libsndfile's."""
    file = Path(path)
    if not file.exists():
        raise AudioError("audio file does not exist", path=path)
    if not file.is_file():
        raise AudioError("audio path is not a regular file (a FIFO, device, socket or "
                         "folder is never read)", path=path)
    if file.stat().st_size == 0:
        raise AudioError("audio file is empty (0 bytes)", path=path)


def _check_wav_complete(path: Path | str, info: AudioInfo) -> None:
    """Detect a cut-off WAV: libsndfile silently shortens those instead of failing.

    Compares the size the ``data`` chunk declares with the bytes present. Streamed
    files whose writer left the size unknown (0 or 0xFFFFFFFF) are accepted.
    """
    if info.container != "WAV":
        return
    declared_and_present = _wav_data_sizes(Path(path))
    if declared_and_present is None:
        return
    declared, present = declared_and_present
    if declared not in _WAV_UNKNOWN_SIZES and present < declared:
        raise AudioError(
            f"WAV file is truncated: data chunk declares {declared} bytes, only {present} present",
            path=path,
        )


def _wav_data_sizes(path: Path) -> tuple[int, int] | None:
    """``(declared, present)`` byte counts of a RIFF/WAVE ``data`` chunk, if found."""
    with open(path, "rb") as handle:
        header = handle.read(12)
        if len(header) < 12 or header[:4] != b"RIFF" or header[8:12] != b"WAVE":
            return None
        file_size = path.stat().st_size
        offset = 12
        while offset + 8 <= file_size:
            handle.seek(offset)
            chunk_id, chunk_size = struct.unpack("<4sI", handle.read(8))
            if chunk_id == b"data":
                return chunk_size, file_size - offset - 8
            # Chunks are padded to an even length.
            offset += 8 + chunk_size + (chunk_size & 1)
    return None


def _reason(exc: BaseException) -> str:
    """libsndfile's message without the repeated "Error opening '<path>':" prefix."""
    text = str(exc)
    marker = "': "
    if text.startswith("Error opening") and marker in text:
        text = text.split(marker, 1)[1]
    return text.strip() or type(exc).__name__
