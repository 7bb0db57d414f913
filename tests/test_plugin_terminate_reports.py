"""PL11 (SIGTERM part): a run stopped by SIGTERM, as ``timeout`` and CI cancellation stop
it, ends cleanly: the report set is written with the items that ran and the rest as not
run, and no traceback is printed. Ctrl-C still writes nothing. Real subprocess runs."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from terminate_support import WAIT_S, alive, hanging_project, pytest_run, wait_for

#: c1 is answered at once; c2 starts a grandchild, records both pids and waits.
ASR = """#!/bin/sh
if [ "$1" = "c1" ]; then echo hello; exit 0; fi
sleep 1000 &
echo $! > grandchild.pid
echo $$ > child.pid
wait
"""


@pytest.fixture
def half_hanging(pytester: pytest.Pytester, write_suite: Callable[..., Path]
                 ) -> pytest.Pytester:
    """Suite ``mini`` (c1, c2 with audio) and the command product ``hang``."""
    return hanging_project(pytester, write_suite, ASR, ["c1", "c2"])


def stop_at_c2(folder: Path, signum: int, *args: str) -> tuple[int, str]:
    """Run, send ``signum`` while c2 hangs; the exit status and the output."""
    products = folder / "products"
    with pytest_run(folder, "--junitxml=j.xml", *args) as run:
        wait_for(lambda: (products / "grandchild.pid").is_file()
                 and (products / "grandchild.pid").read_text().strip() != "", "c2's capture")
        grandchild = int((products / "grandchild.pid").read_text())
        os.kill(run.pid, signum)
        out, _ = run.communicate(timeout=WAIT_S)
        wait_for(lambda: not alive(grandchild), "the grandchild to end")
    return run.returncode, out.decode()


@pytest.mark.parametrize("xdist", [[], ["-n", "1"]], ids=["serial", "xdist"])
def test_a_run_stopped_by_sigterm_writes_what_it_has_without_a_traceback(
        half_hanging: pytest.Pytester, xdist: list[str]) -> None:
    status, out = stop_at_c2(half_hanging.path, signal.SIGTERM, *xdist)
    assert status == pytest.ExitCode.INTERRUPTED, out
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    assert "dictbench: run stopped by SIGTERM" in out
    reports = half_hanging.path / "reports"
    records = {r["case_id"]: r for r in map(
        json.loads, (reports / "items.jsonl").read_text().splitlines())}
    assert records["c1"]["status"] == "passed"
    assert records["c2"]["status"] == "not_tested"
    assert "stopped by SIGTERM" in records["c2"]["message"]
    entry = json.loads((reports / "dictbench.json").read_text())["suites"][0]["products"][0]
    assert entry["items"] == 2 and entry["not_tested"] == 1
    assert (half_hanging.path / "j.xml").is_file()


def test_ctrl_c_still_writes_no_report(half_hanging: pytest.Pytester) -> None:
    status, out = stop_at_c2(half_hanging.path, signal.SIGINT)
    assert status == pytest.ExitCode.INTERRUPTED, out
    assert not (half_hanging.path / "reports").exists()


#: A report hook that takes forever (as the pairwise comparisons of a huge sweep did).
SLOW_BUILD = """
import pathlib, time

def pytest_dictbench_update_report(config, report):
    pathlib.Path("building").write_text("yes")
    time.sleep(1000)
"""


def test_a_sigterm_during_the_report_build_keeps_the_items(
        half_hanging: pytest.Pytester) -> None:
    (half_hanging.path / "conftest.py").write_text(SLOW_BUILD, encoding="utf-8")
    building = half_hanging.path / "building"
    with pytest_run(half_hanging.path, "-k", "c1") as run:
        wait_for(building.is_file, "the report build")
        os.kill(run.pid, signal.SIGTERM)
        out, _ = run.communicate(timeout=WAIT_S)
    text = out.decode()
    assert run.returncode == pytest.ExitCode.INTERRUPTED, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert "dictbench: run stopped by SIGTERM while the reports were built; only " \
           "items.jsonl and run-info.json were written" in text
    reports = half_hanging.path / "reports"
    assert sorted(p.name for p in reports.iterdir()) == ["items.jsonl", "run-info.json"]
    (record,) = map(json.loads, (reports / "items.jsonl").read_text().splitlines())
    assert record["case_id"] == "c1" and record["status"] == "passed"
