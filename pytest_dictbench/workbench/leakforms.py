"""The other forms a secret or a private text takes in a file, for ``leak-check``.

Each function turns raw content into extra text to search, so that a key written as
base64, percent-encoding, JSON ``\\u`` escapes, hex or UTF-16, or split over lines by a
string concatenation, a YAML folded scalar or a hard wrap, is still found; and so that
PNG text chunks are read. Pure: no I/O.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
import zlib
from collections.abc import Iterator
from urllib.parse import unquote

__all__ = ["decoded_forms", "joined_lines", "png_texts", "utf16_texts"]

_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")
_HEX_RUN = re.compile(r"(?:[0-9a-fA-F]{2}){20,}")
_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\[\\/\"']")
#: characters dropped when lines are joined: whitespace, quotes, concatenation, wrap marks
_JOIN_DROP = re.compile(r"[\s\"'`+\\(),;]")
#: the largest text a compressed PNG chunk may inflate to
_MAX_INFLATE = 1024 * 1024


def _unescape(match: re.Match[str]) -> str:
    token = match.group(0)
    if token[1] in "ux":
        return chr(int(token[2:], 16))
    return token[1]


def _printable(data: bytes) -> str | None:
    """``data`` as text when it is mostly printable UTF-8, else ``None``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    shown = sum(c.isprintable() or c in "\n\r\t" for c in text)
    return text if text and shown >= 0.9 * len(text) else None


def _base64(run: str) -> str | None:
    core = run.rstrip("=")
    for alphabet in (None, b"-_"):
        try:
            data = base64.b64decode(core + "=" * (-len(core) % 4), altchars=alphabet,
                                    validate=True)
        except (binascii.Error, ValueError):
            continue
        text = _printable(data)
        if text is not None:
            return text
    return None


def decoded_forms(line: str) -> Iterator[tuple[str, str]]:
    """``(encoding, decoded text)`` for each encoded form found in one line: percent
    escapes, ``\\u``/``\\x`` escapes, base64 runs (plain and URL-safe) and hex runs."""
    if "%" in line:
        decoded = unquote(line)
        if decoded != line:
            yield "percent-encoded", decoded
    decoded = line
    for _ in range(2):  # an escaped escape (JSON in JSON) needs a second pass
        if "\\" not in decoded:
            break
        decoded = _ESCAPE.sub(_unescape, decoded)
    if decoded != line:
        yield "escaped", decoded
    for match in _BASE64_RUN.finditer(line):
        text = _base64(match.group(0))
        if text is not None:
            yield "base64-encoded", text
    for match in _HEX_RUN.finditer(line):
        text = _printable(bytes.fromhex(match.group(0)))
        if text is not None:
            yield "hex-encoded", text


def joined_lines(lines: list[str]) -> tuple[str, list[int]]:
    """The lines joined with whitespace, quotes and concatenation marks removed, and for
    each character of the result the (1-based) line it came from."""
    parts: list[str] = []
    origin: list[int] = []
    for number, line in enumerate(lines, start=1):
        core = _JOIN_DROP.sub("", line)
        parts.append(core)
        origin.extend([number] * len(core))
    return "".join(parts), origin


def utf16_texts(data: bytes) -> Iterator[str]:
    """``data`` read as UTF-16 (little and big endian, both alignments) when it holds
    enough NUL bytes to be such text."""
    if data.count(b"\0") < len(data) // 8:
        return
    for codec in ("utf-16-le", "utf-16-be"):
        for start in (0, 1):
            chunk = data[start:]
            yield chunk[:len(chunk) // 2 * 2].decode(codec, "ignore")


def png_texts(data: bytes) -> Iterator[str]:
    """The keywords and texts of a PNG's ``tEXt``, ``zTXt`` and ``iTXt`` chunks."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return
    at = 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        at += 12 + length
        if kind == b"tEXt":
            yield body.replace(b"\0", b"\n").decode("latin-1")
        elif kind == b"zTXt":
            keyword, _, rest = body.partition(b"\0")
            yield keyword.decode("latin-1") + "\n" + _inflate(rest[1:]).decode("latin-1")
        elif kind == b"iTXt":
            keyword, _, rest = body.partition(b"\0")
            compressed, rest = rest[:1] == b"\1", rest[2:]
            language, _, rest = rest.partition(b"\0")
            translated, _, text = rest.partition(b"\0")
            if compressed:
                text = _inflate(text)
            yield "\n".join(part.decode("utf-8", "replace")
                            for part in (keyword, language, translated, text))
        elif kind == b"IEND":
            return


def _inflate(data: bytes) -> bytes:
    try:
        return zlib.decompressobj().decompress(data, _MAX_INFLATE)
    except zlib.error:
        return b""
