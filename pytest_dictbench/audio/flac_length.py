"""A FLAC file's length from its last audio frame, not from its STREAMINFO header
(finding PV26): a faulty encoder or an edited file can leave the header's total sample
count short, and libsndfile believes it. Used only near a duration limit.

The last frame header in the file's tail (sync code, CRC-8 checked, its sample rate,
channels and sample size consistent with STREAMINFO) gives its frame number (fixed block
size: times the block size) or its first sample (variable block size), plus its own
block size: the samples up to the end of the file.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["flac_samples"]

#: Bytes of the file's end searched for the last frame (a frame is far smaller).
_TAIL = 1 << 20


def flac_samples(path: Path) -> tuple[int, int] | None:
    """(samples, sample rate) counted from the last frame, or None when the file is not
    a FLAC with a readable STREAMINFO and frame."""
    with path.open("rb") as handle:
        head = handle.read(42)
        if len(head) < 42 or head[:4] != b"fLaC" or head[4] & 0x7F != 0:
            return None
        info = head[8:42]
        min_block = int.from_bytes(info[0:2], "big")
        bits = int.from_bytes(info[10:18], "big")
        rate = bits >> 44
        if not rate:
            return None
        handle.seek(0, 2)
        size = handle.tell()
        start = max(42, size - _TAIL)
        handle.seek(start)
        tail = handle.read()
    for at in range(len(tail) - 6, -1, -1):
        if tail[at] != 0xFF or tail[at + 1] & 0xFE != 0xF8:
            continue
        found = _frame(tail, at, rate)
        if found is not None:
            number, block, variable = found
            return (number + block if variable else number * min_block + block), rate
    return None


_RATES = {1: 88200, 2: 176400, 3: 192000, 4: 8000, 5: 16000, 6: 22050, 7: 24000,
          8: 32000, 9: 44100, 10: 48000, 11: 96000}


def _frame(data: bytes, at: int, rate: int) -> tuple[int, int, bool] | None:
    """(coded number, block size, variable) of a valid frame header at ``at``."""
    try:
        variable = bool(data[at + 1] & 1)
        block_code, rate_code = data[at + 2] >> 4, data[at + 2] & 0x0F
        if block_code == 0 or rate_code == 15 or data[at + 3] & 1 or data[at + 3] >> 4 > 10:
            return None
        if rate_code in _RATES and _RATES[rate_code] != rate:
            return None
        number, pos = _utf8(data, at + 4)
        if block_code == 1:
            block = 192
        elif block_code <= 5:
            block = 576 << (block_code - 2)
        elif block_code == 6:
            block, pos = data[pos] + 1, pos + 1
        elif block_code == 7:
            block, pos = int.from_bytes(data[pos:pos + 2], "big") + 1, pos + 2
        else:
            block = 256 << (block_code - 8)
        pos += {12: 1, 13: 2, 14: 2}.get(rate_code, 0)
        if _crc8(data[at:pos]) != data[pos]:
            return None
        return number, block, variable
    except (IndexError, ValueError):
        return None


def _utf8(data: bytes, pos: int) -> tuple[int, int]:
    """FLAC's UTF-8-like coded number at ``pos``: (value, position after it)."""
    first = data[pos]
    if first < 0x80:
        return first, pos + 1
    length = 0
    while first & (0x80 >> length):
        length += 1
    if length < 2 or length > 7:
        raise ValueError(first)
    value = first & (0xFF >> (length + 1))
    for byte in data[pos + 1:pos + length]:
        if byte & 0xC0 != 0x80:
            raise ValueError(byte)
        value = (value << 6) | (byte & 0x3F)
    return value, pos + length


def _crc8(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc
