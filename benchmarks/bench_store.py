"""The results store: what recording adds to a run, and how fast history reads back.

1. Recording. A generated cached suite of ``--items`` items (100,000 by default) runs as
   real pytest subprocesses with ``--dictbench-store=off`` and with a SQLite store, one
   of each a round over ``--rounds`` rounds (which goes first alternates), after a
   warm-up of each. Printed: the median of each round's own wall-time ratio (store / off)
   and of its peak-memory ratio (the pytest process's maximum resident set, from
   ``os.wait4``). Targets: time <= 1.05, memory <= 1.10. The CPU-time ratio (user +
   system, also from ``os.wait4``) is printed beside them: on a loaded machine a run's
   wall time swings by more than the store costs, its CPU time much less.
2. Reading. ``--runs`` stored runs (1,000) of ``--run-items`` items (1,000) each, one
   product on one suite, a twentieth of whose item scores move from run to run;
   ``dictbench trend`` over them, timed (target: under 1 s on SQLite), in this process
   (the store's modules already imported). Its time grows with the runs whose score
   fell, each compared case by case with the run before (see docs/store.md).

Exit status 1 when a target is missed. ``--part recording`` or ``--part trend`` runs
one half only.

    python benchmarks/bench_store.py [--items 100000] [--rounds 5] [--runs 1000] [--part ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_plugin_overhead import ENV, make_project

from pytest_dictbench.cli import main as dictbench
from pytest_dictbench.report.files import natural_line
from pytest_dictbench.store import ProductFacts, RunFacts, SuiteFacts, open_store

TIME_TARGET, MEMORY_TARGET, TREND_TARGET_S = 1.05, 1.10, 1.0


def measured(args: list[str], cwd: Path) -> tuple[float, int, float]:
    """Wall seconds, peak resident kilobytes and CPU seconds (user + system) of one
    pytest run."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "--product=gen", *args], cwd=cwd, env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"pytest {' '.join(args)} failed ({status})")
    return elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def recording(items: int, rounds: int) -> tuple[float, float]:
    off, on = ["--dictbench-store=off"], ["--dictbench-store=bench.sqlite"]
    times, memory, cpu = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_project(root, items)
        measured(off, root), measured(on, root)  # warm-up: bytecode, caches, the store
        for round_ in range(rounds):
            first, second = (on, off) if round_ % 2 else (off, on)
            a, b = measured(first, root), measured(second, root)
            without, with_store = (b, a) if round_ % 2 else (a, b)
            times.append(with_store[0] / without[0])
            memory.append(with_store[1] / without[1])
            cpu.append(with_store[2] / without[2])
            print(f"round {round_ + 1}: off {without[0]:.2f} s ({without[2]:.2f} s CPU) "
                  f"{without[1] / 1024:.0f} MB, store {with_store[0]:.2f} s "
                  f"({with_store[2]:.2f} s CPU) {with_store[1] / 1024:.0f} MB")
    # on a loaded machine the wall time of a run swings by more than the store costs;
    # its CPU time (user + system) swings far less: printed beside it, not judged
    print(f"CPU time ratio {statistics.median(cpu):.3f} (median of the rounds; load "
          f"{os.getloadavg()[0]:.2f})")
    return statistics.median(times), statistics.median(memory)


def make_store(url: str, runs: int, run_items: int, seed: int) -> None:
    """``runs`` runs of one product on one suite, ``run_items`` items each, a twentieth
    of whose scores move from run to run (bench_viewer.py uses it too)."""
    rng = random.Random(seed)
    store = open_store(url)
    base = [min(100.0, max(0.0, rng.gauss(80, 12))) for _ in range(run_items)]
    for n in range(runs):  # a product that changes a few outputs from run to run
        for i in rng.sample(range(run_items), max(1, run_items // 20)):
            base[i] = min(100.0, max(0.0, base[i] + rng.gauss(0, 10)))
        records = [{"case_id": f"c{i:04d}", "product": "p", "repetition": 1,
                    "score": score, "status": "passed", "suite": "s", "text": None,
                    "text_sha256": None} for i, score in enumerate(base)]
        mean = sum(r["score"] for r in records) / run_items
        report = {"schema_version": 1, "suites": [{"id": "s", "version": "1", "products": [
            {"product": "p", "version": "1", "score": mean, "items": run_items,
             "score_ci": {"low": mean - 1, "high": mean + 1}}]}]}
        store.record_run(
            RunFacts(run_id=f"run{n:05d}", finished_utc=f"2026-01-01T00:00:00.{n:05d}Z",
                     suites=[SuiteFacts("s", "1")], products=[ProductFacts("p", "1")]),
            json.dumps(report), "{}", ((r, natural_line(r)) for r in records))
    store.close()


def reading(runs: int, run_items: int, seed: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/trend.sqlite"
        make_store(url, runs, run_items, seed)
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            dictbench(["trend", "--store", url, "s", "p"])
        elapsed = time.perf_counter() - start
        drops = out.getvalue().count("DROP")
    print(f"dictbench trend over {runs} runs of {run_items} items: {elapsed:.2f} s "
          f"(target < {TREND_TARGET_S:.0f} s; {drops} resolved drops; load "
          f"{os.getloadavg()[0]:.2f})")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--run-items", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--part", choices=("both", "recording", "trend"), default="both")
    args = parser.parse_args()
    missed = False
    if args.part in ("both", "recording"):
        time_ratio, memory_ratio = recording(args.items, args.rounds)
        print(f"recording {args.items} items: time ratio {time_ratio:.3f} (target <= "
              f"{TIME_TARGET}), peak memory ratio {memory_ratio:.3f} (target <= "
              f"{MEMORY_TARGET})")
        missed = time_ratio > TIME_TARGET or memory_ratio > MEMORY_TARGET
    if args.part in ("both", "trend"):
        trend_s = reading(args.runs, args.run_items, args.seed)
        missed = missed or trend_s > TREND_TARGET_S
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
