"""The rig results CSV: one row per repetition. Reader and writer.

``--dictbench-results-out FILE`` writes every rig item of a run (imported or live) as
one row, transcripts inline, so importing that file gives the same item records.

The reader refuses, naming the CSV row (the header is row 1) and column: a missing,
extra or reordered header; a duplicate ``run_id`` or repetition cell; and every problem
of a row alone (:mod:`.rows`). The file itself is read row by row by :mod:`.csvfile`
(RFC 4180, as the scorer reads it). Rows whose every cell is empty are skipped. Exports
neutralise cells a spreadsheet would run as a formula (:func:`.cells.neutralise`), and
the reader undoes it (:func:`.cells.restore`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import Suite
from ..suites import DEFAULT_MAX_TEXT_CHARS
from .cells import neutralise, restore, trim
from .csvfile import CsvError, Record, records
from .rows import COLUMNS, STATUSES, TEXT_COLUMNS, ResultsError, RigRow, checked_row, refuse
from .seen import SeenRows

__all__ = ["Exclusion", "export_csv", "iter_results", "read_results", "render_results"]


def _check_header(header: Sequence[str], path: Path) -> None:
    if tuple(header) == COLUMNS:
        return
    rule = f"the header must be exactly the {len(COLUMNS)} columns {','.join(COLUMNS)}"
    for name in dict.fromkeys(header):
        places = [i + 1 for i, found in enumerate(header) if found == name]
        if len(places) > 1 and name in COLUMNS:
            missing = [c for c in COLUMNS if c not in header]
            lacking = f"; {', '.join(map(repr, missing))} is missing" if missing else ""
            raise refuse(path, 1, None, f"header: {name!r} appears in columns "
                         f"{' and '.join(map(str, places))}{lacking}; {rule}")
    for index, expected in enumerate(COLUMNS):
        found = header[index] if index < len(header) else None
        if found != expected:
            if found is None:
                problem = f"missing column {expected!r}"
            elif found in COLUMNS:
                problem = f"found {found!r} where {expected!r} belongs (columns reordered)"
            else:
                problem = f"found {found!r}, expected {expected!r}"
            raise refuse(path, 1, f"{index + 1}", f"header: {problem}; {rule}")
    raise refuse(path, 1, f"{len(COLUMNS) + 1}", f"header: extra column "
                 f"{header[len(COLUMNS)]!r}")


@dataclass(frozen=True)
class Exclusion:
    """A row that is not imported, and why: a non-complete row that fails a column rule
    (only complete rows are held to every rule, as in the scorer) or a ``blank`` row
    whose 28 cells are empty (an unfilled template row)."""

    row: int
    status: str
    app_id: str
    fixture_id: str
    reason: str

    def describe(self) -> str:
        """``row 107 (not_tested, murmurdesk, correction-en-us-seeded): excluded: ...``."""
        who = ", ".join(x for x in (self.status, self.app_id, self.fixture_id) if x)
        return f"row {self.row} ({who}): excluded: {self.reason}"


def _excluded(record: Record, exc: ResultsError) -> Exclusion | None:
    """The exclusion a refused row becomes, or None when it must stay refused: a row of
    the wrong width, an unknown status and every complete row are always refused."""
    if len(record.cells) != len(COLUMNS):
        return None
    cells = dict(zip(COLUMNS, (restore(c) for c in record.cells), strict=True))
    status = trim(cells["status"]) or "blank"
    if status not in STATUSES or status == "complete" or exc.column == "status":
        return None
    return Exclusion(record.row, status, trim(cells["app_id"]), trim(cells["fixture_id"]),
                     exc.message)


def read_results(path: Path, suite: Suite, *,
                 max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
                 exclusions: list[Exclusion] | None = None) -> list[RigRow]:
    """Every imported row of the results CSV at ``path`` (:func:`iter_results`)."""
    return list(iter_results(path, suite, max_text_chars=max_text_chars,
                             exclusions=exclusions))


def iter_results(path: Path, suite: Suite, *,
                 max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
                 exclusions: list[Exclusion] | None = None) -> Iterator[RigRow]:
    """Each imported row of the results CSV at ``path`` as it is read, checked against
    ``suite``; a cell or transcript longer than ``max_text_chars`` is refused. The file
    is read row by row (:mod:`.csvfile`; run ids and cells seen are kept on disk, so its
    memory is flat in rows), and the first refusal stops the read. Rows excluded rather
    than refused (:class:`Exclusion`) are appended to ``exclusions``."""
    excluded = exclusions if exclusions is not None else []
    stream = _stream(path)
    header = next(stream, None)
    if header is None:
        raise ResultsError("the results CSV is empty (it needs at least the header)",
                           path=path)
    _check_header([restore(c) for c in header.cells], path)
    seen = SeenRows()
    try:
        for record in stream:
            number = record.row
            if [c.lstrip("\ufeff") for c in record.cells] == list(COLUMNS):
                raise refuse(path, number, None, "looks like a header (two files "
                             "concatenated?)", record.line)
            if len(record.cells) == len(COLUMNS) and not any(trim(c) for c in record.cells):
                excluded.append(Exclusion(number, "blank", "", "", "an unfilled template row"))
                continue
            try:
                row = checked_row(number, record.cells, suite, path.parent, path, max_text_chars,
                                  line=record.line)
                _check_unique(row, record, seen, path)
            except ResultsError as exc:
                exclusion = _excluded(record, exc)
                if exclusion is None:
                    raise
                excluded.append(exclusion)
                continue
            yield row
    finally:
        seen.close()


def _check_unique(row: RigRow, record: Record, seen: SeenRows, path: Path) -> None:
    """A ``run_id`` or a cell (app, profile, fixture, repetition) seen before is refused."""
    number = record.row
    run_id = trim(row.cells["run_id"])
    first = seen.run_id_row(run_id) if run_id else None
    if first is not None:
        raise refuse(path, number, "run_id", f"duplicate run_id {run_id!r} (first in "
                     f"row {first})", record.line)
    key = (row.app_id, row.test_profile, row.fixture_id, row.repetition)
    first = seen.cell_row(key)
    if first is not None:
        raise refuse(path, number, "repetition", f"second row for app {row.app_id!r}, "
                     f"profile {row.test_profile!r}, fixture {row.fixture_id!r}, "
                     f"repetition {row.repetition} (first in row {first})", record.line)
    seen.add(run_id, key, number)


def _stream(path: Path) -> Iterator[Record]:
    """The CSV's records, its reading errors as :class:`ResultsError`."""
    try:
        yield from records(path, COLUMNS)
    except CsvError as exc:
        raise ResultsError(str(exc).removeprefix(f"{path}: "), path=path, column=exc.column,
                           problem=exc.problem) from None


def render_results(rows: Iterable[Mapping[str, str]]) -> str:
    """A results CSV (header and one line per row of cells), LF line endings.

    A cell is quoted when it holds a comma, a quote, LF or CR (Python's csv writer leaves
    a lone CR bare when the line end is LF, and a reader that accepts CR line ends, as
    ours and the scorer's do, would split the row there)."""
    lines = [",".join(COLUMNS)]
    lines += [",".join(_csv_cell(neutralise(cells.get(column, ""))) for column in COLUMNS)
              for cells in rows]
    return "".join(line + "\n" for line in lines)


def _csv_cell(text: str) -> str:
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def export_csv(records: Iterable[Mapping[str, Any]]) -> str:
    """The results CSV of every record that carries rig row fields, in record order.

    A transcript ending in a newline gets one more: the reader removes one terminal
    newline, so reading the file back gives each transcript exactly as it was.
    """
    rows = []
    for record in records:
        rig = record.get("rig")
        if rig is None:
            continue
        cells = {c: str(rig.get(c, "")) for c in COLUMNS}
        cells["status"] = "" if rig["status"] == "blank" else rig["status"]
        for inline, _ in TEXT_COLUMNS:
            if cells[inline].endswith("\n"):
                cells[inline] += "\n"
        rows.append(cells)
    return render_results(rows)
