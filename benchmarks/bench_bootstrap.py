"""Speed of the vectorised paired bootstrap against a plain Python loop.

Both compute a 95% percentile interval of the mean paired difference on the same
seeded scores (default 500 items, 10,000 resamples). The vectorised version is
``pytest_dictbench.stats.paired_bootstrap``; the loop draws every index with
``random.Random`` and sums in Python, as one would write it without numpy (its draws
differ, so its interval agrees only up to resampling noise). Prints both timings, both
intervals and the ratio loop / vectorised.

Run: ``python benchmarks/bench_bootstrap.py [--items N] [--resamples R] [--seed S]``
"""

from __future__ import annotations

import argparse
import math
import random
import time

from pytest_dictbench.stats import DEFAULT_SEED, paired_bootstrap


def make_scores(items: int, seed: int) -> tuple[list[float], list[float]]:
    """Two aligned 0-100 score lists; about a fifth of the items score 0 (failed)."""
    rng = random.Random(seed)
    a: list[float] = []
    b: list[float] = []
    for _ in range(items):
        a.append(0.0 if rng.random() < 0.2 else rng.uniform(60, 100))
        b.append(0.0 if rng.random() < 0.2 else rng.uniform(55, 100))
    return a, b


def loop_bootstrap(
    a: list[float], b: list[float], resamples: int, seed: int, confidence: float = 0.95
) -> tuple[float, float]:
    """The same interval with nothing but the standard library."""
    differences = [y - x for x, y in zip(a, b, strict=True)]
    n = len(differences)
    rng = random.Random(seed)
    means = []
    for _ in range(resamples):
        total = 0.0
        for _ in range(n):
            total += differences[rng.randrange(n)]
        means.append(total / n)
    means.sort()

    def at(q: float) -> float:  # linear interpolation, numpy's default
        position = (resamples - 1) * q
        below = math.floor(position)
        above = min(below + 1, resamples - 1)
        return means[below] + (position - below) * (means[above] - means[below])

    alpha = (1 - confidence) / 2
    return at(alpha), at(1 - alpha)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=500, help="paired items (default 500)")
    parser.add_argument("--resamples", type=int, default=10_000, help="default 10000")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="default %(default)s")
    args = parser.parse_args()
    a, b = make_scores(args.items, args.seed)

    paired_bootstrap(a, b, resamples=10, seed=args.seed)  # warm-up: imports, first allocation
    start = time.perf_counter()
    interval = paired_bootstrap(a, b, resamples=args.resamples, seed=args.seed)
    vectorised = time.perf_counter() - start

    start = time.perf_counter()
    low, high = loop_bootstrap(a, b, args.resamples, args.seed)
    looped = time.perf_counter() - start

    print(f"{args.items} items, {args.resamples} resamples, seed {args.seed}")
    print(f"mean difference b - a: {interval.estimate:+.3f}")
    print(f"vectorised (numpy): {vectorised:8.3f} s   [{interval.low:+.3f}, {interval.high:+.3f}]")
    print(f"python loop:        {looped:8.3f} s   [{low:+.3f}, {high:+.3f}]")
    print(f"ratio loop / vectorised: {looped / vectorised:.1f}x")


if __name__ == "__main__":
    main()
