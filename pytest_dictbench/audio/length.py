"""A capture's audio length from the bytes present, not only from the header (PV26).

A faulty encoder or an edited file can leave the header's length wrong, and libsndfile
believes it: a FLAC's STREAMINFO total, a WAV ``data`` chunk size that understates the
audio (or is 0, "unknown"), an MP3 Xing/Info frame count. The duration limit and the
bill by audio length use :func:`audio_seconds`: FLAC counted from its last frame
(:mod:`.flac_length`), WAV from the bytes of its ``data`` chunk that are present, MP3
from its frames (:mod:`.mp3_length`) when they exceed the header by more than the
encoder's delay and padding; other formats from libsndfile's reading (Ogg and Opus
from their last page, which has no header length to lie; M4A and WebM libsndfile does
not read).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

from .flac_length import flac_samples
from .io import audio_info
from .mp3_length import mp3_samples

__all__ = ["audio_seconds", "wav_frames"]

#: Samples an MP3's frame count may exceed its gapless header's length by (the encoder's
#: delay and padding: three frames of the longest kind) before the header is not believed.
_MP3_SLACK = 3 * 1152


def audio_seconds(path: Path) -> float:
    """The audio's length in seconds, counted where the format allows (see module doc).

    Raises:
        AudioError: the file is missing or not audio libsndfile reads.
    """
    info = audio_info(path)
    if info.container == "MP3":  # the count includes the encoder's delay and padding
        counted = mp3_samples(path)
        return counted[0] / counted[1] if counted and counted[0] * info.sample_rate > (
            info.frames + _MP3_SLACK) * counted[1] else info.duration
    counters = {"FLAC": flac_samples, "WAV": wav_frames}
    counter = counters.get(info.container)
    counted = counter(path) if counter is not None else None
    return counted[0] / counted[1] if counted else info.duration


def wav_frames(path: Path) -> tuple[int, int] | None:
    """(frames, sample rate) of a RIFF/WAVE file from the ``data`` bytes present, or
    None when it has no readable ``fmt `` and ``data`` chunk.

    A declared size that is 0, 0xFFFFFFFF or past the end of the file counts to the end
    of the file. A smaller one counts to the end as well unless the bytes after it are
    whole chunks (a ``LIST`` after the audio is common)."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(12)
        if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
            return None
        offset, rate, align = 12, 0, 0
        while offset + 8 <= size:
            handle.seek(offset)
            chunk, length = struct.unpack("<4sI", handle.read(8))
            if chunk == b"fmt " and length >= 16:
                _, _, rate, _, align = struct.unpack("<HHIIH", handle.read(14))
            elif chunk == b"data":
                if not rate or not align:
                    return None
                start = offset + 8
                present = size - start
                if 0 < length < present and _whole_chunks(handle, start + length + (
                        length & 1), size):
                    present = length
                return present // align, rate
            offset += 8 + length + (length & 1)
    return None


def _whole_chunks(handle: BinaryIO, offset: int, size: int) -> bool:
    """Whether the file from ``offset`` on is whole chunks (or under 8 bytes of pad)."""
    while offset + 8 <= size:
        handle.seek(offset)
        chunk, length = struct.unpack("<4sI", handle.read(8))
        if not all(0x20 <= byte <= 0x7E for byte in chunk) or offset + 8 + length > size:
            return False
        offset += 8 + length + (length & 1)
    return True
