"""``leak-check`` gaps a review of the first pass found: the private suite's secret
(never created by leak-check, reported wherever git sees it, a clear error on a
read-only checkout), draft cases, unreadable folders, paths under the home folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_workbench_leakcheck import CANARY, REFERENCE, private_suite

from pytest_dictbench.cli import main
from pytest_dictbench.private import SECRET_FILE
from pytest_dictbench.workbench import leakwalk
from pytest_dictbench.workbench.leakcheck import leak_check

DRAFT_TEXT = ("Ask Marguerite whether the Lisbon warehouse lease can be signed before the "
              "auditors arrive next Tuesday.")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def kinds(findings: list) -> set[tuple[str, str]]:
    return {(Path(f.path).name, f.kind) for f in findings}


def test_leak_check_neither_needs_nor_creates_the_secret(tmp_path: Path) -> None:
    """Review defect 4: a suite hashed before secrets existed has none; leak-check still
    finds its text and leaves the folder as it was."""
    suite = private_suite(tmp_path)
    (suite / SECRET_FILE).unlink()
    (tmp_path / "notes.md").write_text(f"{REFERENCE}\n", encoding="utf-8")
    found = leak_check([tmp_path])
    assert ("notes.md", "private-text") in kinds(found)
    assert not (suite / SECRET_FILE).exists()


def _read_only(folder: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with ``folder`` bind-mounted read-only (a private mount namespace)."""
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False) \
        if shutil.which("unshare") else None
    if probe is None or probe.returncode != 0:
        pytest.skip("cannot make a read-only mount here (unshare -m)")
    shell = (f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} "
             f"&& exec {sys.executable} -c \"$0\"")
    return subprocess.run(["unshare", "-m", "sh", "-c", shell, script], capture_output=True,
                          text=True, check=False, timeout=120)


def test_a_secret_that_cannot_be_created_is_a_clear_error(tmp_path: Path) -> None:
    """Review defect 4: on a read-only checkout, creating the secret fails with a
    SuiteError naming the file and saying how to make it, never a traceback; leak-check
    works there."""
    suite = private_suite(tmp_path)
    (suite / SECRET_FILE).unlink()
    (tmp_path / "notes.md").write_text(f"{REFERENCE}\n", encoding="utf-8")
    script = f"""
from pathlib import Path
from pytest_dictbench.errors import SuiteError
from pytest_dictbench.private import suite_secret
from pytest_dictbench.workbench.leakcheck import leak_check
try:
    suite_secret(Path({str(suite)!r}))
except SuiteError as exc:
    print("ERROR", exc)
print("FOUND", sorted({{f.kind for f in leak_check([Path({str(tmp_path)!r})])}}))
"""
    run = _read_only(tmp_path, script)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert SECRET_FILE in run.stdout and "dictbench hash" in run.stdout
    assert "read-only" in run.stdout.lower()
    assert "FOUND ['private-text']" in run.stdout
    assert not (suite / SECRET_FILE).exists()


def test_a_secret_git_would_see_is_reported(tmp_path: Path) -> None:
    """Review defect 5: the suite folder is not ignored, so git would commit its
    secret: an ordinary leak-check says so (not only ``--staged``)."""
    git(tmp_path, "init", "-q")
    private_suite(tmp_path)
    assert ("." + SECRET_FILE.lstrip("."), "private-suite-secret") in kinds(
        leak_check([tmp_path]))
    # ignored (as docs/workbench.md says to keep it), it is not reported
    (tmp_path / ".gitignore").write_text(f"{SECRET_FILE}\n")
    assert (SECRET_FILE, "private-suite-secret") not in kinds(leak_check([tmp_path]))


def test_draft_cases_of_a_private_suite_are_searched(tmp_path: Path) -> None:
    """Review defect 6: a private suite's cases are drafts (``dictbench draft
    --private``): their text and audio are looked for all the same."""
    suite = private_suite(tmp_path)
    rows = [json.loads(x) for x in (suite / "cases.jsonl").read_text().splitlines()]
    rows.append({"id": "c3", "canary": CANARY, "status": "draft", "reference": DRAFT_TEXT,
                 "audio": "audio/c1.wav", "key_points": []})
    rows[0]["status"] = "draft"
    (suite / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "notes.md").write_text(f"todo: {DRAFT_TEXT.lower()}\n", encoding="utf-8")
    shutil.copy(suite / "audio" / "c1.wav", tmp_path / "copy.wav")
    found = kinds(leak_check([tmp_path]))
    assert {("notes.md", "private-text"), ("copy.wav", "private-audio")} <= found


def test_an_unreadable_folder_is_a_finding(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Review defect 7: a folder that cannot be listed is never skipped silently."""
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "config.py").write_text("x = 1\n")
    if os.geteuid() == 0:  # root reads any folder: a bind mount over it denies nothing,
        pytest.skip("root can list a folder of mode 000")  # see the test below
    locked.chmod(0)
    try:
        assert ("locked", "unreadable") in kinds(leak_check([tmp_path]))
        assert main(["leak-check", str(tmp_path)]) == 1
        assert "unreadable" in capsys.readouterr().out
    finally:
        locked.chmod(0o755)


def test_an_unlistable_folder_is_a_finding_as_root(tmp_path: Path) -> None:
    """Review defect 7, where mode 000 stops no one: a folder whose listing fails (a
    FIFO cannot stand in for a folder, so a folder path that is not one is listed)."""
    (tmp_path / "readme.md").write_text("hello\n")
    names = list(leakwalk._listing(tmp_path / "missing-folder"))
    assert names == [("", "cannot list the folder (No such file or directory)")]
    entries = list(leakwalk.walk(tmp_path, False, []))
    assert [e.kind for e in entries] == ["file"]


def test_paths_under_home_are_checked_relative_to_the_scanned_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Review defect 11: ``leak-check ~/project`` does not flag every name as a
    home path, and prints paths relative to the folder it scans."""
    project = tmp_path / "alice" / "project"
    project.mkdir(parents=True)
    (project / "README.md").write_text("hello\n")
    (project / "paths.py").write_text(f"DATA = '{tmp_path}/alice/data.wav'\n")
    home = str(tmp_path / "alice")
    found = leak_check([project], home=home)
    assert [(f.path, f.line, f.kind) for f in found] == [("paths.py", 1, "home-path")]
    assert main(["leak-check", str(project), "--home", home]) == 1
    out = capsys.readouterr().out
    assert "paths.py:1: home-path" in out and "README.md" not in out


@pytest.mark.parametrize(("codec", "offset"), [("utf-16-le", 0), ("utf-16-le", 1),
                                                ("utf-16-be", 0), ("utf-16-be", 1)])
def test_a_large_file_still_finds_utf16_keys(tmp_path: Path, codec: str, offset: int) -> None:
    """Review defect 9: the large-file scan looks for UTF-16 keys without decoding each
    chunk (speed: benchmarks/bench_leakcheck_large.py); a key in either byte order and
    alignment, across a chunk boundary, is still found; zeros alone are clean."""
    from pytest_dictbench.workbench import leakcheck as lc

    key = "sk-ant-" + "api03-" + "Q7" * 48
    size = lc._MAX_TEXT_BYTES + 3 * lc._CHUNK
    big = tmp_path / "big.bin"
    with big.open("wb") as out:
        out.truncate(size)
        out.seek(lc._MAX_TEXT_BYTES + lc._CHUNK - 50 + offset)  # across a boundary
        out.write(key.encode(codec))
    assert kinds(leak_check([big])) == {("big.bin", "anthropic-key")}
    (tmp_path / "zeros.bin").write_bytes(bytes(size))
    assert leak_check([tmp_path / "zeros.bin"]) == []


STAGED_RSS = """
import resource, sys
from pathlib import Path
from pytest_dictbench.workbench.leakcheck import leak_check
found = leak_check([Path(sys.argv[1])], staged=True)
print(sorted({(f.path, f.kind) for f in found}))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def test_staged_blobs_are_streamed_in_bounded_memory(tmp_path: Path) -> None:
    """Review defect 8: a 120 MiB staged file is read from git in chunks (peak memory
    no higher than for a tiny one, within 60 MiB), and a key near its end is found."""
    def run(folder: Path) -> tuple[str, int]:
        done = subprocess.run([sys.executable, "-c", STAGED_RSS, str(folder)],
                              capture_output=True, text=True, check=True, timeout=300)
        found, rss = done.stdout.splitlines()
        return found, int(rss)

    key = "sk-ant-" + "api03-" + "Q7" * 48
    small, big = tmp_path / "small", tmp_path / "big"
    for folder, size in ((small, 1000), (big, 120 * 1024 * 1024)):
        folder.mkdir()
        git(folder, "init", "-q")
        with (folder / "data.bin").open("wb") as out:
            out.truncate(size)
            out.seek(size - 500)
            out.write(f"\nkey={key}\n".encode())
        git(folder, "add", "data.bin")
    found_small, rss_small = run(small)
    found_big, rss_big = run(big)
    assert found_small == found_big == "[('data.bin', 'anthropic-key')]"
    assert rss_big < rss_small + 60
