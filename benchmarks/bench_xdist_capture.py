"""Parallel rigs: a two-product live run with ``-n 2`` vs ``-n 0``.

Two live Whisper tiny.en products (one CPU thread each, as if each had its own device)
transcribe the bundled English dictation audio. Each run starts from an empty capture
cache (``--recapture``), so both runs do the same captures; the ``-n 2`` run puts each
product's capture group on its own worker. Target: speed-up >= 1.6.

    python benchmarks/bench_xdist_capture.py [--rounds 1] [--cases N]

``--cases N`` keeps the suite's first N cases (by ``-k``), for a quick run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = """name = "{name}"
version = "1"
adapter = "whisper"
[settings]
language = "en"
beam_size = 5
cpu_threads = 1
"""


def make_project(root: Path) -> None:
    shutil.copytree(ROOT / "cases" / "en-dictation", root / "cases" / "en-dictation")
    (root / "products").mkdir()
    for name in ("rig-a", "rig-b"):
        (root / "products" / f"{name}.toml").write_text(PRODUCT.format(name=name))
    (root / "pytest.ini").write_text("[pytest]\ndictbench_suites = cases/en-dictation\n")


def first_cases(n: int) -> list[str]:
    """``-k`` selecting the first ``n`` cases of the bundled suite."""
    lines = (ROOT / "cases" / "en-dictation" / "cases.jsonl").read_text().splitlines()
    ids = [json.loads(line)["id"] for line in lines if line.strip()][:n]
    return ["-k", " or ".join(ids)]


def timed(root: Path, *args: str) -> float:
    # one thread per process everywhere (BLAS, OpenMP), as if each rig had its own core
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--product=rig-a",
         "--product=rig-b", "--recapture", "--dictbench-item-failures=report", *args],
        cwd=root, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"pytest exited {proc.returncode}:\n{proc.stdout[-3000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--cases", type=int, default=None, help="the first N cases only")
    args = parser.parse_args()
    only = first_cases(args.cases) if args.cases else []
    serial, parallel = [], []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_project(root)
        for _ in range(args.rounds):
            serial.append(timed(root, "-p", "no:xdist", *only))
            parallel.append(timed(root, "-n", "2", *only))
    s, p = statistics.median(serial), statistics.median(parallel)
    print(f"-n 0: {s:.1f} s   -n 2: {p:.1f} s   (median of {args.rounds})")
    print(f"speed-up -n 2 vs -n 0: {s / p:.2f} (target >= 1.6)")
    if s / p < 1.6:
        sys.exit(f"speed-up {s / p:.2f} misses its target (>= 1.6)")


if __name__ == "__main__":
    main()
