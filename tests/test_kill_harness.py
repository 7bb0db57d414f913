"""Multi-file writers killed with SIGKILL at random points leave one consistent state.

Each trial starts a writer in a child process, kills it at a random moment, and checks
what a reader finds: one whole set (every file from the same write), never a mix, and
after the next write no leftover of the killed writer.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from pytest_dictbench.files import atomic_write_set

NAMES = ("dictbench.json", "items.jsonl", "dictbench.md", "dictbench.html", "run-info.json",
         "adjudication-pending.jsonl")

_WRITER = """
import sys
from pathlib import Path
from pytest_dictbench.files import atomic_write_set
folder, names = Path(sys.argv[1]), sys.argv[2].split(",")
generation = 0
while True:
    generation += 1
    body = f"generation {generation}\\n" + "x" * (50_000 * (1 + generation % 4))
    atomic_write_set(folder, {name: f"{name}\\n{body}" for name in names})
    print(generation, flush=True)
"""


def generations(folder: Path) -> set[str]:
    """The generation each report file of ``folder`` was written by."""
    return {(folder / name).read_text().splitlines()[1] for name in NAMES}


def test_twenty_random_kills_of_a_report_write_leave_one_set(tmp_path: Path) -> None:
    rng = random.Random(20261201)
    folder = tmp_path / "reports"
    (tmp_path / "keep.txt").write_text("not ours")
    atomic_write_set(folder, {name: f"{name}\ngeneration 0\n" for name in NAMES})
    (folder / "junit.xml").write_text("<testsuites/>")  # not in the set: carried over
    for _trial in range(20):
        writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(folder), ",".join(NAMES)],
                                  stdout=subprocess.PIPE, text=True, start_new_session=True)
        assert writer.stdout is not None
        writer.stdout.readline()  # at least one whole write done, then kill at random
        time.sleep(rng.uniform(0, 0.05))
        os.killpg(writer.pid, signal.SIGKILL)
        writer.wait()
        assert len(generations(folder)) == 1, "a killed write left a mixed report set"
        assert (folder / "junit.xml").read_text() == "<testsuites/>"
    atomic_write_set(folder, {name: f"{name}\ngeneration last\n" for name in NAMES})
    assert generations(folder) == {"generation last"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt", "reports"]
    assert sorted(p.name for p in folder.iterdir()) == sorted([*NAMES, "junit.xml"])


def test_stale_temporary_files_of_an_old_writer_are_swept(tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / ".items.jsonl.abc123.tmp").write_text("half a file")
    (folder / ".dictbench-write.lock").write_text("")
    (tmp_path / ".reports.new-xyz").mkdir()
    atomic_write_set(folder, {"items.jsonl": "{}\n"})
    assert sorted(p.name for p in folder.iterdir()) == ["items.jsonl"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]


def test_a_folder_lost_between_two_renames_is_put_back(tmp_path: Path) -> None:
    """Where no atomic exchange exists the swap is two renames; a kill between them
    leaves the old set aside, and the next write restores it before anything else."""
    folder = tmp_path / "reports"
    aside = tmp_path / ".reports.old-abc"
    aside.mkdir()
    (aside / "notes.txt").write_text("the user's")
    (aside / "items.jsonl").write_text("old\n")
    atomic_write_set(folder, {"items.jsonl": "new\n"})
    assert (folder / "items.jsonl").read_text() == "new\n"
    assert (folder / "notes.txt").read_text() == "the user's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]
