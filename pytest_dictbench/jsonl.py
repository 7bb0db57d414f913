"""Reading JSON Lines files strictly: UTF-8 (BOM accepted), CRLF accepted, errors by line."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .errors import DictbenchError

__all__ = ["canonical_line", "parse_line", "read_jsonl", "read_text"]


def canonical_line(value: Any) -> str:
    """One line of canonical JSON: sorted keys, no spaces, UTF-8 kept, no NaN.

    The same data always gives the same text: item records, output lines and the
    content hashes of judge requests are all written this way.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def read_text(path: Path, error: type[DictbenchError]) -> str:
    """The file's text as UTF-8 (a leading BOM dropped); invalid bytes name the line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"cannot read file: {exc.strerror or exc}", path=path) from None
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
    try:
        obj = json.loads(line, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:
        raise error("JSON nested too deeply to read", path=path, line=number) from None
    except json.JSONDecodeError as exc:
        raise error(f"malformed JSON: {exc.msg} (column {exc.colno})",
                    path=path, line=number) from None
    except ValueError as exc:  # NaN, Infinity, 1e999
        raise error(str(exc), path=path, line=number) from None
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
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"cannot read file: {exc.strerror or exc}", path=path) from None
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
