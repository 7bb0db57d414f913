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


_CACHE_WRITER = """
import sys
from pathlib import Path
from pytest_dictbench.adapters.capture_cache import CaptureCache
from pytest_dictbench.model import Case, Suite
ids = [f"c{i}" for i in range(1, 41)]
suite = Suite(id="mini", version="1", title="t", method="error_rate", locale="en-US",
              canary="X", root=Path("."), cases=tuple(Case(c, {"id": c}) for c in ids))
cache = CaptureCache(Path(sys.argv[1]), suite)
round_ = 0
while True:
    round_ += 1
    for case in ids:  # appends first, then rewrites (a recapture replaces its line)
        cache.put({"case_id": case, "repetition": 1, "status": "complete",
                   "text": f"round {round_} " + "w " * 2000})
    print(round_, flush=True)
"""


def test_twenty_random_kills_of_a_capture_cache_writer_leave_a_readable_cache(
        tmp_path: Path) -> None:
    from pytest_dictbench.adapters.capture_cache import CaptureCache
    from pytest_dictbench.model import Case, Suite

    ids = [f"c{i}" for i in range(1, 41)]
    suite = Suite(id="mini", version="1", title="t", method="error_rate", locale="en-US",
                  canary="X", root=Path("."), cases=tuple(Case(c, {"id": c}) for c in ids))
    path = tmp_path / "mini.jsonl"
    rng = random.Random(20261202)
    for _trial in range(20):
        writer = subprocess.Popen([sys.executable, "-c", _CACHE_WRITER, str(path)],
                                  stdout=subprocess.PIPE, text=True, start_new_session=True)
        time.sleep(rng.uniform(0.05, 0.6))
        os.killpg(writer.pid, signal.SIGKILL)
        writer.wait()
        outputs = CaptureCache(path, suite).read()  # a torn last line is ignored
        assert all(o.text.startswith("round ") for o in outputs.values())
    cache = CaptureCache(path, suite)
    cache.put({"case_id": "c1", "repetition": 1, "status": "complete", "text": "last"})
    assert cache.read()[("c1", 1)].text == "last"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == []
