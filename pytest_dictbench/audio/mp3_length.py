"""An MP3 file's length from its frames, not from its Xing/Info header (finding PV26):
an edited or faulty header can understate the frame count, and libsndfile then reports
(and decodes) only that much.

The frames are walked from the first one (after an ID3v2 tag): each header's version,
layer, bit rate, sample rate and padding give its length in bytes; the walk stops at the
first bytes that are not a frame (an ID3v1 tag, junk). A Xing/Info frame carries no
audio and is not counted. The count includes the encoder's delay and padding, which a
gapless header leaves out, so :func:`mp3_samples` is an upper bound within a few frames.
"""

from __future__ import annotations

import mmap
from pathlib import Path

__all__ = ["mp3_samples"]

#: Bit rates in kbit/s by (MPEG-1?, layer) and index 1-14.
_BITRATES = {
    (True, 1): (32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
    (True, 2): (32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
    (True, 3): (32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    (False, 1): (32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
    (False, 2): (8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}
_BITRATES[False, 3] = _BITRATES[False, 2]
#: Sample rates by version bits (3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5) and index 0-2.
_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}


def mp3_samples(path: Path) -> tuple[int, int] | None:
    """(samples, sample rate) counted over the file's frames, or None when it does not
    start with an MPEG audio frame."""
    if path.stat().st_size == 0:
        return None
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0,
                                              access=mmap.ACCESS_READ) as data:
        at = _after_id3(data)
        samples, rate, first = 0, 0, True
        while True:
            frame = _frame(data, at)
            if frame is None:
                break
            length, count, frame_rate = frame
            if rate and frame_rate != rate:
                break
            rate = frame_rate
            if not (first and _is_info(data, at, length)):
                samples += count
            first, at = False, at + length
    return (samples, rate) if rate else None


def _after_id3(data: mmap.mmap) -> int:
    """The offset after an ID3v2 tag at the start (0 without one)."""
    if len(data) >= 10 and data[:3] == b"ID3":
        size = 0
        for byte in data[6:10]:
            size = (size << 7) | (byte & 0x7F)
        return 10 + size + (10 if data[5] & 0x10 else 0)
    return 0


def _frame(data: mmap.mmap, at: int) -> tuple[int, int, int] | None:
    """(length in bytes, samples, sample rate) of a frame header at ``at``, else None."""
    if at + 4 > len(data):
        return None
    b1, b2 = data[at + 1], data[at + 2]
    if data[at] != 0xFF or b1 & 0xE0 != 0xE0:
        return None
    version, layer_bits = (b1 >> 3) & 3, (b1 >> 1) & 3
    rate_index, bitrate_index = (b2 >> 2) & 3, b2 >> 4
    if version == 1 or layer_bits == 0 or rate_index == 3 or bitrate_index in (0, 15):
        return None
    layer, mpeg1 = 4 - layer_bits, version == 3
    bitrate = _BITRATES[mpeg1, layer][bitrate_index - 1] * 1000
    rate = _RATES[version][rate_index]
    padding = (b2 >> 1) & 1
    if layer == 1:
        return (12 * bitrate // rate + padding) * 4, 384, rate
    per_frame = 1152 if layer == 2 or mpeg1 else 576
    return per_frame // 8 * bitrate // rate + padding, per_frame, rate


def _is_info(data: mmap.mmap, at: int, length: int) -> bool:
    """Whether the frame at ``at`` is a Xing/Info (or VBRI) header frame."""
    body = data[at + 4:at + min(length, 64)]
    return any(tag in body for tag in (b"Xing", b"Info", b"VBRI"))
