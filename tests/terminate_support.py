"""What the terminate tests share: a project whose command product ``hang`` hangs, a
pytest run in a process group of its own, and polling until processes end."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from adapter_support import suite_with_audio

#: Generous bounds for a loaded two-core machine: conditions are polled, never slept on.
WAIT_S = 180.0


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
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


def write_script(products: Path, script: str) -> None:
    """``script`` as the executable ``asr.sh`` in ``products``."""
    (products / "asr.sh").write_text(script, encoding="utf-8")
    (products / "asr.sh").chmod(0o755)


def hanging_project(pytester: pytest.Pytester, write_suite: Callable[..., Path],
                    script: str, case_ids: Iterable[str]) -> pytest.Pytester:
    """Suite ``mini`` (``case_ids``, each with audio) and the command product ``hang``,
    which runs ``script`` with the case id."""
    suite_with_audio(write_suite, [{"id": c, "reference": "hello"} for c in case_ids], 0.1)
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    products = pytester.path / "products"
    products.mkdir()
    write_script(products, script)
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
