"""Report files are written as one set: all new or all old, with a clear error."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import resource
import signal
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_dictbench.files import atomic_write_set

REPORTS = ("dictbench.json", "items.jsonl", "dictbench.md", "dictbench.html", "run-info.json")


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` made read-only: by its mode, or (as root, whom modes do not stop) by a
    read-only tmpfs mounted over it holding a copy of its files."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    files = snapshot(folder)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)],
                      capture_output=True).returncode != 0:
        pytest.skip("running as root and cannot mount a read-only tmpfs")
    try:
        for name, data in files.items():
            (folder / name).write_bytes(data)
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_read_only_report_folder(mini: pytest.Pytester) -> None:
    mini.runpytest("--product=p1")
    reports = mini.path / "reports"
    before = snapshot(reports)
    with read_only(reports):
        result = mini.runpytest("--product=p1", "--junitxml=junit.xml")
        after = snapshot(reports)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*dictbench ERROR: */reports: cannot write the reports: "
                                 "*; no report file was changed*"])
    result.stdout.no_fnmatch_line("*Traceback*")
    assert after == before
    cases = ET.parse(mini.path / "junit.xml").getroot().iter("testcase")
    ends = [c for c in cases if c.get("name") == "session-end-1"]
    assert len(ends) == 1 and ends[0].find("failure") is not None


def test_report_option_naming_a_file(mini: pytest.Pytester) -> None:
    (mini.path / "out.txt").write_text("keep me")
    result = mini.runpytest("--product=p1", "--dictbench-report=out.txt",
                            "--junitxml=junit.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*dictbench ERROR: */out.txt: the report folder is not a "
                                 "folder (a file has that name); no report was written"])
    assert (mini.path / "out.txt").read_text() == "keep me"
    assert (mini.path / "junit.xml").is_file()


def _limit_file_size(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_full_disk_while_writing_keeps_the_old_set(mini: pytest.Pytester) -> None:
    mini.runpytest("--product=p1")
    reports = mini.path / "reports"
    before = snapshot(reports)
    # files may grow to a third of the HTML report: the new set fails part-way through
    limit = len(before["dictbench.html"]) // 3
    assert max(len(before[n]) for n in REPORTS if n != "dictbench.html") < limit
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--product=p1",
         "--dictbench-resamples=200", "--junitxml=junit.xml"],
        cwd=mini.path, capture_output=True, text=True, preexec_fn=lambda: _limit_file_size(limit),
        timeout=300)
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout
    assert "cannot write the reports: File too large; no report file was changed" in \
        result.stdout
    assert snapshot(reports) == before  # every old file, no new one, no temporary left
    assert (mini.path / "junit.xml").is_file()


def _write_sets(folder: str, token: str, rounds: int) -> None:
    for i in range(rounds):
        payload = f"{token}-{i}\n" + "x" * 20000 * (1 + i % 3)
        atomic_write_set(Path(folder), {name: payload for name in REPORTS})


def test_concurrent_writers_never_mix_their_sets(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    for _ in range(10):
        folder = tmp_path / uuid.uuid4().hex
        writers = [context.Process(target=_write_sets, args=(str(folder), token, 5))
                   for token in ("a", "b")]
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join(timeout=60)
            assert writer.exitcode == 0
        contents = {(folder / name).read_text() for name in REPORTS}
        assert len(contents) == 1
        assert sorted(p.name for p in folder.iterdir()) == sorted(REPORTS)
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_failed_set_leaves_no_temporary_file(tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    atomic_write_set(folder, {"a.txt": "old a", "b.txt": "old b"})
    with pytest.raises(FileNotFoundError):  # the second file cannot be written
        atomic_write_set(folder, {"a.txt": "new a", "nowhere/b.txt": "new b"})
    assert (folder / "a.txt").read_text() == "old a"
    assert sorted(p.name for p in folder.iterdir()) == ["a.txt", "b.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]
