"""Reading JSON strictly, the one reader for every JSON file and answer we load.

UTF-8 (a BOM accepted), CRLF accepted; refused, with the file and line named: malformed
JSON, a key twice in one object (``{"score": 0, "score": 2}`` would otherwise be read as
2), NaN / Infinity / numbers too large for a float, nesting deeper than ``MAX_DEPTH``.
Files are read through :func:`pytest_dictbench.files.read_regular` (regular files only,
size-checked before reading), so a FIFO or a device never hangs a run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .errors import DictbenchError
from .files import read_regular

__all__ = ["MAX_DEPTH", "canonical_line", "loads_strict", "parse_json", "parse_line",
           "parse_lines", "read_json", "read_jsonl", "read_text"]

#: Deepest nesting (objects and arrays) a JSON value we read may have.
MAX_DEPTH = 64


def canonical_line(value: Any) -> str:
    """One line of canonical JSON: sorted keys, no spaces, UTF-8 kept, no NaN.

    The same data always gives the same text: item records, output lines and the
    content hashes of judge requests are all written this way.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def parse_lines(lines: Sequence[str], block: int = 1024) -> list[Any]:
    """Parse lines of valid JSON that this process wrote (item records), ``block`` lines
    per decoder call, so that the many equal keys are one string object each (the
    decoder shares keys within one call only): a large run's records take less memory.
    """
    values: list[Any] = []
    for start in range(0, len(lines), block):
        values.extend(json.loads("[" + ",".join(lines[start:start + block]) + "]"))
    return values


class DuplicateKeyError(ValueError):
    """A key stands twice in one JSON object."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r} in one object")
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) < len(pairs):  # some key came twice: name the first one seen again
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return obj


def _depth(value: Any) -> int:
    """How deeply ``value`` nests objects and arrays (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def loads_strict(text: str) -> Any:
    """``json.loads`` that refuses duplicate keys, non-finite numbers and deep nesting.

    Raises :class:`ValueError` (``json.JSONDecodeError`` for malformed text); callers that
    know the file turn it into their own error with :func:`parse_json`.

    Example::

        >>> loads_strict('{"a": 1, "a": 2}')
        Traceback (most recent call last):
        ...
        pytest_dictbench.jsonl.DuplicateKeyError: duplicate key 'a' in one object
    """
    try:
        # json.loads makes a decoder per call, and names a leading BOM (kept for that)
        value = json.loads(text, cls=_StrictDecoder) if text.startswith("\ufeff") else \
            _STRICT.decode(text)
    except RecursionError:
        raise ValueError(f"JSON nested too deeply to read (more than {MAX_DEPTH} levels)") from None
    # a value nests at most as deep as the text has brackets: most lines need no walk
    if text.count("{") + text.count("[") > MAX_DEPTH and _depth(value) > MAX_DEPTH:
        raise ValueError(f"JSON nested too deeply to read (more than {MAX_DEPTH} levels)")
    return value


class _StrictDecoder(json.JSONDecoder):
    """The decoder of :func:`loads_strict`."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**{**options, "parse_constant": _refuse_constant,
                            "parse_float": _finite_float, "object_pairs_hook": _unique_keys})


def _key_line(text: str, key: str) -> int | None:
    """The line of the repeated ``key`` in the object that holds it twice (not merely
    the second ``"key":`` of the text, which can belong to an earlier object: CF22).

    The text is scanned once, tracking strings and nesting; each open object keeps the
    keys it has seen (an open array is ``None``), and the first key seen again in its
    own object is the one named.
    """
    stack: list[set[str] | None] = []
    at, expect_key = 0, False
    while at < len(text):
        char = text[at]
        if char == '"':
            end = at + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if expect_key and stack and stack[-1] is not None:
                name = json.loads(text[at:end + 1])
                if name == key and name in stack[-1]:
                    return text.count("\n", 0, at) + 1
                stack[-1].add(name)
            at, expect_key = end + 1, False
            continue
        if char in "{[":
            stack.append(set() if char == "{" else None)
            expect_key = char == "{"
        elif char in "}]":
            if stack:
                stack.pop()
            expect_key = False
        elif char == ",":
            expect_key = bool(stack) and stack[-1] is not None
        at += 1
    return None


def parse_json(text: str, error: type[DictbenchError], path: Path | str | None = None,
               line: int | None = None) -> Any:
    """A whole JSON document (or one line, ``line`` given), strictly; any problem raises
    ``error`` naming the file and the line."""
    try:
        return loads_strict(text)
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise error(f"malformed JSON: {exc.msg} (column {exc.colno})",
                    path=path, line=where) from None
    except DuplicateKeyError as exc:
        where = line if line is not None else _key_line(text, exc.key)
        raise error(str(exc), path=path, line=where) from None
    except ValueError as exc:  # NaN, Infinity, 1e999, nesting
        raise error(str(exc), path=path, line=line) from None


def read_json(path: Path, error: type[DictbenchError], *,
              max_bytes: int | None = None) -> Any:
    """A JSON file, read as :func:`read_text` reads it and parsed by :func:`parse_json`."""
    return parse_json(read_text(path, error, max_bytes=max_bytes), error, path)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def read_text(path: Path, error: type[DictbenchError], *,
              max_bytes: int | None = None) -> str:
    """The file's text as UTF-8 (a leading BOM dropped); invalid bytes name the line.

    Only a regular file of at most ``max_bytes`` (default
    :data:`pytest_dictbench.files.MAX_READ_BYTES`) is read."""
    data = read_regular(path, error, max_bytes=max_bytes)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise error(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            path=path, line=line,
        ) from None


def parse_line(line: str, error: type[DictbenchError], path: Path | str | None,
               number: int) -> dict[str, Any]:
    """One JSON Lines line as an object; any problem raises ``error`` naming the line."""
    obj = parse_json(line, error, path, number)
    if not isinstance(obj, dict):
        raise error(f"expected a JSON object, got {type(obj).__name__}",
                    path=path, line=number)
    return obj


def read_jsonl(
    path: Path, error: type[DictbenchError], *, tolerate_torn_tail: bool = False,
    on_error: Callable[[DictbenchError], None] | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for each non-blank line of a JSON Lines file.

    With ``tolerate_torn_tail``, a last line without a newline that does not parse (a
    write cut short, possibly inside a UTF-8 sequence) is skipped instead of raising.
    With ``on_error``, a line that does not parse is passed to it as an ``error`` and
    skipped (lenient stores such as the judge's verdict cache); without it, the first
    bad line raises.
    """
    data = read_regular(path, error)
    lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
    offset = -1
    for number, raw in enumerate(lines, start=1):
        offset += 1
        start, offset = offset, offset + len(raw)
        if not raw.strip():
            continue
        try:
            try:
                line = raw.decode("utf-8").rstrip("\r")
            except UnicodeDecodeError as exc:
                raise error(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset "
                            f"{start + exc.start})", path=path, line=number) from exc
            obj = parse_line(line, error, path, number)
        except DictbenchError as exc:
            cut_short = isinstance(exc.__context__, json.JSONDecodeError | UnicodeDecodeError)
            if tolerate_torn_tail and cut_short and number == len(lines):
                return
            if on_error is None:
                raise
            on_error(exc)
            continue
        yield number, obj


#: The one decoder :func:`loads_strict` uses.
_STRICT = _StrictDecoder()
