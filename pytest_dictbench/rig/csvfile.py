"""Reading a results CSV as the methodology's scorer reads it: RFC 4180, streamed.

Records come one at a time from the open file, so memory stays flat in the number of
rows and the first refusal stops the read. The rules (docs/rig.md, "Reading the CSV"):

- UTF-8, a leading BOM dropped; a UTF-16 or UTF-32 byte-order mark is refused by name;
- line ends LF, CRLF or CR; a cell in double quotes may hold commas, line breaks and
  doubled quotes (``""``); a quote anywhere else in a cell, or text after a closing
  quote, is refused, and so is a quote that is never closed (naming where it opened);
- an empty line is a record of one empty cell (the scorer refuses it too);
- the file must be a regular file of at most :data:`MAX_RESULTS_BYTES`.

Every record carries its row number (the header is row 1) and the physical line it
starts on, which differ after a cell with a line break.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import DictbenchError

__all__ = ["MAX_RESULTS_BYTES", "CsvError", "Record", "records", "where"]

#: The largest results CSV read (1 GiB); a larger file is refused before reading.
MAX_RESULTS_BYTES = 1 << 30
_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
         (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


class CsvError(DictbenchError):
    """The CSV cannot be read; ``row``/``line`` say where (None for the whole file)."""

    def __init__(self, message: str, *, path: Path, row: int | None = None,
                 line: int | None = None, column: str | None = None) -> None:
        super().__init__(where(row, line, column) + message, path=path)
        self.row, self.line, self.column, self.problem = row, line, column, message


def where(row: int | None, line: int | None, column: str | None = None) -> str:
    """``row 4 (line 5), column notes: `` (the line only when it differs from the row)."""
    if row is None:
        return "" if line is None else f"line {line}: "
    text = f"row {row}" + (f" (line {line})" if line not in (None, row) else "")
    return text + (f", column {column}" if column else "") + ": "


@dataclass(frozen=True)
class Record:
    """One CSV record: its cells, its row number and the line it starts on."""

    cells: list[str]
    row: int
    line: int


def _open(path: Path) -> int:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise CsvError(f"cannot read the results CSV: {exc.strerror or exc}",
                       path=path) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise CsvError("the results CSV is not a regular file (a FIFO, device, socket or "
                       "folder is never read)", path=path)
    if info.st_size > MAX_RESULTS_BYTES:
        os.close(fd)
        raise CsvError(f"the results CSV is {info.st_size} bytes, over the limit of "
                       f"{MAX_RESULTS_BYTES}", path=path)
    return fd


#: One physical line with its end: LF, CRLF or a lone CR (never the other Unicode breaks).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _lines(path: Path) -> Iterator[str]:
    """Physical lines, each with its line end (LF, CRLF or CR), decoded as UTF-8."""
    with os.fdopen(_open(path), "rb") as handle:
        first = handle.read(4)
        for bom, name in _BOMS:
            if first.startswith(bom):
                raise CsvError(f"{name} byte-order mark found; save the file as UTF-8",
                               path=path)
        handle.seek(3 if first.startswith(codecs.BOM_UTF8) else 0)
        number = 0
        for raw in handle:  # split at LF only: a CRLF stays in one piece
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = number + 1 + raw[:exc.start].count(b"\r") - \
                    raw[:exc.start].count(b"\r\n")
                raise CsvError(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
                               path=path, row=None, line=line) from None
            for piece in _LINE.findall(text):
                number += 1
                yield piece


def _strip_end(line: str) -> str:
    """``line`` without its line end."""
    return line[:-2] if line.endswith("\r\n") else (
        line[:-1] if line.endswith(("\r", "\n")) else line)


def records(path: Path, names: Sequence[str] = ()) -> Iterator[Record]:
    """Every record of the CSV at ``path``, in order (see the module docstring);
    ``names`` names the columns in refusals (else they are numbered from 1)."""

    def column(index: int) -> str:
        return names[index] if index < len(names) else str(index + 1)

    row, line = 0, 0
    lines = _lines(path)
    for text in lines:
        line += 1
        row += 1
        start = line
        cells: list[str] = []
        cell: list[str] = []
        body, pos = _strip_end(text), 0
        while True:
            if pos < len(body) and body[pos] == '"':
                pos += 1
                while True:
                    close = body.find('"', pos)
                    if close < 0:  # the quoted cell goes on over a line break
                        cell.append(body[pos:])
                        cell.append(text[len(body):] or "\n")
                        try:
                            text = next(lines)
                        except StopIteration:
                            raise CsvError("a quote opened in this row is never closed",
                                           path=path, row=row, line=start) from None
                        line += 1
                        body, pos = _strip_end(text), 0
                        continue
                    if body[close + 1:close + 2] == '"':
                        cell.append(body[pos:close + 1])
                        pos = close + 2
                        continue
                    cell.append(body[pos:close])
                    pos = close + 1
                    break
                if pos < len(body) and body[pos] != ",":
                    raise CsvError("text after the closing quote (quote the whole cell and "
                                   "double the quotes inside)", path=path, row=row,
                                   line=start, column=column(len(cells)))
            else:
                end = body.find(",", pos)
                end = len(body) if end < 0 else end
                value = body[pos:end]
                if '"' in value:
                    raise CsvError("a quote inside an unquoted field (quote the whole cell "
                                   "and double the quote)", path=path, row=row, line=start,
                                   column=column(len(cells)))
                cell.append(value)
                pos = end
            cells.append("".join(cell))
            cell = []
            if pos >= len(body):
                break
            pos += 1  # the comma
        yield Record(cells, row, start)
