"""Reading JSON Lines files strictly: UTF-8 (BOM accepted), CRLF accepted, errors by line."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .errors import DictbenchError

__all__ = ["canonical_line", "parse_lines", "read_jsonl", "read_text"]


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


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


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


def read_jsonl(
    path: Path, error: type[DictbenchError], *, tolerate_torn_tail: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for each non-blank line of a JSON Lines file.

    With ``tolerate_torn_tail``, a last line without a newline that does not parse (a
    write cut short) is skipped instead of raising.
    """
    text = read_text(path, error)
    lines = text.split("\n")
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        try:
            obj = json.loads(line, parse_constant=_refuse_constant)
        except ValueError as exc:
            if not isinstance(exc, json.JSONDecodeError):  # NaN or Infinity
                raise error(str(exc), path=path, line=number) from None
            if tolerate_torn_tail and number == len(lines):
                return
            raise error(f"malformed JSON: {exc.msg} (column {exc.colno})",
                        path=path, line=number) from None
        if not isinstance(obj, dict):
            raise error(f"expected a JSON object, got {type(obj).__name__}",
                        path=path, line=number)
        yield number, obj
