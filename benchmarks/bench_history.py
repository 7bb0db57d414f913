"""The reports' history files: what a run pays for them as its store fills up.

A SQLite store is filled with ``--runs`` complete runs (each size in turn: 20 and 200 by
default) of ``--run-items`` items (1,000) of one product on one suite, a twentieth of
whose item scores move from run to run. For each size, ``report.history.history_texts``
of the newest run is timed with the default window (``dictbench_history_runs``, the
newest 10 complete runs), median of ``--rounds`` rounds, and once over every stored run
(no window: what the history cost before it had one, growing with the runs).

Target: the windowed history over the largest store takes at most 1.5 times as long as
over the smallest (flat in the number of stored runs). Exit status 1 when missed.

    python benchmarks/bench_history.py [--runs 20,200] [--run-items 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pytest_dictbench.report.files import natural_line
from pytest_dictbench.report.history import DEFAULT_HISTORY_RUNS, history_facts
from pytest_dictbench.stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from pytest_dictbench.store import ProductFacts, RunFacts, Store, SuiteFacts, open_store

FLAT_TARGET = 1.5


def fill(store: Store, runs: int, items: int, seed: int) -> str:
    """Record ``runs`` runs of ``items`` items; the newest run's id."""
    rng = random.Random(seed)
    scores = [min(100.0, max(0.0, rng.gauss(80, 12))) for _ in range(items)]
    run_id = ""
    for n in range(runs):
        for i in rng.sample(range(items), max(1, items // 20)):
            scores[i] = min(100.0, max(0.0, scores[i] + rng.gauss(0, 10)))
        records = [{"case_id": f"c{i:05d}", "product": "p", "repetition": 1, "score": s,
                    "status": "passed" if s >= 50 else "failed", "suite": "s",
                    "text": None, "text_sha256": f"{round(s):02x}"}
                   for i, s in enumerate(scores)]
        mean = statistics.fmean(scores)
        report = {"schema_version": 1, "suites": [{"id": "s", "version": "1", "products": [
            {"product": "p", "version": "1", "score": mean, "items": items,
             "score_ci": {"low": mean - 1, "high": mean + 1}}]}]}
        run_id = f"run{n:05d}"
        store.record_run(
            RunFacts(run_id=run_id, finished_utc=f"2026-01-01T00:00:00.{n:05d}Z",
                     suites=[SuiteFacts("s", "1")], products=[ProductFacts("p", "1")]),
            json.dumps(report), "{}", ((r, natural_line(r)) for r in records))
    return run_id


def timed(store: Store, run_id: str, window: int, resamples: int) -> tuple[float, int]:
    """Seconds for the history of ``run_id`` and the runs its variation covered."""
    start = time.perf_counter()
    facts = history_facts(store, run_id, resamples=resamples, seed=DEFAULT_SEED,
                          window=window)
    elapsed = time.perf_counter() - start
    assert facts is not None
    [entry] = facts["suites"][0]["products"]
    return elapsed, len(entry["runs"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="20,200",
                        help="stored runs, each size in turn (comma-separated)")
    parser.add_argument("--run-items", type=int, default=1000)
    parser.add_argument("--window", type=int, default=DEFAULT_HISTORY_RUNS)
    parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261205)
    args = parser.parse_args()
    sizes = [int(n) for n in args.runs.split(",")]
    windowed: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            store = open_store(f"sqlite:///{Path(tmp) / f'history-{size}.sqlite'}")
            newest = fill(store, size, args.run_items, args.seed)
            timed(store, newest, args.window, args.resamples)  # warm-up: imports
            rounds = [timed(store, newest, args.window, args.resamples)
                      for _ in range(args.rounds)]
            median = statistics.median(s for s, _ in rounds)
            windowed.append(median)
            every, covered = timed(store, newest, size, args.resamples)
            store.close()
            print(f"{size} stored runs of {args.run_items} items: history {median:.2f} s "
                  f"over the newest {rounds[0][1]}; without a window {every:.2f} s over "
                  f"{covered}")
    ratio = windowed[-1] / windowed[0]
    load = os.getloadavg()[0]
    print(f"history time, {sizes[-1]} against {sizes[0]} stored runs: ratio {ratio:.2f} "
          f"(target <= {FLAT_TARGET}); load average {load:.2f} on {os.cpu_count()} CPUs")
    sys.exit(1 if ratio > FLAT_TARGET else 0)


if __name__ == "__main__":
    main()
