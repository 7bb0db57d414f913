"""The results store on both backends: a run recorded whole and read back as written,
bad stores refused, a killed writer leaving nothing, two writers both landing, official
runs and gate baselines (issue 42). The same tests run on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_support import POSTGRES_ENV, facts, lines, put, record, report_for, store_url

from pytest_dictbench.store import (
    Condition,
    StoreError,
    open_store,
    redact_url,
    store_location,
)
from pytest_dictbench.store.baseline import load_store_baseline
from pytest_dictbench.store.migrations import SCHEMA_VERSION
from pytest_dictbench.store.official import declare_official


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from store_url(request.param, tmp_path)


@pytest.fixture
def store(url: str) -> Iterator:
    opened = open_store(url)
    yield opened
    opened.close()


RUN = [record("c1", 100.0, text="a b"), record("c2", 40.0, text="x\ny"),
       record("c3", None, status="not_tested", text=None)]


def test_a_run_reads_back_as_written(store) -> None:
    report = json.dumps(report_for(RUN), indent=2) + "\n"
    got = store.record_run(facts("r1", RUN, git_commit="abc123", git_dirty=True,
                                 options=["--product=p1"], cohort="k1"),
                           report, '{"host": "test"}\n', lines(RUN))
    assert got == "r1"
    assert store.report("r1") == report
    assert store.run_info("r1") == '{"host": "test"}\n'
    assert store.item_lines("r1") == [line for _, line in lines(RUN)]
    assert store.items("r1") == RUN
    assert store.items("r1", product="p1", suite="s1")[1]["text"] == "x\ny"
    run = store.run("r")  # a unique prefix names it
    assert (run.run_id, run.git_commit, run.git_dirty, run.items, run.suites, run.products,
            run.cohort, list(run.options)) == \
        ("r1", "abc123", True, 3, {"s1": "1.0"}, ["p1"], "k1", ["--product=p1"])
    [summary] = store.summaries("s1", "p1")
    assert (summary.score, summary.items, summary.passed, summary.failed) == (70.0, 3, 1, 1)
    with pytest.raises(StoreError, match="already recorded"):
        put(store, "r1", RUN)


def test_runs_filter_by_suite_product_version_commit_date_cohort(store) -> None:
    put(store, "r1", RUN, finished="2026-11-01T10:00:00Z", git_commit="aaa1", cohort="x")
    put(store, "r2", [record("c1", 50.0, product="p2")], finished="2026-11-02T10:00:00Z",
        git_commit="bbb2", version="2.0", cohort="y")
    put(store, "r3", RUN, finished="2026-11-03T10:00:00Z", git_commit="aaa3", cohort="x")
    ids = lambda runs: [r.run_id for r in runs]  # noqa: E731
    assert ids(store.runs()) == ["r1", "r2", "r3"]
    assert ids(store.runs(product="p1")) == ["r1", "r3"]
    assert ids(store.runs(suite="s1", suite_version="2.0")) == ["r2"]
    assert ids(store.runs(commit="aaa")) == ["r1", "r3"]
    assert ids(store.runs(since="2026-11-02", until="2026-11-02")) == ["r2"]
    assert ids(store.runs(cohort="x", limit=1)) == ["r3"]
    assert [s.run_id for s in store.summaries("s1", "p1", cohort="x")] == ["r1", "r3"]
    with pytest.raises(StoreError, match="no run 'zz'"):
        store.run("zz")
    with pytest.raises(StoreError, match="more than one run"):
        store.run("r")


def test_a_private_suite_keeps_no_text(store) -> None:
    private = [record("p-1", 90.0, suite="secret", text=None)]
    put(store, "r1", private, private=("secret",))
    assert store.items("r1")[0]["text"] is None
    leaking = [record("p-1", 90.0, suite="secret", text="the words")]
    with pytest.raises(StoreError, match="private suite secret carries its output text"):
        put(store, "r2", leaking, private=("secret",))
    assert [r.run_id for r in store.runs()] == ["r1"]  # nothing of r2 was kept


def test_a_corrupt_row_refuses_that_run_only(store, url: str) -> None:
    put(store, "good", RUN)
    put(store, "bad", RUN)
    with store.backend.engine.begin() as conn:  # damage one item row behind its back
        conn.exec_driver_sql("UPDATE items SET record = '{broken' WHERE ordinal = 1 AND "
                             "run = (SELECT id FROM runs WHERE run_id = 'bad')")
    with pytest.raises(StoreError, match="run bad: item 2 is corrupt"):
        store.items("bad")
    assert store.items("good") == RUN


def test_a_newer_schema_is_refused_naming_both_versions(store, url: str) -> None:
    with store.backend.engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO dictbench_schema VALUES "
                             f"({SCHEMA_VERSION + 1}, '2027-01-01T00:00:00Z', 'future')")
    store.close()
    with pytest.raises(StoreError, match=f"schema is version {SCHEMA_VERSION + 1}, newer "
                       f"than version {SCHEMA_VERSION}"):
        open_store(url)


def test_files_that_are_not_stores_are_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.sqlite"
    text.write_text("just some words, long enough to be no database header at all\n" * 20)
    with pytest.raises(StoreError, match="not a dictbench results store"):
        open_store(store_location(str(text), tmp_path))
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE mine (x)")
    with pytest.raises(StoreError, match=r"not a dictbench results store .*mine"):
        open_store(store_location(str(other), tmp_path))


def test_locations_and_password_redaction(tmp_path: Path) -> None:
    assert store_location("off", tmp_path) is None
    assert store_location(None, tmp_path) == \
        f"sqlite:///{tmp_path.resolve()}/.dictbench/store.sqlite"
    assert store_location("sub/s.db", tmp_path) == f"sqlite:///{tmp_path.resolve()}/sub/s.db"
    url = "postgresql://bench:hunter2-secret@db.example:5432/runs"
    assert store_location(url, tmp_path) == url
    assert redact_url(url) == "postgresql://bench:<redacted>@db.example:5432/runs"
    assert redact_url("postgresql://db/x?user=a&password=pw123456") == \
        "postgresql://db/x?user=a&password=<redacted>"


def test_a_malformed_url_is_a_store_error_without_its_password() -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(StoreError, match="not a store location") as caught:
        open_store("postgresql://bench:Sup3r-S3cret-pw@host:notaport/runs")
    assert "Sup3r-S3cret-pw" not in str(caught.value)


def test_an_unreachable_server_is_named_without_its_password() -> None:
    pytest.importorskip("psycopg")
    # a port nothing listens on (1 is privileged and closed here)
    with pytest.raises(StoreError) as caught:
        open_store("postgresql://bench:Sup3r-S3cret-pw@127.0.0.1:1/runs")
    assert "Sup3r-S3cret-pw" not in str(caught.value)
    assert "postgresql://bench:<redacted>@127.0.0.1:1/runs" in str(caught.value)


_WRITER = textwrap.dedent("""
    import json, os, sys
    sys.path.insert(0, {tests!r})
    from store_support import facts, record, report_for
    from pytest_dictbench.store import open_store
    url, run_id, n, die_at = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    store = open_store(url)
    rows = [record(f"c{{i}}", float(i % 100)) for i in range(n)]
    def items():
        for i, r in enumerate(rows):
            if i == die_at:
                os._exit(9)  # killed mid-write: no rollback of our own, no cleanup
            yield r, json.dumps(r)
    store.record_run(facts(run_id, rows), json.dumps(report_for(rows)), "{{}}", items())
    print("landed", run_id)
""")


def _writer(url: str, run_id: str, n: int, die_at: int = -1) -> subprocess.Popen:
    script = _WRITER.format(tests=str(Path(__file__).parent))
    return subprocess.Popen([sys.executable, "-c", script, url, run_id, str(n), str(die_at)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def test_a_killed_writer_leaves_no_half_run(store, url: str) -> None:
    writer = _writer(url, "killed", 6000, die_at=4500)  # after two batches were sent
    assert writer.wait(timeout=120) == 9, writer.stderr.read()
    assert store.runs() == []
    assert store.items  # the store still opens and takes the next run whole
    put(store, "next", RUN)
    assert [r.run_id for r in store.runs()] == ["next"]


def test_two_writers_at_once_both_land(store, url: str) -> None:
    writers = [_writer(url, f"w{i}", 5000) for i in (1, 2)]
    for writer in writers:
        _out, err = writer.communicate(timeout=180)
        assert writer.returncode == 0, err
    assert sorted(r.run_id for r in store.runs()) == ["w1", "w2"]
    assert [len(store.items(r)) for r in ("w1", "w2")] == [5000, 5000]


def test_official_runs_under_a_registered_condition(store) -> None:
    store.register_condition(Condition("s1", "p1", max_items=2, flag="fallback",
                                       registered_utc="2026-11-30T00:00:00Z"))
    with pytest.raises(StoreError, match="registered already"):
        store.register_condition(Condition("s1", "p1", max_items=5, flag="fallback"))
    fb = {"fallback": True}
    put(store, "run1", [record(f"c{i}", 90.0, flags=fb if i < 3 else None) for i in range(6)],
        finished="2026-12-01T00:00:00Z")
    put(store, "run2", [record(f"c{i}", 90.0, flags=fb if i < 1 else None) for i in range(6)],
        finished="2026-12-02T00:00:00Z")
    put(store, "run3", [record(f"c{i}", 80.0, flags=fb if i < 2 else None) for i in range(6)],
        finished="2026-12-03T00:00:00Z")
    with pytest.raises(StoreError, match="stored already"):
        store.register_condition(Condition("s1", "", max_items=1, status="error"))
    with pytest.raises(StoreError, match=r"run1 does not meet .* 3 item\(s\) with flag "
                       r"fallback \(at most 2"):
        declare_official(store, "run1", "p1", "third run, as planned")
    declared = declare_official(store, "run3", "p1", "third run, as planned")
    assert declared.suite == "s1" and declared.condition["max_items"] == 2
    assert [(p["run_id"], p["why"].split(":")[0].split(" (")[0])
            for p in declared.passed_over] == [("run1", "did not meet the condition"),
                                               ("run2", "met the condition")]
    assert store.run("run3").official == [("s1", "p1")]
    assert [d.run_id for d in store.declarations(suite="s1", product="p1")] == ["run3"]
    baseline = load_store_baseline(store, "store:official", ["p1"], lambda ref: None)
    assert baseline.runs == ["run3"] and len(baseline.records) == 6
    assert baseline.versions == {"s1": "1.0"}


def test_store_baselines_latest_run_id_and_git_ref(store) -> None:
    put(store, "r1", RUN, finished="2026-12-01T00:00:00Z", git_commit="c0ffee" * 6 + "abcd")
    put(store, "r2", [record("c1", 10.0, product="p2")], finished="2026-12-02T00:00:00Z")
    latest = load_store_baseline(store, "store:latest", ["p1"], lambda ref: None)
    assert latest.runs == ["r1"] and latest.records == RUN
    assert load_store_baseline(store, "store:r2", ["p2"], lambda ref: None).runs == ["r2"]
    by_ref = load_store_baseline(store, "store:main", ["p1"],
                                 lambda ref: "c0ffee" * 6 + "abcd" if ref == "main" else None)
    assert by_ref.runs == ["r1"]
    with pytest.raises(StoreError, match="no run 'nope'"):
        load_store_baseline(store, "store:nope", ["p1"], lambda ref: None)
    with pytest.raises(StoreError, match="no official run"):
        load_store_baseline(store, "store:official", ["p1"], lambda ref: None)


def test_postgres_tests_fail_in_ci_without_a_server(pytester: pytest.Pytester) -> None:
    """A CI run without the server must not pass by skipping the PostgreSQL tests."""
    pytester.makeconftest(f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})")
    pytester.makepyfile("from store_support import postgres_server\n"
                        "def test_pg():\n    postgres_server()\n")
    env = {k: v for k, v in os.environ.items() if k != POSTGRES_ENV}
    for ci, outcome in (("true", "failed"), ("", "skipped")):
        with pytest.MonkeyPatch.context() as mp:
            for key in list(os.environ):
                if key not in env:
                    mp.delenv(key)
            mp.setenv("CI", ci)
            result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
        result.assert_outcomes(**{outcome: 1})


@pytest.fixture
def pg_url(tmp_path: Path) -> Iterator[str]:
    yield from store_url("postgres", tmp_path)


def test_a_server_gone_mid_write_is_an_error_and_keeps_nothing(pg_url: str) -> None:
    """PostgreSQL drops the connection while a run is written: the store error names the
    store (no password), and no part of the run is kept."""
    psycopg = pytest.importorskip("psycopg")
    store = open_store(pg_url)
    rows = [record(f"c{i}", 50.0) for i in range(5000)]

    def items():
        for i, row in enumerate(rows):
            if i == 3000:  # two batches are on the server: cut this session off
                with psycopg.connect(pg_url, autocommit=True) as admin:
                    admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                  "WHERE datname = current_database() "
                                  "AND pid <> pg_backend_pid()")
            yield row, json.dumps(row)

    with pytest.raises(StoreError, match=r"^postgresql://postgres@127\.0\.0\.1:\d+/"):
        store.record_run(facts("cut", rows), json.dumps(report_for(rows)), "{}", items())
    assert store.runs() == []  # a fresh connection: nothing of the cut run
    store.close()
