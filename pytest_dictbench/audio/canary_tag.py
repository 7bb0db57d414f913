"""The suite's canary added to a recording as a metadata tag, its audio left byte for byte.

A suite's canary check (``--dictbench-verify``, the run's ``canary missing`` note) looks
for the canary string in the bytes of every data file. ``dictbench synth`` and
``dictbench draft`` write FLAC with the canary as the ``comment`` tag; a user's own
recordings get the same tag here without being decoded or re-encoded:

- WAV: a ``LIST``/``INFO`` chunk with an ``ICMT`` (comment) entry is appended after the
  last chunk and the RIFF size is updated; every other byte stays as it was.
- FLAC: a ``COMMENT=`` field is added to the Vorbis comment block (one is inserted after
  STREAMINFO when the file has none); the audio frames stay as they were.

Any other container is refused with the file named: convert it to WAV or FLAC first.
"""

from __future__ import annotations

import struct
from pathlib import Path

from ..errors import SuiteError

__all__ = ["TAGGED_SUFFIXES", "with_canary"]

#: The containers that can carry the canary without re-encoding.
TAGGED_SUFFIXES = (".wav", ".flac")
_VORBIS_COMMENT = 4


def with_canary(data: bytes, canary: str, *, where: Path | str) -> bytes:
    """``data`` (a WAV or FLAC file's bytes) with ``canary`` added as a comment tag.

    Data that already holds the canary is returned unchanged.
    """
    if canary.encode("utf-8") in data:
        return data
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return _wav(data, canary, where)
    if data[:4] == b"fLaC":
        return _flac(data, canary, where)
    raise SuiteError("not a WAV or FLAC file, so the suite's canary cannot be added as a "
                     "tag; convert it first (e.g. sox IN.mp3 OUT.wav)", path=where)


def _wav(data: bytes, canary: str, where: Path | str) -> bytes:
    declared = struct.unpack_from("<I", data, 4)[0]
    if declared + 8 < len(data):  # trailing bytes after the RIFF chunk: keep the chunk only
        raise SuiteError(f"the RIFF header declares {declared + 8} bytes but the file has "
                         f"{len(data)}; re-save it with an audio editor or sox", path=where)
    body = data if len(data) % 2 == 0 else data + b"\0"  # chunks start on even offsets
    text = canary.encode("utf-8") + b"\0"
    entry = b"ICMT" + struct.pack("<I", len(text)) + text + (b"\0" if len(text) % 2 else b"")
    chunk = b"LIST" + struct.pack("<I", 4 + len(entry)) + b"INFO" + entry
    out = body + chunk
    return out[:4] + struct.pack("<I", len(out) - 8) + out[8:]


def _flac(data: bytes, canary: str, where: Path | str) -> bytes:
    offset, blocks = 4, []
    while True:
        if offset + 4 > len(data):
            raise SuiteError("truncated FLAC metadata", path=where)
        header = data[offset]
        length = int.from_bytes(data[offset + 1:offset + 4], "big")
        blocks.append((header & 0x7F, data[offset + 4:offset + 4 + length]))
        offset += 4 + length
        if header & 0x80:
            break
    field = f"COMMENT={canary}".encode()
    for index, (kind, body) in enumerate(blocks):
        if kind == _VORBIS_COMMENT:
            blocks[index] = (kind, _add_field(body, field, where))
            break
    else:
        vendor = b"pytest-dictbench"
        body = (struct.pack("<I", len(vendor)) + vendor + struct.pack("<I", 1)
                + struct.pack("<I", len(field)) + field)
        blocks.insert(1, (_VORBIS_COMMENT, body))
    head = b"fLaC"
    for index, (kind, body) in enumerate(blocks):
        last = 0x80 if index == len(blocks) - 1 else 0
        head += bytes([last | kind]) + len(body).to_bytes(3, "big") + body
    return head + data[offset:]


def _add_field(body: bytes, field: bytes, where: Path | str) -> bytes:
    vendor_length = struct.unpack_from("<I", body, 0)[0]
    at = 4 + vendor_length
    if at + 4 > len(body):
        raise SuiteError("malformed FLAC Vorbis comment block", path=where)
    count = struct.unpack_from("<I", body, at)[0]
    return (body[:at] + struct.pack("<I", count + 1) + body[at + 4:]
            + struct.pack("<I", len(field)) + field)
