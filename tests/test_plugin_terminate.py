"""A run that is terminated (SIGTERM, as ``timeout`` and CI cancellation send it) or
interrupted (SIGINT, Ctrl-C) ends its capture's whole process group: the command and the
grandchild it started. Real pytest runs, real processes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from adapter_support import write_tone

#: Starts a grandchild in its own process group (the command's), records both pids
#: and waits; nothing here ends by itself within a test's lifetime.
ASR = """#!/bin/sh
sleep 1000 &
echo $! > grandchild.pid
echo $$ > child.pid
wait
"""

#: Generous bounds for a loaded two-core machine: conditions are polled, never slept on.
_WAIT_S = 180.0


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + _WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def hanging(pytester: pytest.Pytester, write_suite: Callable[..., Path]) -> pytest.Pytester:
    """Suite ``mini`` (one case with audio) and the command product ``hang``."""
    root = write_suite(cases=[{"id": "c1", "reference": "hello", "audio": "audio/c1.wav"}])
    write_tone(root / "audio" / "c1.wav", seconds=0.1)
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    products = pytester.path / "products"
    products.mkdir()
    (products / "asr.sh").write_text(ASR, encoding="utf-8")
    (products / "asr.sh").chmod(0o755)
    (products / "hang.toml").write_text(
        'name = "hang"\nversion = "1"\nadapter = "command"\n[settings]\n'
        'command = ["./asr.sh", "{case_id}"]\ntimeout_s = 3600\n', encoding="utf-8")
    return pytester


@contextlib.contextmanager
def pytest_run(folder: Path, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """pytest in a child process of its own group; whatever is left is ended after."""
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--product=hang",
         "--dictbench-no-warmup", *args], cwd=folder, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield run
    finally:
        for name in ("child.pid", "grandchild.pid"):
            with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
                os.kill(int((folder / "products" / name).read_text()), signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
        run.communicate()


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
        out, _ = run.communicate(timeout=_WAIT_S)
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
    (products / "asr.sh").write_text(ASR, encoding="utf-8")
    (products / "asr.sh").chmod(0o755)
    # 5 s: time enough on a loaded machine for the script to record both pids
    product = make_product(products, "command", {"command": ["./asr.sh"], "timeout_s": 5})
    output = command_adapter(product, suite, AdapterOptions(warmup=False)).get(
        suite.cases[0], 1)
    assert output is not None and output.error == "command timed out after 5 s"
    for name in ("child.pid", "grandchild.pid"):
        pid = int((products / name).read_text())
        wait_for(lambda pid=pid: not alive(pid), f"{name} to end")
    assert running() == []  # the ended group is no longer registered
