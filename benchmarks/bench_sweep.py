"""A sweep of many configurations: the report build's growth in products.

A parameter sweep scores one suite for hundreds of configurations (one product each).
Above ``compare.ALL_PAIRS_UP_TO`` products every product is compared with the best one
only, not pair by pair (499,500 pairs at 1,000), so the build should grow about linearly
in products. This builds the cached records of ``--cases`` cases for ``--small`` and for
``--large`` products (error-rate scoring of seeded outputs), then times the report build
of each: the summary (``aggregate.summarize``: tables, intervals, ranks, comparisons)
and the Markdown and HTML pages (figures left out: they are drawn by helper processes in
a run). Each build is timed ``--rounds`` times, fastest kept.

Target: the large build takes at most 2 x (large / small) x the small one's time.

    python benchmarks/bench_sweep.py [--small 100] [--large 1000] [--cases 20]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

from pytest_dictbench.aggregate import StatsOptions, summarize
from pytest_dictbench.methods.error_rate import ErrorRate
from pytest_dictbench.model import Case, Output, Product, ScoreContext, Suite
from pytest_dictbench.report.html import render_html
from pytest_dictbench.report.markdown import render_markdown

#: The large build's time over the small one's, scaled by the products' ratio, at most.
TARGET = 2.0
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
METHOD = ErrorRate()
#: Bootstrap resamples of each product's interval and comparison (the run's default is
#: larger; it costs the same per product either way).
RESAMPLES = 1000


def make_suite(cases: int, rng: random.Random) -> Suite:
    made = tuple(Case(f"c{i:04d}", {"id": f"c{i:04d}", "reference": " ".join(
        rng.choice(WORDS) for _ in range(10))}, i + 1) for i in range(cases))
    return Suite(id="sweep", version="1", title="Sweep", method="error_rate",
                 locale="en-US", canary="CANARY", root=Path("/nonexistent/sweep"),
                 cases=made, params={"threshold": 0.5})


def record(suite: Suite, case: Case, product: str, text: str) -> dict[str, Any]:
    result = METHOD.score(case, Output(case.id, text, 1), ScoreContext(suite))
    return {"suite": suite.id, "suite_path": "cases/sweep", "case_id": case.id,
            "product": product, "repetition": 1, "case": {}, "text": text,
            "status": "passed" if result.passed else "failed", "output_status": "complete",
            "score": result.score, "rules": {r.rule: r.to_json() for r in result.rules},
            "metrics": dict(result.metrics), "message": result.message,
            "provisional": 0, "latency_ms": None, "flags": {}}


def sweep(suite: Suite, products: int, rng: random.Random) -> list[dict[str, Any]]:
    """Records of ``products`` configurations, each with its own share of wrong words."""
    records = []
    for p in range(products):
        name = f"cfg{p:04d}"
        wrong = rng.uniform(0.0, 0.4)
        for case in suite.cases:
            words = [w if rng.random() > wrong else "zulu"
                     for w in case.data["reference"].split()]
            records.append(record(suite, case, name, " ".join(words)))
    return records


def build(suite: Suite, records: list[dict[str, Any]]) -> float:
    """Seconds of one report build of ``records``."""
    names = sorted({r["product"] for r in records})
    products = {n: Product(n, "1", "cache", Path(f"/nonexistent/{n}.toml")) for n in names}
    start = time.perf_counter()
    report = summarize(records, {suite.id: suite}, products, {"error_rate": METHOD},
                       {suite.id: {}}, StatsOptions(resamples=RESAMPLES))
    render_markdown(report, records)
    render_html(report, records, figures=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--large", type=int, default=1000)
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=20261205)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    suite = make_suite(args.cases, rng)
    build(suite, sweep(suite, 3, rng))  # warm-up: imports and first-call costs
    times = {}
    for size in (args.small, args.large):
        records = sweep(suite, size, rng)
        times[size] = min(build(suite, records) for _ in range(args.rounds))
        print(f"{size} configurations x {args.cases} cases: report build {times[size]:.2f} s")
    scale = args.large / args.small
    ratio = times[args.large] / (times[args.small] * scale)
    print(f"build time ratio {args.large} / ({args.small} x {scale:g}): {ratio:.2f} "
          f"(target <= {TARGET})")
    if ratio > TARGET:
        sys.exit(f"build time ratio {ratio:.2f} misses its target (<= {TARGET})")


if __name__ == "__main__":
    main()
