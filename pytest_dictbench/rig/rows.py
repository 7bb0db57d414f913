"""One row of a rig results CSV: the 28 columns, the checked row, and the checks a row
passes alone (an imported row and a live run's row alike).

A row is refused, naming its CSV row (the header is row 1) and column: the wrong number
of cells; an unknown status, app, fixture or test profile; a repetition outside
1..required; an inline transcript *and* a path; a path leaving the CSV's folder; missing
required metadata or fields on a complete row; malformed numbers (ASCII digits only),
booleans, dates and URLs; control characters. Transcript files and cells are UTF-8 with
line endings normalised and one terminal newline removed. The file-wide checks (header,
duplicates, exclusions) are :mod:`.results`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import DictbenchError
from ..files import read_regular
from ..model import Suite
from ..suites import DEFAULT_MAX_TEXT_CHARS
from ..text.normalize import strict_text as file_text
from .cells import clean, neutralise, restore, trim
from .cells import number as cell_number
from .csvfile import where
from .protocol import default_profile, required_repetitions

__all__ = ["COLUMNS", "STATUSES", "TEXT_COLUMNS", "ResultsError", "RigRow", "checked_row",
           "refuse", "row_from_cells"]

#: The columns of a results CSV, in order.
COLUMNS = (
    "benchmark_version", "status", "app_id", "run_id", "fixture_id", "repetition",
    "app_version", "plan", "test_profile", "raw_transcript_path", "raw_transcript",
    "final_transcript_path", "final_transcript", "elapsed_seconds", "correction_seconds",
    "edit_actions", "capture_complete", "speaker_turns_correct", "speaker_turns_total",
    "processing_path", "privacy_mode", "app_language_setting", "tested_at", "hardware",
    "macos_version", "price_snapshot", "pricing_source_url", "notes",
)
#: Row statuses; a blank status cell is ``blank``.
STATUSES = ("complete", "not_tested", "unsupported", "failed", "invalid", "blank")
PROCESSING_PATHS = ("on_device", "vendor_cloud", "third_party_cloud", "hybrid", "unknown")
#: Each transcript's inline column and its path column.
TEXT_COLUMNS = (("raw_transcript", "raw_transcript_path"),
                ("final_transcript", "final_transcript_path"))
_TRANSCRIPTS = ("raw_transcript", "final_transcript")
_FLOATS = ("elapsed_seconds", "correction_seconds")
_INTEGERS = ("edit_actions", "speaker_turns_correct", "speaker_turns_total")


class ResultsError(DictbenchError):
    """A results CSV is malformed or does not fit its package; ``column`` names the
    refused cell (None for the whole row or file), ``message`` the problem alone."""

    def __init__(self, message: str, *, path: Path | None = None, column: str | None = None,
                 problem: str | None = None) -> None:
        super().__init__(message, path=path)
        self.column = column
        self.message = problem if problem is not None else message


@dataclass(frozen=True)
class RigRow:
    """One row of a results CSV, checked against the package."""

    #: Row number in the CSV (the header is row 1).
    number: int
    status: str
    app_id: str
    fixture_id: str
    repetition: int
    test_profile: str
    #: The 28 cells as written, transcripts inline (read from their files) and paths blank.
    cells: Mapping[str, str]
    #: Parsed values for scoring: transcripts (or None) and numbers (or None when blank).
    values: Mapping[str, Any] = field(default_factory=dict)


def refuse(path: Path, number: int | str, column: str | None, message: str,
           line: int | None = None) -> ResultsError:
    """``number`` is the CSV row, or a text naming a row that has no number (live);
    ``line`` the physical line the row starts on, named when it differs."""
    place = where(number, line, column) if isinstance(number, int) else (
        number + (f", column {column}" if column else "") + ": ")
    return ResultsError(f"{place}{message}", path=path, column=column,
                        problem=f"{column}: {message}" if column else message)


def _transcript(cells: dict[str, str], inline: str, column: str, folder: Path,
                ref: Any, limit: int) -> str | None:
    rel = trim(cells[column])
    if cells[inline] and rel:
        raise ref(f"{inline}+{column}", "give the transcript inline or as a path, not both")
    if cells[inline]:
        return _sized(file_text(cells[inline]), inline, ref, limit)
    if not rel:
        return None
    target = (folder / rel).resolve()
    if Path(rel).is_absolute() or not target.is_relative_to(folder.resolve()):
        raise ref(column, f"path {rel!r} leaves the folder of the results CSV")
    try:  # a regular file only, and never more than the limit can hold (4 bytes a char)
        data = read_regular(target, ResultsError, max_bytes=4 * limit + 8)
    except ResultsError as exc:
        problem = exc.message
        if problem.startswith("cannot read file: "):
            problem = f"cannot read {rel!r}: {problem.removeprefix('cannot read file: ')}"
        else:
            problem = f"{rel!r} is {problem}" if problem.startswith("not a regular") else \
                f"{rel!r}: {problem}"
        raise ref(column, problem) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ref(column, f"{rel!r} is not valid UTF-8 (offset {exc.start})") from None
    return _sized(clean(file_text(text), column, ref), column, ref, limit)


def _sized(text: str, column: str, ref: Any, limit: int) -> str:
    if len(text) > limit:
        raise ref(column, f"the transcript has {len(text)} characters, more than the limit "
                  f"of {limit} (--dictbench-max-text-chars)")
    return text


def _check_complete(cells: Mapping[str, str], fixture: Mapping[str, Any],
                    package: Mapping[str, Any], values: Mapping[str, Any], ref: Any) -> None:
    if cells["benchmark_version"] != package["schema_version"]:
        raise ref("benchmark_version", f"must be {package['schema_version']!r} on a complete "
                  f"row, not {cells['benchmark_version']!r}")
    for column in package.get("protocol", {}).get("required_metadata_fields", ()):
        if not trim(cells.get(column, "")):
            raise ref(column, "required metadata is blank on a complete row")
    if cells["processing_path"] not in PROCESSING_PATHS:
        raise ref("processing_path", f"{cells['processing_path']!r} is not one of "
                  f"{', '.join(PROCESSING_PATHS)}")
    try:
        datetime.fromisoformat(trim(cells["tested_at"]))
    except ValueError:
        raise ref("tested_at", f"{cells['tested_at']!r} is not an ISO-8601 date or "
                  "timestamp") from None
    url = urlsplit(trim(cells["pricing_source_url"]))
    if url.scheme not in ("http", "https") or not url.netloc:
        raise ref("pricing_source_url", f"{cells['pricing_source_url']!r} is not an "
                  "http(s) URL")
    for name in fixture.get("required_fields", ()):
        if name in _TRANSCRIPTS:
            continue  # a blank transcript on a complete row is the empty result (WER 1)
        if values.get(name) is None and not trim(cells.get(name, "")):
            raise ref(name, f"required by fixture {fixture['id']!r} but missing on a "
                      "complete row")
    if fixture["workflow"] == "meeting" and "turns" in fixture:
        total, correct = values.get("speaker_turns_total"), values.get("speaker_turns_correct")
        if total is not None and total != len(fixture["turns"]):
            raise ref("speaker_turns_total", f"must equal the {len(fixture['turns'])} "
                      "reference turns")
        if correct is not None and total is not None and correct > total:
            raise ref("speaker_turns_correct", "exceeds speaker_turns_total")


def checked_row(number: int, record: list[str], suite: Suite, folder: Path, path: Path,
                limit: int, place: str | None = None, line: int | None = None) -> RigRow:
    """CSV row ``number`` (its cells ``record``) checked against ``suite``; ``folder``
    holds its transcript files, ``limit`` caps a cell's characters, ``place`` names a row
    without a number (live) and ``line`` the physical line it starts on."""
    package = suite.manifest["package"]

    def ref(column: str, message: str) -> ResultsError:
        return refuse(path, place or number, column, message, line)

    if len(record) != len(COLUMNS):
        empty = " (an empty line)" if record == [""] else ""
        raise refuse(path, place or number, None,
                     f"{len(record)} cell{'s' * (len(record) != 1)}, expected "
                     f"{len(COLUMNS)}{empty}", line)
    cells = {column: restore(cell) for column, cell in zip(COLUMNS, record, strict=True)}
    for column, cell in cells.items():
        if len(cell) > limit and column not in _TRANSCRIPTS:  # those: after normalising
            raise ref(column, f"the cell has {len(cell)} characters, more than the limit "
                      f"of {limit} (--dictbench-max-text-chars)")
        clean(cell, column, ref)
    status = trim(cells["status"]) or "blank"
    if status not in STATUSES or trim(cells["status"]) == "blank":
        raise ref("status", f"unknown status {cells['status']!r} (allowed: "
                  f"{', '.join(STATUSES[:-1])} or blank)")
    if cells["app_id"] not in package["products"]:
        raise ref("app_id", f"unknown app {cells['app_id']!r} (the package's products: "
                  f"{', '.join(package['products'])})")
    try:
        fixture = suite.case(cells["fixture_id"]).data
    except KeyError:
        raise ref("fixture_id", f"unknown fixture {cells['fixture_id']!r}") from None
    need = required_repetitions(package, fixture)
    repetition = cell_number(cells, "repetition", True, ref)
    if repetition is None or not 1 <= repetition <= need:
        raise ref("repetition", f"{cells['repetition']!r} is outside 1..{need}")
    profiles = package.get("protocol", {}).get("profiles", {})
    profile = trim(cells["test_profile"]) or default_profile(package)
    if profiles and profile not in profiles:
        raise ref("test_profile", f"unknown test profile {profile!r} (the package's: "
                  f"{', '.join(profiles)})")
    if status != "blank" and not trim(cells["run_id"]):
        raise ref("run_id", "a row with a status needs a run_id")
    values: dict[str, Any] = {}
    for inline, column in TEXT_COLUMNS:
        values[inline] = _transcript(cells, inline, column, folder, ref, limit)
        cells[inline], cells[column] = values[inline] or "", ""
    for column in _FLOATS + _INTEGERS:
        values[column] = cell_number(cells, column, column in _INTEGERS, ref)
    flag = trim(cells["capture_complete"])
    if flag not in ("", "true", "false"):
        raise ref("capture_complete", f"{flag!r} must be true, false or blank")
    values["capture_complete"] = None if not flag else flag == "true"
    if status == "complete":
        _check_complete(cells, fixture, package, values, ref)
        for inline in _TRANSCRIPTS:  # one rule for no text: inline, 0-byte file or live
            if inline in fixture.get("required_fields", ()) and values[inline] is None:
                values[inline] = ""
    return RigRow(number=number, status=status, app_id=cells["app_id"],
                  fixture_id=cells["fixture_id"], repetition=repetition,
                  test_profile=profile, cells=cells, values=values)


def row_from_cells(cells: Mapping[str, str], suite: Suite, *, where: str, path: Path,
                   max_text_chars: int = DEFAULT_MAX_TEXT_CHARS) -> RigRow:
    """A row made by a live run, checked as an imported row is; ``where`` names it in a
    refusal (``path``: the file the refusal points to). Its ``number`` is 0."""
    return checked_row(0, [neutralise(cells.get(column, "")) for column in COLUMNS], suite,
                       path.parent, path, max_text_chars, place=where)
