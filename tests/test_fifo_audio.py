"""A FIFO or a folder in place of an audio file is refused as "not a regular file",
never opened for reading (which would block): by ``dictbench hash``, a live run and
``--dictbench-verify`` alike."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from adapter_support import write_tone

CASES = [{"id": f"c{i}", "reference": "hello there", "audio": f"audio/c{i}.wav"}
         for i in range(1, 4)]


@pytest.fixture
def fifo_suite(pytester: pytest.Pytester, write_suite: Callable[..., Path]) -> Path:
    root = write_suite(cases=CASES)
    for case in CASES:
        write_tone(root / case["audio"], seconds=0.1)
    subprocess.run([sys.executable, "-m", "pytest_dictbench.cli", "hash", str(root)],
                   check=True, capture_output=True, timeout=60)
    (root / "audio/c2.wav").unlink()
    os.mkfifo(root / "audio/c2.wav")
    (root / "audio/c3.wav").unlink()
    (root / "audio/c3.wav").mkdir()
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    pytester.makeconftest("def pytest_dictbench_transcriber(product):\n"
                          "    return lambda request: 'hello there'\n")
    (pytester.path / "products").mkdir()
    (pytester.path / "products/live.toml").write_text(
        'name = "live"\nversion = "1"\nadapter = "python"\n', encoding="utf-8")
    return root


def test_hash_refuses_a_fifo_without_blocking(fifo_suite: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "pytest_dictbench.cli", "hash",
                             str(fifo_suite)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "c2.wav: not a regular file" in result.stderr


def test_a_live_run_ends_and_writes_its_reports(pytester: pytest.Pytester,
                                                fifo_suite: Path) -> None:
    result = pytester.runpytest_subprocess("--product=live", "-p", "no:cacheprovider",
                                           "--dictbench-no-warmup", timeout=120)
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(["*c2.wav: audio path is not a regular file*"])
    assert (pytester.path / "reports/dictbench.json").is_file()


def test_verify_says_not_a_regular_file(pytester: pytest.Pytester, fifo_suite: Path) -> None:
    result = pytester.runpytest_subprocess("--dictbench-verify", "-p", "no:cacheprovider",
                                           timeout=120)
    result.stdout.fnmatch_lines(["*c2.wav: listed file is not a regular file*"])
    result.stdout.fnmatch_lines(["*c3.wav: listed file is not a regular file*"])
    result.stdout.no_fnmatch_line("*c2.wav: listed file is missing*")
