"""Live products under pytest-xdist: capture groups stay on one worker, in order, and a
worker killed by its engine makes one error item, named in every report."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest
from adapter_support import live_project

from pytest_dictbench.plugin.collect import split_item_id
from pytest_dictbench.plugin.progress import ProductProgress, format_seconds
from pytest_dictbench.plugin.scheduler import CaptureGroupScheduling

CASES = [{"id": f"c{i}", "reference": "hello there"} for i in range(1, 9)]

#: A transcriber for every product; ``crashy`` kills its process on case c3. The
#: controller logs, from the workers' reports, which worker ran each item, in order.
CONFTEST = '''
import os

def pytest_dictbench_transcriber(product):
    def transcribe(request):
        if product.name == "crashy" and request.case_id == "c3" and not request.warmup:
            os._exit(3)
        return "hello there"
    return transcribe

def pytest_runtest_logreport(report):
    node = getattr(report, "node", None)
    if report.when == "teardown" and node is not None:
        with open("order.log", "a") as log:
            log.write(f"{node.workerinput['workerid']} {report.nodeid}\\n")
'''


@pytest.fixture
def live(pytester: pytest.Pytester, write_suite: Callable[..., Path]) -> pytest.Pytester:
    """Suite ``mini`` (8 cases with audio) and python products a, b, c, d and crashy."""
    return live_project(pytester, write_suite, CASES, CONFTEST, ("a", "b", "c", "d", "crashy"))


def worker_runs(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Per product: (worker, case id) in the order the controller got the reports."""
    runs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for line in path.read_text().splitlines():
        worker, nodeid = line.split(" ", 1)
        case, product = nodeid.split("::")[1].rstrip("]").split("[")
        runs[product].append((worker, case))
    return runs


def test_each_capture_group_runs_on_one_worker_in_order(live: pytest.Pytester) -> None:
    args = [f"--product={p}" for p in "abcd"]
    result = live.runpytest_subprocess(*args, "-n", "2", "-p", "no:cacheprovider",
                                       "--dictbench-no-warmup", timeout=300)
    result.assert_outcomes(passed=32)
    runs = worker_runs(live.path / "order.log")
    assert sorted(runs) == ["a", "b", "c", "d"]
    workers = set()
    for product, run in runs.items():
        assert len({worker for worker, _ in run}) == 1, (product, run)
        assert [case for _, case in run] == [c["id"] for c in CASES], product
        workers.add(run[0][0])
    assert workers == {"gw0", "gw1"}  # and the groups were spread over both workers


def test_a_worker_killed_by_its_engine_gives_one_error_item_and_the_run_ends(
        live: pytest.Pytester) -> None:
    result = live.runpytest_subprocess(
        "--product=crashy", "--product=a", "-n", "2", "-p", "no:cacheprovider",
        "--junitxml=junit.xml", timeout=300)
    assert result.ret == 1
    result.assert_outcomes(passed=15, errors=1)
    result.stdout.fnmatch_lines(["*replacing crashed worker*", "*ERROR at setup of mini::c3*",
                                 "ERROR cases/mini/suite.toml::c3[[]crashy[]]*"])
    reports = live.path / "reports"
    records = [json.loads(line) for line in (reports / "items.jsonl").read_text().splitlines()]
    crashed = [r for r in records if r["status"] == "error"]
    assert [(r["product"], r["case_id"]) for r in crashed] == [("crashy", "c3")]
    assert "crashed while running this item" in crashed[0]["message"]
    assert len(records) == 16  # every other item ran once, on the replacement worker too
    runs = worker_runs(live.path / "order.log")
    # c3's one report comes from the worker that crashed; it was not run again
    assert [case for _, case in runs["crashy"]] == [f"c{i}" for i in range(1, 9)]
    entry = next(e for s in json.loads((reports / "dictbench.json").read_text())["suites"]
                 for e in s["products"] if e["product"] == "crashy")
    assert entry["errors"] == 1
    for name in ("dictbench.md", "dictbench.html"):
        text = (reports / name).read_text()
        assert "c3" in text and "crashed while running this item" in text, name
    junit = (live.path / "junit.xml").read_text()
    assert 'name="c3[crashy]"' in junit and "crashed while running" in junit
    assert '<property name="dictbench.status" value="error"' in junit


def test_group_of_an_item_id_comes_from_its_product() -> None:
    products = ("p1", "p1-r2", "rig")
    assert split_item_id("cases/x/suite.toml::c1[p1]", products) == (
        "cases/x/suite.toml", "c1", "p1", 1)
    assert split_item_id("cases/x/suite.toml::c1[p1-r2]", products)[2:] == ("p1-r2", 1)
    assert split_item_id("cases/x/suite.toml::c1[rig-r3]", products)[2:] == ("rig", 3)
    assert split_item_id("tests/test_x.py::test_y[p1]", products) is None
    assert split_item_id("cases/x/suite.toml::c1[other]", products) is None
    # rig packages: <product>-r<n>, and <product>-<profile>-r<n> outside the default
    rig = "pkg/benchmark-manifest-v1.json"
    assert split_item_id(f"{rig}::dict-en[rig-r3]", products) == (rig, "dict-en", "rig", 3)
    assert split_item_id(f"{rig}::dict-en[p1-local_only-r2]", products)[2:] == ("p1", 2)
    assert split_item_id(f"{rig}::dict-en[p1-r2-quiet-r1]", products)[2:] == ("p1-r2", 1)


def test_scheduler_scopes(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfig("--tx", "2*popen")
    sched = CaptureGroupScheduling(config, None, {"p1": "dictbench:mic", "p2": "dictbench:mic"})
    assert sched._split_scope("cases/x/suite.toml::c1[p1]") == "dictbench:mic"
    assert sched._split_scope("cases/x/suite.toml::c9[p2-r2]") == "dictbench:mic"
    assert sched._split_scope("cases/x/suite.toml::c1[cached]") == \
        "cases/x/suite.toml::c1[cached]"
    assert sched._split_scope("cases/x/suite.toml::c1[p1]@dictbench:p1") == "dictbench:p1"


def test_progress_lines_per_live_product(live: pytest.Pytester) -> None:
    result = live.runpytest("--product=a", "--product=b", "--dictbench-progress=0.000001",
                            "-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=16)
    lines = [line for line in result.outlines if line.startswith("dictbench capture ")]
    assert [line.split(":")[0] for line in lines] == ["dictbench capture a"] * 8 + \
        ["dictbench capture b"] * 8
    result.stdout.fnmatch_lines([
        "dictbench capture a: 1/8 items, 0.1 s audio, RTFx *, about * left",
        "dictbench capture a: 8/8 items, 0.8 s audio, RTFx *, done",
        "dictbench capture b: 8/8 items, 0.8 s audio, RTFx *, done"])
    # -q's summary line intact (a venv may add a warning count, e.g. assertion rewriting)
    assert re.match(r"16 passed(, \d+ warnings?)? in ", result.outlines[-1])
    again = live.runpytest("--product=a", "--dictbench-progress=0.000001", "-p",
                           "no:cacheprovider", "-q")  # every output is cached now
    lines = [line for line in again.outlines if line.startswith("dictbench capture ")]
    assert lines == ["dictbench capture a: 8/8 items (0 captured, 8 cached), 0.0 s audio, "
                     "done"]


def test_progress_at_intervals_under_xdist_and_off_when_asked(live: pytest.Pytester) -> None:
    result = live.runpytest_subprocess("--product=a", "-n", "2", "-p", "no:cacheprovider",
                                       timeout=300)
    result.assert_outcomes(passed=8)
    # the default interval is 30 s: the first item and the last one
    result.stdout.fnmatch_lines(["dictbench capture a: 1/8 items, *",
                                 "dictbench capture a: 8/8 items, 0.8 s audio, RTFx *, done"])
    assert len([x for x in result.outlines if x.startswith("dictbench capture")]) == 2
    result = live.runpytest("--product=a", "--dictbench-progress=0", "-p", "no:cacheprovider")
    result.stdout.no_fnmatch_line("dictbench capture*")


def test_progress_line_figures() -> None:
    entry = ProductProgress(total=10, done=4, audio_s=20.0, processing_s=5.0, started=100.0)
    assert entry.line("p", now=180.0) == (
        "dictbench capture p: 4/10 items, 20.0 s audio, RTFx 4.0, about 2 min 0 s left")
    entry.done = 10
    assert entry.line("p", now=200.0).endswith("RTFx 4.0, done")
    assert [format_seconds(s) for s in (0.4, 59, 61, 3599, 3720)] == [
        "0 s", "59 s", "1 min 1 s", "59 min 59 s", "1 h 02 min"]
