"""blocks.csv: block attempts of a rig run, and its refusals naming row and column."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from pytest_dictbench.rig.blocks import BLOCK_COLUMNS, CalibrationFolderError, read_blocks

HEADER = ",".join(BLOCK_COLUMNS)


def _write(folder: Path, *rows: str, bom: bool = False, crlf: bool = False) -> Path:
    text = "\n".join([HEADER, *rows]) + "\n"
    if crlf:
        text = text.replace("\n", "\r\n")
    (folder / "blocks.csv").write_bytes(("\ufeff" if bom else "").encode() + text.encode())
    return folder


def test_attempts_are_read_sorted_with_network_and_utc_times(tmp_path: Path) -> None:
    _write(tmp_path,
           "block_2,1,2026-11-24T12:00:00+02:00,b2.wav,400,18.5,390,19",
           "block_1,2,2026-11-23T12:00:00Z,b1-again.wav,,,,",
           "block_1,1,2026-11-23T09:00:00Z,b1.wav,400,18,,",
           "", bom=True, crlf=True)
    attempts = read_blocks(tmp_path)
    assert [(a.key, a.started_at, a.network_measured) for a in attempts] == [
        ("block_1", datetime(2026, 11, 23, 9), False),
        ("block_1#2", datetime(2026, 11, 23, 12), False),
        ("block_2", datetime(2026, 11, 24, 10), True),
    ]
    assert attempts[0].recording == str((tmp_path / "b1.wav").resolve())


@pytest.mark.parametrize(("row", "message"), [
    ("blk1,1,2026-11-23T09:00:00Z,a.wav,,,,", "row 2, column block: 'blk1' is not a block id"),
    ("block_1,x,2026-11-23T09:00:00Z,a.wav,,,,", "row 2, column attempt: 'x' is not a whole"),
    ("block_1,0,2026-11-23T09:00:00Z,a.wav,,,,", "row 2, column attempt: attempts count from 1"),
    ("block_1,1,yesterday,a.wav,,,,", "row 2, column started_at: 'yesterday' is not an ISO"),
    ("block_1,1,2026-11-23T09:00:00Z,,,,,", "row 2, column recording: every block attempt"),
    ("block_1,1,2026-11-23T09:00:00Z,../a.wav,,,,", "row 2, column recording: '../a.wav' "
     "leaves the calibration folder"),
    ("block_1,1,2026-11-23T09:00:00Z,a.wav,fast,,,", "row 2, column bandwidth_start_mbps: "
     "'fast' is not a number"),
    ("block_1,1,2026-11-23T09:00:00Z,a.wav,nan,,,", "row 2, column bandwidth_start_mbps: "
     "'nan' must be a finite number"),
    ("block_1,1,2026-11-23T09:00:00Z,a.wav,,", "row 2: 6 cells, expected 8"),
])
def test_refusals_name_row_and_column(tmp_path: Path, row: str, message: str) -> None:
    _write(tmp_path, row)
    with pytest.raises(CalibrationFolderError, match=message.replace("(", r"\(")) as info:
        read_blocks(tmp_path)
    assert str(tmp_path / "blocks.csv") in str(info.value)


def test_duplicate_attempt_wrong_header_and_missing_file(tmp_path: Path) -> None:
    _write(tmp_path, "block_1,1,2026-11-23T09:00:00Z,a.wav,,,,",
           "block_1,1,2026-11-23T10:00:00Z,b.wav,,,,")
    with pytest.raises(CalibrationFolderError, match="row 3, column attempt: block_1 attempt 1"):
        read_blocks(tmp_path)
    (tmp_path / "blocks.csv").write_text("block,attempt\n", encoding="utf-8")
    with pytest.raises(CalibrationFolderError, match="row 1: the header must be"):
        read_blocks(tmp_path)
    with pytest.raises(CalibrationFolderError, match=r"no blocks\.csv"):
        read_blocks(tmp_path / "nowhere")
