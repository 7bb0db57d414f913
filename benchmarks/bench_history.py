"""The reports' history files: what a run pays for them as its store fills up.

A SQLite store is filled with ``--runs`` complete runs (each size in turn: 20 and 200 by
default) of ``--run-items`` items (1,000) of one product on one suite, a twentieth of
whose item scores move from run to run. For each size, ``report.history.history_texts``
of the newest run is timed with the default window (``dictbench_history_runs``, the
newest 10 complete runs), median of ``--rounds`` rounds, and once over every stored run
(no window: what the history cost before it had one, growing with the runs).

Target: the windowed history over the largest store takes at most 1.5 times as long as
over the smallest (flat in the number of stored runs). Exit status 1 when missed.

Products (issue 49, "Comparisons that scale"): a store of ``--product-runs`` complete runs
(3) of each size of ``--products`` (10 and 100) products of ``--product-items`` items
(200) each; the history of the newest run compares each product's runs and the
products' newest runs by the reports' rule (every two up to ``compare.ALL_PAIRS_UP_TO``
products, else each against the best: 45 comparisons at 10, 99 at 100 instead of 4,950).
Target: the time per product at the largest size at most 1.5 times that at the smallest
(near linear in products). ``--mode`` runs one part or both (default).

    python benchmarks/bench_history.py [--mode both|runs|products] [--runs 20,200]
        [--run-items 1000] [--products 10,100] [--product-items 200] [--rounds 3]
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
#: time per product, the most products against the fewest (near linear)
LINEAR_TARGET = 1.5


def fill(store: Store, runs: int, items: int, seed: int, products: int = 1) -> str:
    """Record ``runs`` runs of ``items`` items of each of ``products`` products (``p``,
    or ``p000``, ``p001`` ...); the newest run's id."""
    rng = random.Random(seed)
    names = ["p"] if products == 1 else [f"p{k:03d}" for k in range(products)]
    scores = {name: [min(100.0, max(0.0, rng.gauss(80 - k % 30, 12))) for _ in range(items)]
              for k, name in enumerate(names)}
    run_id = ""
    for n in range(runs):
        records, entries = [], []
        for name in names:
            own = scores[name]
            for i in rng.sample(range(items), max(1, items // 20)):
                own[i] = min(100.0, max(0.0, own[i] + rng.gauss(0, 10)))
            records += [{"case_id": f"c{i:05d}", "product": name, "repetition": 1,
                         "score": s, "status": "passed" if s >= 50 else "failed",
                         "suite": "s", "text": None, "text_sha256": f"{round(s):02x}"}
                        for i, s in enumerate(own)]
            mean = statistics.fmean(own)
            entries.append({"product": name, "version": "1", "score": mean, "items": items,
                            "score_ci": {"low": mean - 1, "high": mean + 1}})
        report = {"schema_version": 1, "suites": [{"id": "s", "version": "1",
                                                   "products": entries}]}
        run_id = f"run{n:05d}"
        store.record_run(
            RunFacts(run_id=run_id, finished_utc=f"2026-01-01T00:00:00.{n:05d}Z",
                     suites=[SuiteFacts("s", "1")],
                     products=[ProductFacts(name, "1") for name in names]),
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


def over_products(args: argparse.Namespace) -> bool:
    """The history's time as the products grow; whether the target was met."""
    sizes = [int(n) for n in args.products.split(",")]
    per_product: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            store = open_store(f"sqlite:///{Path(tmp) / f'products-{size}.sqlite'}")
            newest = fill(store, args.product_runs, args.product_items, args.seed, size)
            history_facts(store, newest, resamples=args.resamples, seed=DEFAULT_SEED,
                          window=args.window)  # warm-up: imports
            rounds, between = [], 0
            for _ in range(args.rounds):
                start = time.perf_counter()
                facts = history_facts(store, newest, resamples=args.resamples,
                                      seed=DEFAULT_SEED, window=args.window)
                rounds.append(time.perf_counter() - start)
                assert facts is not None
                [suite] = facts["suites"]
                between = len(suite["between"])
            store.close()
            median = statistics.median(rounds)
            per_product.append(median / size)
            print(f"{size} products x {args.product_runs} runs of {args.product_items} "
                  f"items: history {median:.2f} s ({1000 * median / size:.1f} ms a product); "
                  f"{between} comparisons between products ({suite['comparison_scope']['mode']}"
                  f"; every pair would be {size * (size - 1) // 2:,})")
    ratio = per_product[-1] / per_product[0]
    print(f"history time per product, {sizes[-1]} against {sizes[0]} products: ratio "
          f"{ratio:.2f} (target <= {LINEAR_TARGET}); load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} CPUs")
    return ratio <= LINEAR_TARGET


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("both", "runs", "products"), default="both")
    parser.add_argument("--runs", default="20,200",
                        help="stored runs, each size in turn (comma-separated)")
    parser.add_argument("--run-items", type=int, default=1000)
    parser.add_argument("--products", default="10,100",
                        help="products, each size in turn (comma-separated)")
    parser.add_argument("--product-items", type=int, default=200)
    parser.add_argument("--product-runs", type=int, default=3)
    parser.add_argument("--window", type=int, default=DEFAULT_HISTORY_RUNS)
    parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261205)
    args = parser.parse_args()
    met = over_runs(args) if args.mode in ("both", "runs") else True
    if args.mode in ("both", "products"):
        met = over_products(args) and met
    sys.exit(0 if met else 1)


def over_runs(args: argparse.Namespace) -> bool:
    """The history's time as the stored runs grow; whether the target was met."""
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
    return ratio <= FLAT_TARGET


if __name__ == "__main__":
    main()
