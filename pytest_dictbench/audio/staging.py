"""Files rendered aside and moved into a suite as one commit that a kill cannot split.

``dictbench synth`` renders every case into a staging folder (``.synth-*`` inside the
audio folder) and writes the new ``cases.jsonl`` and ``suite.toml`` there too. Only when
everything is rendered does it write the staging folder's journal (``commit.json``, the
list of moves) and then move each file into place. A process killed before the journal
exists leaves the suite exactly as it was; one killed after it leaves a journal that the
next synthesis finishes first (:func:`finish_interrupted`), so the suite ends as the
complete new state. Staging folders without a journal are swept.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ..files import _sync_folder, atomic_write
from ..jsonl import read_json
from .voices import SynthError

__all__ = ["JOURNAL", "PREFIX", "commit_staged", "finish_interrupted", "new_staging"]

#: Name of the staging folders inside the output folder.
PREFIX = ".synth-"
#: The journal of a staging folder whose moves have begun.
JOURNAL = "commit.json"


def new_staging(out_dir: Path) -> Path:
    """A fresh staging folder in ``out_dir``, after an interrupted commit is finished."""
    out_dir.mkdir(parents=True, exist_ok=True)
    finish_interrupted(out_dir)
    return Path(tempfile.mkdtemp(prefix=PREFIX, dir=out_dir))


def commit_staged(staging: Path, moves: Sequence[tuple[str, Path]]) -> None:
    """Move each staged ``name`` of ``staging`` onto its target, as one commit.

    The journal is written first; from then on the commit is finished by this call or,
    if the process dies, by the next :func:`finish_interrupted`.
    """
    base = staging.parent
    atomic_write(staging / JOURNAL, json.dumps(
        {"moves": [[name, os.path.relpath(target, base)] for name, target in moves]}) + "\n")
    _roll_forward(staging)


def finish_interrupted(out_dir: Path) -> None:
    """Finish the commit of a staging folder left with a journal; sweep the others."""
    for staging in sorted(out_dir.glob(PREFIX + "*")):
        if (staging / JOURNAL).is_file():
            _roll_forward(staging)
        else:
            shutil.rmtree(staging, ignore_errors=True)


def _roll_forward(staging: Path) -> None:
    """Make every move of the journal that has not happened yet, then drop the folder."""
    journal = read_json(staging / JOURNAL, SynthError)
    moves = journal.get("moves") if isinstance(journal, dict) else None
    if not isinstance(moves, list) or not all(
            isinstance(m, list) and len(m) == 2 and all(isinstance(p, str) for p in m)
            for m in moves):
        raise SynthError("the journal of an interrupted synthesis is damaged; remove the "
                         "folder and run dictbench synth again", path=staging / JOURNAL)
    folders = set()
    for name, target in moves:
        source, destination = staging / name, staging.parent / target
        if source.exists():  # moved already when the process died after this one
            os.replace(source, destination)
            folders.add(destination.parent)
    for folder in sorted(folders):
        _sync_folder(folder)
    shutil.rmtree(staging, ignore_errors=True)
