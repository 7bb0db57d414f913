"""``dictbench synth`` killed with SIGKILL at random points leaves one consistent suite:
the old one byte for byte, or (after the journal of a begun commit is finished by the
next synthesis) the complete new one. Never some cases new and the hashes old."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import CANARY

from pytest_dictbench.audio.staging import JOURNAL, PREFIX, finish_interrupted, new_staging
from pytest_dictbench.cli import main

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                reason="needs espeak-ng (CI installs it)")

SCRIPTS = ["Call me at noon.", "Buy bread and milk.", "The train leaves at six.",
           "Send the report on Monday.", "Water the plants twice a week.",
           "Book a table for four."]


def make_suite(root: Path) -> Path:
    """A six-case English suite whose audio was rendered at -26 LUFS (the old state)."""
    root.mkdir(parents=True)
    (root / "suite.toml").write_text(
        f'id = "mini"\nversion = "1.0"\ntitle = "Mini"\nmethod = "error_rate"\n'
        f'locale = "en-US"\ncanary = "{CANARY}"\n[params]\nthreshold = 0.2\n',
        encoding="utf-8")
    (root / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"s{i}", "reference": text, "canary": CANARY}) + "\n"
        for i, text in enumerate(SCRIPTS, 1)), encoding="utf-8")
    assert main(["synth", str(root), "--lufs", "-26"]) == 0
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the suite but synthesis leftovers, by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not any(part.startswith(PREFIX) for part in p.parts)}


_SYNTH = "import sys; from pytest_dictbench.cli import main; sys.exit(main(sys.argv[1:]))"


def test_random_kills_of_a_synthesis_leave_the_old_suite_or_the_whole_new_one(
        tmp_path: Path) -> None:
    old_root = make_suite(tmp_path / "old")
    old = snapshot(old_root)
    shutil.copytree(old_root, tmp_path / "new")
    start = time.monotonic()
    assert main(["synth", str(tmp_path / "new")]) == 0  # the default -23 LUFS
    span = time.monotonic() - start
    new = snapshot(tmp_path / "new")
    assert new != old
    rng = random.Random(20261203)
    outcomes = []
    # random points, then three kills the moment the first suite file is replaced
    for trial, when in enumerate([rng.uniform(0, span) for _ in range(6)] + [None] * 3):
        root = tmp_path / f"trial{trial}"
        shutil.copytree(old_root, root)
        first = (root / "audio" / "s1.flac").stat().st_ino
        writer = subprocess.Popen([sys.executable, "-c", _SYNTH, "synth", str(root)],
                                  stdout=subprocess.DEVNULL, start_new_session=True)
        if when is not None:
            time.sleep(when)  # where to kill, not a wait for anything
        else:
            while (writer.poll() is None
                   and (root / "audio" / "s1.flac").stat().st_ino == first):
                pass
        os.killpg(writer.pid, signal.SIGKILL)
        writer.wait()
        journals = list((root / "audio").glob(f"{PREFIX}*/{JOURNAL}"))
        if journals:  # the commit had begun: the next synthesis finishes it first
            finish_interrupted(root / "audio")
            assert snapshot(root) == new
            outcomes.append("finished")
        else:
            state = snapshot(root)
            assert state in (old, new), "a killed synthesis left a mixed suite"
            outcomes.append("old" if state == old else "new")
        assert main(["synth", str(root)]) == 0  # and a later synthesis is clean
        assert snapshot(root) == new
        assert not list((root / "audio").glob(f"{PREFIX}*"))
    assert "old" in outcomes  # at least one kill landed while rendering


def test_a_commit_cut_short_is_finished_by_the_next_synthesis(tmp_path: Path) -> None:
    """A journal whose first move was made before the kill: the rest are made, once."""
    audio = tmp_path / "audio"
    audio.mkdir()
    (audio / "a.flac").write_bytes(b"old a")
    (audio / "b.flac").write_bytes(b"old b")
    (tmp_path / "cases.jsonl").write_text("old cases\n")
    staging = new_staging(audio)
    (staging / "b.flac").write_bytes(b"new b")
    (staging / "cases.jsonl").write_text("new cases\n")
    (staging / JOURNAL).write_text(json.dumps({"moves": [
        ["a.flac", "a.flac"], ["b.flac", "b.flac"], ["cases.jsonl", "../cases.jsonl"]]}))
    (audio / "a.flac").write_bytes(b"new a")  # this move happened before the kill
    (audio / f"{PREFIX}stale").mkdir()  # a render killed before its commit: swept
    finish_interrupted(audio)
    assert [(audio / n).read_bytes() for n in ("a.flac", "b.flac")] == [b"new a", b"new b"]
    assert (tmp_path / "cases.jsonl").read_text() == "new cases\n"
    assert sorted(p.name for p in audio.iterdir()) == ["a.flac", "b.flac"]
