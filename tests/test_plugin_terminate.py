"""A run that is terminated (SIGTERM, as ``timeout`` and CI cancellation send it) or
interrupted (SIGINT, Ctrl-C) ends its capture's whole process group: the command and the
grandchild it started. Real pytest runs, real processes."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from terminate_support import WAIT_S, alive, hanging_project, pytest_run, wait_for, write_script

#: Starts a grandchild in its own process group (the command's), records both pids
#: and waits; nothing here ends by itself within a test's lifetime.
ASR = """#!/bin/sh
sleep 1000 &
echo $! > grandchild.pid
echo $$ > child.pid
wait
"""


@pytest.fixture
def hanging(pytester: pytest.Pytester, write_suite: Callable[..., Path]) -> pytest.Pytester:
    """Suite ``mini`` (one case with audio) and the command product ``hang``."""
    return hanging_project(pytester, write_suite, ASR, ["c1"])


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
@pytest.mark.parametrize("xdist", [[], ["-n", "1"]], ids=["serial", "xdist"])
def test_a_stopped_run_ends_the_capture_and_its_grandchild(
        hanging: pytest.Pytester, signum: int, xdist: list[str]) -> None:
    products = hanging.path / "products"
    with pytest_run(hanging.path, *xdist) as run:
        wait_for(lambda: (products / "child.pid").is_file()
                 and (products / "child.pid").read_text().strip() != "", "the capture")
        wait_for(lambda: (products / "grandchild.pid").read_text().strip() != "",
                 "the grandchild")
        child = int((products / "child.pid").read_text())
        grandchild = int((products / "grandchild.pid").read_text())
        assert alive(child) and alive(grandchild)
        os.kill(run.pid, signum)  # the run's own process only, as `kill PID` does
        out, _ = run.communicate(timeout=WAIT_S)
        wait_for(lambda: not alive(child), "the command to end")
        wait_for(lambda: not alive(grandchild), "the grandchild to end")
    assert run.returncode == pytest.ExitCode.INTERRUPTED, out.decode()
    # Ctrl-C writes no reports; SIGTERM writes the item as not run (PL11, see
    # test_plugin_terminate_reports.py)
    assert (hanging.path / "reports").exists() == (signum == signal.SIGTERM)


def test_a_timed_out_capture_ends_its_grandchild_too(tmp_path: Path) -> None:
    """``timeout_s`` ends the command's whole group, not only the command."""
    from adapter_support import make_product, make_suite

    from pytest_dictbench.adapters.base import AdapterOptions
    from pytest_dictbench.adapters.command import command_adapter
    from pytest_dictbench.adapters.process_groups import running

    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    products = tmp_path / "products"
    products.mkdir()
    write_script(products, ASR)
    # 5 s: time enough on a loaded machine for the script to record both pids
    product = make_product(products, "command", {"command": ["./asr.sh"], "timeout_s": 5})
    output = command_adapter(product, suite, AdapterOptions(warmup=False)).get(
        suite.cases[0], 1)
    assert output is not None and output.error == "command timed out after 5 s"
    for name in ("child.pid", "grandchild.pid"):
        pid = int((products / name).read_text())
        wait_for(lambda pid=pid: not alive(pid), f"{name} to end")
    assert running() == []  # the ended group is no longer registered
