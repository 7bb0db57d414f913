"""Every collected item appears in every report, whatever stops the run: ``-x`` and
``--maxfail`` (with and without xdist), and workers that crash past the restart limit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from adapter_support import live_project

CASES = [{"id": f"c{i}", "reference": "hello there"} for i in range(1, 5)]

#: ``bad`` answers wrongly on c2; ``crashy`` ends its process on its first call in
#: every process; the others answer right.
CONFTEST = '''
import os

def pytest_dictbench_transcriber(product):
    calls = []
    def transcribe(request):
        if request.warmup:
            return "hello there"
        calls.append(request.case_id)
        if product.name == "crashy" and len(calls) == 1:
            os._exit(139)
        if product.name == "bad" and request.case_id == "c2":
            return "a wholly unrelated sentence"
        return "hello there"
    return transcribe
'''


@pytest.fixture
def live(pytester: pytest.Pytester, write_suite: Callable[..., Path]) -> pytest.Pytester:
    return live_project(pytester, write_suite, CASES, CONFTEST, ("bad", "good", "crashy"),
                        product_toml='[settings]\ncapture_group = "mic-{name}"\n')


def records(path: Path) -> dict[tuple[str, str], dict]:
    lines = (path / "reports" / "items.jsonl").read_text().splitlines()
    return {(r["product"], r["case_id"]): r for r in map(json.loads, lines)}


def test_serial_stop_after_first_failure_keeps_every_item(live: pytest.Pytester) -> None:
    result = live.runpytest_subprocess("--product=bad", "--product=good", "-x",
                                       "--dictbench-min-score=80", "-p", "no:cacheprovider",
                                       "--dictbench-no-warmup", timeout=300)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    found = records(live.path)
    assert len(found) == 8
    unrun = {k: r for k, r in found.items() if r["status"] == "not_tested"}
    assert ("good", "c4") in unrun and ("bad", "c3") in unrun
    assert all("not run: the run stopped" in r["message"] for r in unrun.values())
    report = json.loads((live.path / "reports" / "dictbench.json").read_text())
    products = {e["product"]: e for s in report["suites"] for e in s["products"]}
    assert set(products) == {"bad", "good"}
    assert products["good"]["items"] == 4
    verdicts = {v["product"]: v for v in report["gate"]["verdicts"]}
    assert not verdicts["good"]["passed"]  # its unrun items count as missing


def test_stop_after_first_failure_under_xdist_writes_the_report_set(
        live: pytest.Pytester) -> None:
    result = live.runpytest_subprocess("--product=bad", "--product=good", "-n", "2", "-x",
                                       "--dictbench-item-failures=fail", "-p",
                                       "no:cacheprovider", "--dictbench-no-warmup",
                                       timeout=300)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    found = records(live.path)
    assert len(found) == 8
    assert found[("bad", "c2")]["status"] == "failed"
    for name in ("dictbench.json", "dictbench.md", "dictbench.html", "run-info.json"):
        assert (live.path / "reports" / name).is_file(), name


def test_crashes_past_the_restart_limit_keep_every_item(live: pytest.Pytester) -> None:
    result = live.runpytest_subprocess("--product=crashy", "-n", "2",
                                       "--max-worker-restart=1", "--junitxml=junit.xml",
                                       "-p", "no:cacheprovider", "--dictbench-no-warmup",
                                       timeout=300)
    assert result.ret != pytest.ExitCode.OK
    found = records(live.path)
    assert sorted(found) == [("crashy", c["id"]) for c in CASES]
    statuses = [found[("crashy", c["id"])]["status"] for c in CASES]
    assert statuses[:2] == ["error", "error"]
    assert statuses[2:] == ["not_tested", "not_tested"]
    assert "worker crashes" in found[("crashy", "c3")]["message"]
    report = json.loads((live.path / "reports" / "dictbench.json").read_text())
    entry = report["suites"][0]["products"][0]
    assert (entry["items"], entry["errors"], entry["not_tested"]) == (4, 2, 2)
    names = [c.get("name") for c in ET.parse(live.path / "junit.xml").getroot().iter("testcase")]
    assert sorted(n for n in names if n.startswith("c")) == [
        "c1[crashy]", "c2[crashy]", "c3[crashy]", "c4[crashy]"]  # each once


def test_dist_each_with_a_live_product_is_refused(live: pytest.Pytester) -> None:
    result = live.runpytest_subprocess("--product=good", "-n", "2", "--dist", "each",
                                       "-p", "no:cacheprovider", timeout=120)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*dictbench: --dist each runs every item on every worker, "
                                 "so live product(s) good would capture*"])
