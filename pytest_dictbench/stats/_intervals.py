"""Confidence intervals: seeded percentile bootstrap and Student t.

The bootstrap resamples items with replacement. Draws come from
``numpy.random.default_rng(seed).integers(0, n, size=(rows, n))``, one row of item
indices per resample, generated in blocks of rows to bound memory (a helper thread draws
the next block while the last is averaged). The generator's stream does not depend on
how the rows are split into blocks, so the result is a function of the data,
``resamples``, ``seed`` and ``confidence`` only. The interval ends are
``numpy.quantile`` of the resampled means at ``(1 - confidence) / 2`` and
``(1 + confidence) / 2`` with numpy's default ``"linear"`` method (Hyndman and Fan type 7:
the order statistic at position ``q * (R - 1)``, interpolated linearly).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

import numpy as np

from ._defaults import DEFAULT_RESAMPLES, DEFAULT_SEED, index_bytes
from ._student_t import student_t_quantile


class SharedQuantiles(Protocol):
    """Bootstrap quantiles from draws shared between bootstraps (``SharedDraws``)."""

    def quantiles(self, values: np.ndarray, resamples: int, seed: int,
                  qs: Sequence[float]) -> np.ndarray | None: ...

__all__ = ["DEFAULT_RESAMPLES", "DEFAULT_SEED", "Draws", "Interval", "draw_indices",
           "mean_ci", "paired_bootstrap", "paired_bootstrap_p"]
#: Index-matrix entries drawn per block (8 MiB of int64, plus as much for the values).
_BLOCK_ENTRIES = 1 << 20

IntervalMethod = Literal["bootstrap", "t"]


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval around a point estimate."""

    #: Lower end.
    low: float
    #: Upper end.
    high: float
    #: The statistic on the full data (a mean, or a mean difference).
    estimate: float
    #: Bootstrap resamples drawn (0 for the Student t interval).
    resamples: int
    #: Seed of the bootstrap generator (``None`` for the Student t interval).
    seed: int | None
    #: Nominal coverage, e.g. 0.95.
    confidence: float = 0.95
    #: ``"bootstrap"`` (percentile bootstrap) or ``"t"`` (Student t).
    method: IntervalMethod = "bootstrap"

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies inside the closed interval."""
        return self.low <= value <= self.high

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready fields, for reports."""
        return asdict(self)


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    shared: SharedQuantiles | None = None,
) -> Interval:
    """Percentile bootstrap interval of the mean paired difference ``b - a``.

    ``a[i]`` and ``b[i]`` are two systems' scores on the same item ``i``. Each resample
    draws ``n`` item indices with replacement and takes the mean of ``b - a`` over them.

    Args:
        a: scores of the first system, one per item.
        b: scores of the second system, aligned with ``a``.
        resamples: number of resamples (>= 1).
        seed: seed for ``numpy.random.default_rng``; the same seed gives the same interval.
        confidence: nominal coverage, strictly between 0 and 1.
        shared: indices drawn once for many bootstraps of one size
            (:class:`SharedDraws`); the interval is the same, bit for bit.

    Returns:
        The interval; ``estimate`` is ``mean(b - a)``. Identical inputs give (0, 0); a
        single item gives (d, d) for its difference d.

    Raises:
        ValueError: lengths differ, there are no items, or a value is not finite.

    Example:
        >>> iv = paired_bootstrap([50, 60, 70, 80], [55, 65, 75, 85], resamples=200)
        >>> (iv.low, iv.high, iv.estimate)
        (5.0, 5.0, 5.0)
    """
    first = _finite_array(a, "a")
    second = _finite_array(b, "b")
    if first.size != second.size:
        raise ValueError(
            f"paired scores must be aligned; got {first.size} values in a and {second.size} in b"
        )
    return _percentile_bootstrap(second - first, resamples, seed, confidence, shared=shared)


def paired_bootstrap_p(a: Sequence[float], b: Sequence[float],
                       resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> float:
    """Two-sided bootstrap p of the mean paired difference ``b - a``: twice the smaller
    share of resampled means on either side of 0 (at most 1), over the resamples
    :func:`paired_bootstrap` draws for the same ``seed``. It orders the comparisons of a
    Holm step-down; a percentile interval at confidence ``1 - alpha`` excludes 0 about
    when this is below ``alpha``.

    Example:
        >>> paired_bootstrap_p([0, 0, 0], [1, 2, 3], resamples=100)
        0.0
    """
    first, second = _finite_array(a, "a"), _finite_array(b, "b")
    if first.size != second.size or first.size == 0:
        raise ValueError("paired scores must be aligned and not empty")
    means = _bootstrap_means(second - first, resamples, seed)
    below, above = float(np.mean(means <= 0.0)), float(np.mean(means >= 0.0))
    return min(1.0, 2.0 * min(below, above))


@dataclass(frozen=True)
class Draws:
    """The bootstrap's item indices for ``n`` items, drawn ahead of the values (see
    :func:`draw_indices`): the blocks :func:`mean_ci` would draw, held as the smallest
    unsigned integers that fit."""

    n: int
    resamples: int
    seed: int
    blocks: tuple[np.ndarray, ...]

    @property
    def nbytes(self) -> int:
        return sum(block.nbytes for block in self.blocks)


def draw_indices(n: int, resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED) -> Draws:
    """Draw the bootstrap's indices for a sample of ``n`` values before the values are
    known (a helper process does it while a run's tests run): ``mean_ci(values,
    resamples=resamples, seed=seed, draws=draws)`` then only averages, and gives the
    same interval, bit for bit. ``resamples * n`` entries of 2 bytes (4 above 65,536
    items)."""
    if n < 1:
        raise ValueError(f"cannot draw for an empty sample (n = {n})")
    dtype = np.uint16 if index_bytes(n) == 2 else np.uint32
    rng = np.random.default_rng(seed)
    blocks = tuple(rng.integers(0, n, size=(rows, n)).astype(dtype)
                   for _, rows in _blocks(n, resamples))
    return Draws(n=n, resamples=resamples, seed=seed, blocks=blocks)


def mean_ci(
    values: Sequence[float],
    confidence: float = 0.95,
    method: IntervalMethod = "bootstrap",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    draws: Draws | None = None,
) -> Interval:
    """Confidence interval of the mean of ``values`` (e.g. a product's item scores).

    ``method="bootstrap"`` is the seeded percentile bootstrap described in the module
    docstring. ``method="t"`` is ``mean +/- t(df = n - 1) * s / sqrt(n)`` with the
    sample standard deviation ``s`` (n - 1 in the denominator); the t quantile is
    computed with the standard library (no scipy). ``draws`` from :func:`draw_indices`
    for the same ``len(values)``, ``resamples`` and ``seed`` save drawing (others are
    ignored); the interval is the same with or without.

    Raises:
        ValueError: no values, a value is not finite, or ``method="t"`` with one value
            (the spread of a single value is unknown).

    Example:
        >>> iv = mean_ci([1.0, 2.0, 3.0], method="t")
        >>> (round(iv.low, 4), iv.estimate, round(iv.high, 4))
        (-0.4841, 2.0, 4.4841)
    """
    data = _finite_array(values, "values")
    if method == "bootstrap":
        return _percentile_bootstrap(data, resamples, seed, confidence, draws)
    if method == "t":
        return _student_t_interval(data, confidence)
    raise ValueError(f"unknown interval method {method!r}; use 'bootstrap' or 't'")


def _percentile_bootstrap(
    values: np.ndarray, resamples: int, seed: int, confidence: float,
    draws: Draws | None = None, shared: SharedQuantiles | None = None,
) -> Interval:
    _check_confidence(confidence)
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be an integer >= 1, got {resamples!r}")
    if values.size == 0:
        raise ValueError("cannot bootstrap an empty sample: there are no items")
    alpha = (1.0 - confidence) / 2.0
    ends = None if shared is None else \
        shared.quantiles(values, resamples, seed, [alpha, 1.0 - alpha])
    if ends is None:
        if draws is not None and (draws.n, draws.resamples, draws.seed) == \
                (values.size, resamples, seed):
            means = _drawn_means(values, draws)
        else:
            means = _bootstrap_means(values, resamples, seed)
        ends = np.quantile(means, [alpha, 1.0 - alpha])
    low, high = ends
    return Interval(
        low=float(low),
        high=float(high),
        estimate=float(values.mean()),
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        method="bootstrap",
    )


def _bootstrap_means(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Means of ``resamples`` resamples of ``values``, drawn in memory-bounded blocks.

    With more than one block, a helper thread draws the next block while this one
    averages the last (numpy lets go of the GIL for both): the same single stream of
    draws, in the same order, so the same means."""
    n = values.size
    rng = np.random.default_rng(seed)
    blocks = _blocks(n, resamples)
    means = np.empty(resamples, dtype=np.float64)
    if len(blocks) == 1:
        means[:] = values[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
        return means
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bootstrap") as drawer:
        drawn = drawer.submit(rng.integers, 0, n, size=(blocks[0][1], n))
        for position, (start, rows) in enumerate(blocks):
            indices = drawn.result()
            if position + 1 < len(blocks):
                drawn = drawer.submit(rng.integers, 0, n, size=(blocks[position + 1][1], n))
            means[start : start + rows] = values[indices].mean(axis=1)
    return means


def _blocks(n: int, resamples: int) -> list[tuple[int, int]]:
    """``(first row, rows)`` of each block of resamples drawn at once."""
    rows_per_block = max(1, _BLOCK_ENTRIES // n)
    return [(start, min(rows_per_block, resamples - start))
            for start in range(0, resamples, rows_per_block)]


def _drawn_means(values: np.ndarray, draws: Draws) -> np.ndarray:
    """:func:`_bootstrap_means` with the indices drawn ahead: each row's values are the
    same, in the same order, so each mean is the same float. Two threads average every
    other block (numpy lets go of the GIL)."""
    means = np.empty(draws.resamples, dtype=np.float64)
    starts = np.cumsum([0] + [len(block) for block in draws.blocks]).tolist()

    def average(first: int) -> None:
        for i in range(first, len(draws.blocks), 2):
            means[starts[i] : starts[i + 1]] = values[draws.blocks[i]].mean(axis=1)

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="bootstrap") as pool:
        list(pool.map(average, (0, 1)))
    return means


def _student_t_interval(values: np.ndarray, confidence: float) -> Interval:
    _check_confidence(confidence)
    n = values.size
    if n < 2:
        raise ValueError(f"a Student t interval needs at least 2 values, got {n}")
    mean = float(values.mean())
    standard_error = float(values.std(ddof=1)) / math.sqrt(n)
    half_width = student_t_quantile((1.0 + confidence) / 2.0, n - 1) * standard_error
    return Interval(
        low=mean - half_width,
        high=mean + half_width,
        estimate=mean,
        resamples=0,
        seed=None,
        confidence=confidence,
        method="t",
    )


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")


def _finite_array(values: Sequence[float], name: str) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a flat sequence of numbers, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        position = int(np.flatnonzero(~np.isfinite(array))[0])
        raise ValueError(f"{name}[{position}] is {array[position]!r}; values must be finite")
    return array
