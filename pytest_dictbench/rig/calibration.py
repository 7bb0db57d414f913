"""Calibration blocks of a rig run, imported or live (``--dictbench-calibration DIR`` or
the manifest's ``protocol.calibration.recordings_dir``).

Every block attempt of ``blocks.csv`` is measured against the published stimulus
(:mod:`pytest_dictbench.rig.calibration_check`). A row that ran in an attempt whose
calibration failed becomes ``invalid`` with the reason ``invalid_rig`` and what failed
by how much: it is reported, never scored.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ..errors import SuiteError
from ..model import Suite
from ..suites import inside
from .blocks import read_blocks
from .notes import compose_notes, split_notes
from .rows import RigRow
from .schedule import BlockAttempt, RunRow, assign_attempts

__all__ = ["BlockCalibration", "calibration_folder", "load_calibration"]


def calibration_folder(suite: Suite, option: str | None, cwd: Path) -> Path | None:
    """The calibration folder: the option's (relative to ``cwd``), else the manifest's."""
    if option:
        return (cwd / option).resolve()
    declared = suite.manifest["package"].get("protocol", {}).get("calibration", {}).get(
        "recordings_dir")
    if not declared:
        return None
    return inside(suite.root, declared, what="protocol.calibration.recordings_dir",
                  where=suite.root)


@dataclasses.dataclass(frozen=True)
class BlockCalibration:
    """The block attempts of ``blocks.csv`` with each attempt's calibration verdict."""

    attempts: tuple[BlockAttempt, ...]
    verdicts: dict[str, Any]

    def apply(self, rows: list[RigRow]) -> tuple[list[RigRow], dict[str, dict[str, Any]]]:
        """Rows with those of failed block attempts made ``invalid``, and per run_id the
        block attempt it ran in with that attempt's calibration verdict. Each row is
        placed by its own ``tested_at``, so live rows can be placed one at a time."""
        run_rows = [RunRow(r.cells["run_id"] or f"row-{r.number}", r.app_id, r.fixture_id,
                           r.repetition, r.status, _time(r.cells["tested_at"])) for r in rows]
        assigned = assign_attempts(run_rows, self.attempts)
        blocks: dict[str, dict[str, Any]] = {}
        out = []
        for row, run in zip(rows, run_rows, strict=True):
            attempt = assigned.get(run.run_id)
            if attempt is None:
                out.append(self._uncalibrated(row, run.block))
                continue
            verdict = self.verdicts[attempt.key]
            blocks[run.run_id] = {"attempt": attempt.key, "calibration": verdict.to_json(),
                                  "network_measured": attempt.network_measured}
            if not verdict.accepted and row.status == "complete":
                text, facts = split_notes(row.cells["notes"])
                note = compose_notes(f"invalid_rig: {attempt.key} calibration failed: "
                                     f"{'; '.join(verdict.failures)}"
                                     + (f"; {text}" if text else ""), facts)
                row = dataclasses.replace(row, status="invalid",
                                          cells={**row.cells, "status": "invalid",
                                                 "notes": note})
            out.append(row)
        return out, blocks


    def _uncalibrated(self, row: RigRow, block: str) -> RigRow:
        """A complete row that no accepted calibration covers is ``invalid``: when
        calibration is in use, a block without its recording is never scored."""
        if row.status != "complete":
            return row
        if any(a.block == block for a in self.attempts):
            reason = f"tested before {block}'s first calibration attempt started"
        else:
            reason = f"no calibration recording for {block} in blocks.csv"
        text, facts = split_notes(row.cells["notes"])
        note = compose_notes(f"invalid_rig: {reason}" + (f"; {text}" if text else ""), facts)
        return dataclasses.replace(row, status="invalid",
                                   cells={**row.cells, "status": "invalid", "notes": note})

    def missing_blocks(self, rows: list[RigRow]) -> list[str]:
        """Blocks that attempted rows ran in but ``blocks.csv`` does not list."""
        listed = {a.block for a in self.attempts}
        ran = {f"block_{r.repetition}" for r in rows
               if r.status not in ("not_tested", "unsupported", "blank")}
        return sorted(ran - listed)


def load_calibration(suite: Suite, folder: Path) -> BlockCalibration:
    """Measure every block attempt's recording in ``folder`` against the stimulus."""
    # numpy and soundfile are imported by a run that calibrates, not by every run
    from .calibration_check import Tolerance, calibrate_blocks, measure

    calibration = suite.manifest["package"].get("protocol", {}).get("calibration", {})
    tolerance = Tolerance(float(calibration.get("level_tolerance_db", 0.2)),
                          float(calibration.get("onset_tolerance_ms", 20.0)))
    stimulus_path = calibration.get("stimulus_path")
    stimulus_file = inside(suite.root, stimulus_path, what="stimulus_path",
                           where=suite.root) if stimulus_path else folder / "stimulus.wav"
    if not stimulus_file.is_file():
        raise SuiteError("the calibration stimulus is missing (stimulus.wav in the "
                         "calibration folder, or protocol.calibration.stimulus_path)",
                         path=stimulus_file)
    attempts = read_blocks(folder)
    verdicts = {a.key: dataclasses.replace(r, path=_shown(Path(a.recording), suite.root,
                                                          folder))
                for a, r in zip(attempts, calibrate_blocks(
                    measure(stimulus_file), [(a.key, a.recording) for a in attempts],
                    tolerance), strict=True)}
    return BlockCalibration(tuple(attempts), verdicts)


def _shown(path: Path, root: Path, folder: Path) -> str:
    """A recording's path as reports show it: relative to the package (or, for a folder
    outside it, to that folder), never the machine's absolute path."""
    for base in (root.resolve(), folder.resolve()):
        if path.resolve().is_relative_to(base):
            return path.resolve().relative_to(base).as_posix()
    return path.name


def _time(text: str) -> Any:
    from .blocks import parse_time

    try:
        return parse_time(text) if text else None
    except ValueError:
        return None
