"""The plugin records every run in the results store (issue 42): once, on the xdist
controller, after the report set is written, which stays the same bytes with or
without a store; a store that cannot be written fails the run and leaves the reports."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from pytest_dictbench.store import StoreError, open_store, store_location

REPORT_FILES = ("dictbench.json", "items.jsonl", "dictbench.md", "dictbench.html")


def _store(pytester: pytest.Pytester, path: str = ".dictbench/store.sqlite"):
    return open_store(store_location(path, pytester.path))


def test_reports_are_the_same_bytes_with_or_without_a_store(mini: pytest.Pytester) -> None:
    mini.runpytest("--product=p1", "--dictbench-store=off")
    assert not (mini.path / ".dictbench").exists()  # off: no store made
    without = {n: (mini.path / "reports" / n).read_bytes() for n in REPORT_FILES}
    result = mini.runpytest("--product=p1")
    result.stdout.fnmatch_lines(["dictbench: recorded run * in */.dictbench/store.sqlite"])
    reports = mini.path / "reports"
    assert {n: (reports / n).read_bytes() for n in REPORT_FILES} == without
    store = _store(mini)
    [run] = store.runs()
    assert store.report(run.run_id) == (reports / "dictbench.json").read_text(encoding="utf-8")
    assert store.run_info(run.run_id) == (reports / "run-info.json").read_text(encoding="utf-8")
    assert store.item_lines(run.run_id) == \
        (reports / "items.jsonl").read_text(encoding="utf-8").splitlines()
    assert (run.suites, run.products, run.items, run.complete, run.source) == \
        ({"mini": "1.0"}, ["p1"], 4, True, "run")
    assert run.started_utc <= run.finished_utc and run.cohort and run.environment["hardware"]
    assert "--product=p1" in run.options
    [summary] = store.summaries("mini", "p1")
    report = json.loads(without["dictbench.json"])
    assert summary.score == report["suites"][0]["products"][0]["score"]


def test_an_xdist_run_is_recorded_once(mini: pytest.Pytester) -> None:
    mini.runpytest("--product=p1", "-n", "2", "--dictbench-store=runs.db")
    store = _store(mini, "runs.db")
    [run] = store.runs()
    assert run.items == 4 and len(store.items(run.run_id)) == 4


def test_an_ini_store_and_a_stopped_run(mini: pytest.Pytester) -> None:
    mini.makeini("[pytest]\ndictbench_suites = cases/mini\ndictbench_store = db/s.sqlite\n")
    mini.runpytest("--product=p1", "-x")  # c3 fails: the run stops there
    [run] = _store(mini, "db/s.sqlite").runs()
    assert not run.complete and run.stop_reason
    assert run.items == 4  # the items not run are recorded as the report lists them


def test_an_unreachable_store_fails_the_run_and_keeps_the_reports(mini: pytest.Pytester
                                                                   ) -> None:
    pytest.importorskip("psycopg")
    password = "Hunter2-Very-Secret"
    url = f"postgresql://bench:{password}@127.0.0.1:1/runs"  # nothing listens on port 1
    result = mini.runpytest("--product=p1", f"--dictbench-store={url}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*dictbench ERROR: the run was not recorded in the results "
                                 "store postgresql://bench:<redacted>@127.0.0.1:1/runs*"])
    assert (mini.path / "reports/dictbench.json").is_file()
    assert password not in result.stdout.str()
    for name in (*REPORT_FILES, "run-info.json"):
        assert password not in (mini.path / "reports" / name).read_text(encoding="utf-8")
    assert "postgresql://bench:<redacted>@" in \
        (mini.path / "reports/run-info.json").read_text(encoding="utf-8")


def test_gate_against_the_stores_latest_and_official_run(mini: pytest.Pytester,
                                                         write_product) -> None:
    first = mini.runpytest("--product=p1")
    first.assert_outcomes(passed=2, failed=1, skipped=1)
    shutil.copytree(mini.path / "reports", mini.path / "folder")
    folder = mini.runpytest("--product=p1", "--dictbench-baseline=folder",
                            "--dictbench-allow-missing")
    latest = mini.runpytest("--product=p1", "--dictbench-baseline=store:latest",
                            "--dictbench-allow-missing")
    assert folder.ret == latest.ret == pytest.ExitCode.TESTS_FAILED  # c3 fails either way
    reports = mini.path / "reports"
    gate = json.loads((reports / "dictbench.json").read_text())["gate"]
    assert gate["passed"] is True and gate["verdicts"][0]["product"] == "p1"
    write_product(outputs=[{"case_id": "c1", "text": "nothing alike at all here"},
                           {"case_id": "c2", "text": "wrong words"},
                           {"case_id": "c3", "text": "The meeting moved to a room for."}])
    worse = mini.runpytest("--product=p1", "--dictbench-baseline=store:latest",
                           "--dictbench-allow-missing", "--dictbench-max-drop-abs=10")
    worse.stdout.fnmatch_lines(["*dictbench gate FAILED: mini/p1: score dropped*"])
    result = mini.runpytest("--product=p1", "--dictbench-baseline=store:official")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no official run is declared for p1*"])


def test_an_unknown_store_run_is_a_usage_error(mini: pytest.Pytester) -> None:
    result = mini.runpytest("--product=p1", "--dictbench-baseline=store:nosuchrun")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no run 'nosuchrun' in the store*"])
    off = mini.runpytest("--product=p1", "--dictbench-baseline=store:latest",
                         "--dictbench-store=off")
    off.stderr.fnmatch_lines(["*needs a results store, and --dictbench-store is off*"])


def test_a_file_that_is_no_store_is_named(mini: pytest.Pytester) -> None:
    Path(mini.path / "notes.db").write_text("plain words, not a database\n" * 40)
    result = mini.runpytest("--product=p1", "--dictbench-store=notes.db")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*not recorded in the results store*notes.db*not a dictbench "
                                 "results store*"])
    assert (mini.path / "reports/dictbench.json").is_file()


def test_the_git_commit_is_recorded_and_a_ref_names_a_baseline(mini: pytest.Pytester
                                                               ) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}

    def run_git(*args: str) -> str:
        import os
        import subprocess

        return subprocess.run([git, *args], cwd=mini.path, check=True, capture_output=True,
                              text=True, env={**os.environ, **env}).stdout.strip()

    run_git("init", "-q")
    (mini.path / ".gitignore").write_text("reports/\n.dictbench/\n")
    run_git("add", "-A")
    run_git("commit", "-q", "-m", "first")
    run_git("tag", "v1")
    head = run_git("rev-parse", "HEAD")
    mini.runpytest("--product=p1")
    (mini.path / "cases/mini/extra.txt").write_text("an uncommitted change\n")
    run_git("add", "cases/mini/extra.txt")
    mini.runpytest("--product=p1")
    first, second = _store(mini).runs()
    assert (first.git_commit, first.git_dirty) == (head, False)
    assert (second.git_commit, second.git_dirty) == (head, True)
    gated = mini.runpytest("--product=p1", "--dictbench-baseline=store:v1",
                           "--dictbench-allow-missing")
    gated.stdout.fnmatch_lines(["*dictbench summary*"])
    assert "gate FAILED" not in gated.stdout.str()
    report = json.loads((mini.path / "reports/dictbench.json").read_text())
    assert report["gate"]["passed"] is True and report["baseline"]["comparisons"]


def _pages(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return int(conn.execute("PRAGMA page_count").fetchone()[0])


def test_a_full_store_fails_the_run_and_keeps_the_reports_and_earlier_runs(
        mini: pytest.Pytester) -> None:
    """Disk full (issue 42): the store fills up halfway through writing a run (SQLite's
    own limit, ``?max_pages=N``, fails the write as a full disk does): the report set is
    written, the run exits non-zero with one line naming the store error, and the
    earlier runs read back whole, with no trace of a half run."""
    for _ in range(2):
        mini.runpytest("--product=p1")
    store_file = mini.path / ".dictbench" / "store.sqlite"
    assert not Path(f"{store_file}-wal").exists()  # closed cleanly: one file holds it all
    earlier = _store(mini)
    runs = earlier.runs()
    kept = {r.run_id: earlier.item_lines(r.run_id) for r in runs}
    earlier.close()
    # how many pages a run takes, measured on a copy; the real store gets half of them
    shutil.copyfile(store_file, mini.path / "copy.sqlite")
    mini.runpytest("--product=p1", "--dictbench-store=copy.sqlite")
    needed = _pages(mini.path / "copy.sqlite") - _pages(store_file)
    assert needed >= 2
    shutil.rmtree(mini.path / "reports")
    cap = _pages(store_file) + needed // 2
    result = mini.runpytest("--product=p1", f"--dictbench-store=.dictbench/store.sqlite"
                                            f"?max_pages={cap}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    errors = [line for line in result.stdout.lines if "dictbench ERROR" in line]
    assert len(errors) == 1, result.stdout.str()
    assert "the run was not recorded in the results store" in errors[0]
    assert f"{store_file}: database or disk is full" in errors[0]
    for name in (*REPORT_FILES, "run-info.json"):
        assert (mini.path / "reports" / name).is_file()
    after = _store(mini)
    assert [r.run_id for r in after.runs()] == [r.run_id for r in runs]
    assert {r.run_id: after.item_lines(r.run_id) for r in runs} == kept
    assert len(after.case_scores("mini", "p1", list(kept))) == 2
    after.close()
    with contextlib.closing(sqlite3.connect(store_file)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM items").fetchone()[0] == \
            sum(len(lines) for lines in kept.values())


def test_a_sqlite_store_location_may_cap_its_pages(tmp_path: Path) -> None:
    assert store_location("runs/s.sqlite?max_pages=40", tmp_path) == \
        f"sqlite:///{tmp_path}/runs/s.sqlite?max_pages=40"
    assert store_location(f"sqlite:///{tmp_path}/s.sqlite?max_pages=7", tmp_path) == \
        f"sqlite:///{tmp_path}/s.sqlite?max_pages=7"
    assert store_location("odd?name.sqlite", tmp_path) == f"sqlite:///{tmp_path}/odd?name.sqlite"
    with pytest.raises(StoreError, match=r"/s\.sqlite: database or disk is full"):
        open_store(store_location("s.sqlite?max_pages=3", tmp_path))  # no room for tables
    store = open_store(store_location("s.sqlite?max_pages=200", tmp_path))
    assert store.location == str(tmp_path / "s.sqlite")  # the file, without the cap
    store.close()
