"""The calibration folder of a rig run: ``blocks.csv`` and the recordings it names.

``blocks.csv`` has one row per block attempt, in any order::

    block,attempt,started_at,recording,bandwidth_start_mbps,rtt_start_ms,bandwidth_end_mbps,rtt_end_ms
    block_1,1,2026-11-23T09:55:00Z,block_1.wav,,,,
    block_2,1,2026-11-24T10:55:00Z,block_2.wav,410.5,18.2,402.0,19.0

``recording`` is a path inside the folder. The network columns are empty for a block
without a cloud processing path; a block attempt has network measurements when all four
are filled. The published calibration stimulus is ``stimulus.wav`` in the folder unless
the manifest's ``protocol.calibration.stimulus_path`` names one inside the suite.
"""

from __future__ import annotations

import csv
import io
import math
from datetime import UTC, datetime
from pathlib import Path

from ..errors import DictbenchError
from .schedule import BlockAttempt

__all__ = ["BLOCK_COLUMNS", "CalibrationFolderError", "read_blocks"]

BLOCK_COLUMNS = ("block", "attempt", "started_at", "recording", "bandwidth_start_mbps",
                 "rtt_start_ms", "bandwidth_end_mbps", "rtt_end_ms")
_NETWORK = BLOCK_COLUMNS[4:]


class CalibrationFolderError(DictbenchError):
    """The calibration folder or its ``blocks.csv`` is malformed."""


def parse_time(text: str) -> datetime:
    """An ISO 8601 timestamp (``Z`` or an offset), as a naive UTC datetime."""
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


def read_blocks(folder: Path) -> list[BlockAttempt]:
    """Every block attempt of ``folder/blocks.csv``; errors name the row and column."""
    path = folder / "blocks.csv"
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise CalibrationFolderError("no blocks.csv in the calibration folder",
                                     path=path) from None
    except UnicodeDecodeError as exc:
        raise CalibrationFolderError(f"not UTF-8 (byte {exc.start})", path=path) from None
    rows = list(csv.reader(io.StringIO(text.replace("\r\n", "\n"))))
    if not rows or tuple(rows[0]) != BLOCK_COLUMNS:
        raise CalibrationFolderError(f"row 1: the header must be {','.join(BLOCK_COLUMNS)}",
                                     path=path)
    attempts: list[BlockAttempt] = []
    seen: set[tuple[str, int]] = set()
    for number, cells in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(BLOCK_COLUMNS):
            raise CalibrationFolderError(
                f"row {number}: {len(cells)} cells, expected {len(BLOCK_COLUMNS)}", path=path)
        row = dict(zip(BLOCK_COLUMNS, (c.strip() for c in cells), strict=True))
        attempt = _attempt(row, number, folder, path)
        if (attempt.block, attempt.attempt) in seen:
            raise CalibrationFolderError(
                f"row {number}, column attempt: {attempt.block} attempt {attempt.attempt} "
                "is listed twice", path=path)
        seen.add((attempt.block, attempt.attempt))
        attempts.append(attempt)
    return sorted(attempts, key=lambda a: (a.started_at, a.block, a.attempt))


def _attempt(row: dict[str, str], number: int, folder: Path, path: Path) -> BlockAttempt:
    def refuse(column: str, message: str) -> CalibrationFolderError:
        return CalibrationFolderError(f"row {number}, column {column}: {message}", path=path)

    if not row["block"].startswith("block_"):
        raise refuse("block", f"{row['block']!r} is not a block id like block_1")
    try:
        attempt = int(row["attempt"])
    except ValueError:
        raise refuse("attempt", f"{row['attempt']!r} is not a whole number") from None
    if attempt < 1:
        raise refuse("attempt", "attempts count from 1")
    try:
        started = parse_time(row["started_at"])
    except ValueError:
        raise refuse("started_at", f"{row['started_at']!r} is not an ISO 8601 time") from None
    recording = row["recording"]
    if not recording:
        raise refuse("recording", "every block attempt needs its calibration recording")
    resolved = (folder / recording).resolve()
    if not resolved.is_relative_to(folder.resolve()):
        raise refuse("recording", f"{recording!r} leaves the calibration folder")
    filled = [row[c] for c in _NETWORK if row[c]]
    for column in _NETWORK:
        if row[column]:
            try:
                value = float(row[column])
            except ValueError:
                raise refuse(column, f"{row[column]!r} is not a number") from None
            if not math.isfinite(value) or value < 0:
                raise refuse(column, f"{row[column]!r} must be a finite number >= 0")
    return BlockAttempt(row["block"], attempt, started, str(resolved),
                        network_measured=len(filled) == len(_NETWORK))
