"""Plugin overhead: a 10,000-item cached suite vs 10,000 trivial parametrized tests.

Both run as real pytest subprocesses in the same script, so the ratio compares like
with like on this machine. The baseline is bare pytest: the trivial tests run with the
dictbench plugin disabled (``-p no:dictbench``). Bytecode caching is on, as Python's
default (an environment that sets ``PYTHONDONTWRITEBYTECODE`` would otherwise make every
run recompile, and assertion-rewrite, each module it imports), and one warm-up run of each
side comes first. Target: ratio <= 1.15 (exit status 1 when missed).

    python benchmarks/bench_plugin_overhead.py [--items 10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

CANARY = "DICTBENCH-CANARY bench 11111111-2222-4333-8444-555555555555"
#: Time of the dictbench run over that of the trivial tests, at most.
TARGET = 1.15
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliet", "kilo", "lima"]


def make_project(root: Path, items: int) -> None:
    suite = root / "cases" / "gen"
    suite.mkdir(parents=True)
    (root / "products" / "gen").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\ndictbench_suites = cases/gen\n")
    (suite / "suite.toml").write_text(
        'id = "gen"\nversion = "1"\ntitle = "Generated"\nmethod = "error_rate"\n'
        f'locale = "en-US"\ncanary = "{CANARY}"\n[params]\nthreshold = 0.5\n')
    cases, outputs = [], []
    for i in range(items):
        words = [WORDS[(i * 7 + k) % len(WORDS)] for k in range(8)]
        cases.append(json.dumps({"id": f"g{i:05d}", "canary": CANARY,
                                 "reference": " ".join(words)}))
        words[i % 8] = "zulu"
        outputs.append(json.dumps({"case_id": f"g{i:05d}", "text": " ".join(words)}))
    (suite / "cases.jsonl").write_text("\n".join(cases) + "\n")
    (root / "products" / "gen.toml").write_text(
        'name = "gen"\nversion = "1"\nadapter = "cache"\n')
    (root / "products" / "gen" / "gen.jsonl").write_text("\n".join(outputs) + "\n")
    (root / "trivial").mkdir()
    (root / "trivial" / "test_trivial.py").write_text(
        "import pytest\n\n"
        f"@pytest.mark.parametrize('i', range({items}))\n"
        "def test_trivial(i):\n    assert i >= 0\n")


#: The subprocesses' environment: this one, with Python's default bytecode caching.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
#: Arguments of each side: bare pytest over the trivial tests, dictbench over its suite.
BASELINE = ["-p", "no:dictbench", "trivial"]
PLUGIN = ["--product=gen"]


def timed(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *args], cwd=cwd, capture_output=True, text=True, env=ENV)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"pytest {' '.join(args)} exited {proc.returncode}:\n{proc.stdout[-2000:]}")
    return elapsed


def alternate_rounds(items: int, rounds: int, measure: Callable[[list[str], Path], T]
                     ) -> tuple[list[T], list[T]]:
    """Measure bare pytest and the plugin on one generated project after a warm-up run of
    each, alternating round by round so that machine noise hits both alike:
    ``(baseline, plugin)``."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_project(root, items)
        measure(BASELINE, root), measure(PLUGIN, root)  # bytecode written, caches warm
        baseline, plugin = [], []
        for _ in range(rounds):
            baseline.append(measure(BASELINE, root))
            plugin.append(measure(PLUGIN, root))
    return baseline, plugin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    baseline, plugin = alternate_rounds(args.items, args.rounds, timed)
    b, p = statistics.median(baseline), statistics.median(plugin)
    print(f"bare pytest, trivial tests ({args.items}): median {b:.2f} s over {args.rounds}")
    print(f"dictbench cached suite     ({args.items}): median {p:.2f} s over {args.rounds}")
    print(f"ratio dictbench / bare pytest: {p / b:.2f} (target <= {TARGET})")
    if p / b > TARGET:
        sys.exit(f"time ratio {p / b:.2f} misses its target (<= {TARGET})")


if __name__ == "__main__":
    main()
