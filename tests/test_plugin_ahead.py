"""Scoring ahead (``plugin/ahead.py``): a serial run scores cached items a block at a
time, and every item still passes, fails, errs or skips in its own phase with the same
record as when it is scored in its turn (an xdist worker scores in turn)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from support import ECHO_ADAPTER

from pytest_dictbench.plugin import session as session_module
from pytest_dictbench.plugin.session import DictbenchSession
from pytest_dictbench.report.helper import ReportHelper

#: A method that logs each scoring, and the start of each item, to ``trace.log``; case
#: ``boom`` makes it raise. The ``echo`` adapter (not cached: scored in turn) for contrast.
CONFTEST = '''
from pathlib import Path
from pytest_dictbench.model import ItemResult

LOG = Path(__file__).parent / "trace.log"

def log(line):
    with LOG.open("a") as out:
        out.write(line + "\\n")

class Traced:
    name = "traced"
    case_schema = None
    def score(self, case, output, ctx):
        log(f"score {case.id}")
        if case.id == "boom":
            raise ZeroDivisionError("the method broke on boom")
        ok = output.text == case.get("reference")
        return ItemResult(passed=ok, score=100.0 if ok else 0.0,
                          message="" if ok else "differs")
    def aggregate(self, records, suite):
        return {"summary": {"right": sum(r["status"] == "passed" for r in records)}}

def pytest_dictbench_methods():
    return [Traced()]

def pytest_runtest_logstart(nodeid, location):
    log("start " + nodeid.rsplit("::", 1)[1].split("[")[0])
''' + ECHO_ADAPTER

CASES = [{"id": f"a{i}", "reference": "same words"} for i in range(1, 5)]
#: Every outcome an item can have, one case each.
MIXED = [{"id": i, "reference": "same words"}
         for i in ("ok", "wrong", "none", "broken", "boom", "gave-up")]
MIXED_OUTPUTS = [
    {"case_id": "ok", "text": "same words"},
    {"case_id": "wrong", "text": "other words"},
    {"case_id": "broken", "text": "", "status": "error", "error": "HTTP 500"},
    {"case_id": "boom", "text": "same words"},
    {"case_id": "gave-up", "text": "", "status": "failed", "error": "timed out"},
]


@pytest.fixture
def project(pytester: pytest.Pytester, write_suite: Callable[..., Path],
            write_product: Callable[..., Path]) -> Callable[..., pytest.Pytester]:
    def make(cases: list[dict], outputs: list[dict]) -> pytest.Pytester:
        pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
        pytester.makeconftest(CONFTEST)
        write_suite(cases=cases, method="traced", params="")
        write_product("cached", outputs=outputs)
        write_product("echo", toml='name = "echo"\nversion = "1"\nadapter = "echo"\n')
        return pytester
    return make


def trace(project: pytest.Pytester) -> list[str]:
    lines = (project.path / "trace.log").read_text().splitlines()
    (project.path / "trace.log").unlink()
    return lines


def test_cached_items_are_scored_a_block_at_a_time_and_live_ones_in_turn(project) -> None:
    run = project(CASES, [{"case_id": c["id"], "text": "same words"} for c in CASES])
    run.runpytest("--product=cached", "-p", "no:cacheprovider").assert_outcomes(passed=4)
    assert trace(run) == ["start a1", "score a1", "score a2", "score a3", "score a4",
                          "start a2", "start a3", "start a4"]
    run.runpytest("--product=echo", "-p", "no:cacheprovider").assert_outcomes(passed=4)
    assert trace(run) == [f"{step} {c['id']}" for c in CASES for step in ("start", "score")]


def test_items_scored_ahead_end_as_items_scored_in_turn(project) -> None:
    """Each outcome (pass, gate failure, no output, output error, a method that raises,
    a failed run) in the phase it belongs to, with the records and reports of a run
    whose items are scored in turn (xdist's worker)."""
    run = project(MIXED, MIXED_OUTPUTS)

    def outcome(*args: str) -> tuple[dict[str, str], tuple[bytes, ...]]:
        result = run.runpytest_subprocess("--product=cached", "-p", "no:cacheprovider",
                                          "--junitxml=junit.xml", *args)
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        assert "the method broke on boom" in result.stdout.str()
        ends = {}
        for case in ET.parse(run.path / "junit.xml").iter("testcase"):
            marks = [child.tag for child in case if child.tag in ("failure", "error",
                                                                  "skipped")]
            ends[case.get("name", "").split("[")[0]] = "/".join(marks) or "passed"
        reports = run.path / "reports"
        return ends, tuple((reports / name).read_bytes()
                           for name in ("items.jsonl", "dictbench.json", "dictbench.md"))

    ends, serial = outcome("-p", "no:xdist")
    assert ends == {"ok": "passed", "wrong": "failure", "none": "skipped",
                    "broken": "error", "boom": "failure", "gave-up": "failure"}
    assert outcome("-n", "1") == (ends, serial)
    statuses = {r["case_id"]: r["status"] for r in map(json.loads, serial[0].splitlines())}
    assert statuses == {"ok": "passed", "wrong": "failed", "none": "not_tested",
                        "broken": "error", "boom": "error", "gave-up": "error"}


def test_items_scored_ahead_but_never_run_are_recorded_as_not_run(project) -> None:
    run = project(CASES, [{"case_id": c["id"], "text": "off" if c["id"] == "a2"
                           else "same words"} for c in CASES])
    result = run.runpytest_subprocess("--product=cached", "-p", "no:cacheprovider", "-x")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert trace(run) == ["start a1", "score a1", "score a2", "score a3", "score a4",
                          "start a2"]
    lines = (run.path / "reports" / "items.jsonl").read_text().splitlines()
    records = {r["case_id"]: r for r in map(json.loads, lines)}
    assert [records[c]["status"] for c in ("a1", "a2", "a3", "a4")] == [
        "passed", "failed", "not_tested", "not_tested"]
    assert all("not run: the run stopped" in records[c]["message"] for c in ("a3", "a4"))
    assert records["a3"]["text"] is None and records["a3"]["score"] is None


def test_a_large_run_scored_ahead_asks_for_its_intervals_before_the_report_build(
        mini: pytest.Pytester, write_product: Callable[..., Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every item scored ahead: the report helper gets each product's interval while the
    last items run, once (the report build finds it asked), and the reports are the
    bytes of a run without a helper."""
    write_product("p2")
    events: list[str] = []
    send, write_reports = ReportHelper._send, DictbenchSession._write_reports
    monkeypatch.setattr(ReportHelper, "_send", lambda self, name, args: (
        events.append(name), send(self, name, args))[1])
    monkeypatch.setattr(DictbenchSession, "_write_reports", lambda self, *args: (
        events.append("report build"), write_reports(self, *args))[1])

    def reports(helper_from: int) -> tuple[bytes, ...]:
        monkeypatch.setattr(session_module, "HELPER_ITEMS", helper_from)
        mini.runpytest("--product=p1", "--product=p2", "--dictbench-item-failures=report",
                       "-p", "no:cacheprovider").assert_outcomes(passed=7, skipped=1)
        return tuple((mini.path / "reports" / name).read_bytes()
                     for name in ("dictbench.json", "dictbench.md", "items.jsonl"))

    alone = reports(10**9)  # no helper
    assert "mean_ci" not in events
    events.clear()
    assert reports(8) == alone  # this run is "large"
    asked = [i for i, name in enumerate(events) if name == "mean_ci"]
    assert len(asked) == 2 and max(asked) < events.index("report build")


RERUN = '''
from _pytest.runner import runtestprotocol

def pytest_runtest_protocol(item, nextitem):
    """Item a2 runs twice, as a rerun plugin runs it."""
    if "::a2[" not in item.nodeid:
        return None
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for _ in range(2):
        runtestprotocol(item, nextitem=nextitem, log=True)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True
'''


def test_an_item_run_again_is_scored_again_in_its_turn(project) -> None:
    run = project(CASES, [{"case_id": c["id"], "text": "same words"} for c in CASES])
    run.makeconftest(CONFTEST + RERUN)
    run.runpytest("--product=cached", "-p", "no:cacheprovider").assert_outcomes(passed=5)
    assert trace(run) == ["start a1", "score a1", "score a2", "score a3", "score a4",
                          "start a2", "score a2", "start a3", "start a4"]
    lines = (run.path / "reports" / "items.jsonl").read_text().splitlines()
    assert [json.loads(line)["case_id"] for line in lines] == ["a1", "a2", "a3", "a4"]


SKIP_BEFORE_SETUP = '''
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        if "::a2[" in item.nodeid:
            item.add_marker(pytest.mark.skip(reason="not today"))

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if "::a3[" in item.nodeid:
        pytest.skip("a plugin's own reason")
'''


def test_an_item_skipped_before_its_setup_leaves_no_record_of_its_own(project) -> None:
    """A skip marker keeps an item out of its block; a plugin that skips an item before
    its setup leaves its evaluation unused: neither item is recorded as scored."""
    run = project(CASES, [{"case_id": c["id"], "text": "same words"} for c in CASES])
    run.makeconftest(CONFTEST + SKIP_BEFORE_SETUP)
    # each skipped item twice: in its setup, and as not run (it left no record)
    run.runpytest("--product=cached", "-p", "no:cacheprovider").assert_outcomes(
        passed=2, skipped=4)
    assert trace(run) == ["start a1", "score a1", "score a3", "score a4", "start a2",
                          "start a3", "start a4"]
    lines = (run.path / "reports" / "items.jsonl").read_text().splitlines()
    records = {r["case_id"]: r for r in map(json.loads, lines)}
    assert [records[c]["status"] for c in ("a1", "a2", "a3", "a4")] == [
        "passed", "not_tested", "not_tested", "passed"]
    assert records["a3"]["score"] is None and records["a2"]["score"] is None


def test_setup_only_scores_nothing_ahead(project) -> None:
    """``--setup-only`` runs setups and no calls: nothing is scored, as in turn."""
    run = project(CASES, [{"case_id": c["id"], "text": "same words"} for c in CASES])
    run.runpytest("--product=cached", "-p", "no:cacheprovider", "--setup-only")
    assert not any(line.startswith("score") for line in trace(run))
    lines = (run.path / "reports" / "items.jsonl").read_text().splitlines()
    assert all(json.loads(line)["score"] is None for line in lines)
