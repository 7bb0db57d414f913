"""Paired bootstrap intervals of statistics other than a mean difference.

Both products' values of the same case are resampled together: each resample draws
``n`` case indices with replacement from ``numpy.random.default_rng(seed)`` (the rows
:func:`~._intervals.paired_bootstrap` draws for the same ``n``, ``resamples`` and
``seed``) and computes the statistic on both sides from the same cases. The interval
ends are ``numpy.quantile`` (linear, type 7) of the resampled statistic at
``(1 - confidence) / 2`` and ``(1 + confidence) / 2``; resamples where the statistic is
undefined (a zero denominator with no value for 0/0, a zero base of a relative change)
are left out, and counted in the interval's ``resamples``.

- :func:`paired_ratio_difference`: ``sum(num_b) / sum(den_b) - sum(num_a) / sum(den_a)``.
  A mean is the ratio with every denominator 1; a pooled F1 is ``2 TP / (2 TP + FP +
  FN)``; a pooled error rate is ``edits / reference length``. A case where a figure does
  not apply to a side has numerator and denominator 0 there.
- :func:`relative_change`: ``stat(b) / stat(a) - 1`` for the mean, the median or the
  95th percentile (a product's cost per item, its median and p95 latency).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from ._intervals import Interval, _blocks, _check_confidence, _finite_array

__all__ = ["paired_ratio_difference", "relative_change", "relative_changes"]

Statistic = Literal["mean", "median", "p95"]
_STATISTICS = ("mean", "median", "p95")


def _resampled(n: int, resamples: int, seed: int,
               statistic: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``statistic(indices)`` for every resample's row of case indices, block by block."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be an integer >= 1, got {resamples!r}")
    rng = np.random.default_rng(seed)
    out = np.empty(resamples, dtype=np.float64)
    for start, rows in _blocks(n, resamples):
        out[start:start + rows] = statistic(rng.integers(0, n, size=(rows, n)))
    return out


def _interval(estimate: float, draws: np.ndarray, resamples: int, seed: int,
              confidence: float) -> Interval:
    defined = draws[np.isfinite(draws)]
    if not math.isfinite(estimate) or defined.size == 0:
        nan = float("nan")
        return Interval(nan, nan, estimate, int(defined.size), seed, confidence)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(defined, [alpha, 1.0 - alpha])
    return Interval(float(low), float(high), estimate, int(defined.size), seed, confidence)


def _ratio(num: np.ndarray, den: np.ndarray, empty: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = num / den
    return np.where(den == 0, empty, ratio)


def paired_ratio_difference(num_a: Sequence[float], den_a: Sequence[float],
                            num_b: Sequence[float], den_b: Sequence[float], *,
                            resamples: int, seed: int, confidence: float = 0.95,
                            empty: float = float("nan")) -> Interval:
    """Interval of ``sum(num_b)/sum(den_b) - sum(num_a)/sum(den_a)`` over the same cases.

    ``empty`` is a ratio's value when its denominator sums to 0 (1.0 for an F1 with
    nothing to find and nothing found, NaN when the figure is then undefined).

    Example:
        >>> iv = paired_ratio_difference([1, 0], [1, 1], [1, 1], [1, 1], resamples=50,
        ...                              seed=1)
        >>> iv.estimate
        0.5
    """
    _check_confidence(confidence)
    arrays = [_finite_array(v, name) for v, name in
              ((num_a, "num_a"), (den_a, "den_a"), (num_b, "num_b"), (den_b, "den_b"))]
    if len({a.size for a in arrays}) != 1 or arrays[0].size == 0:
        raise ValueError("paired figures must be aligned per case and not empty")
    na, da, nb, db = arrays

    def difference(rows: np.ndarray) -> np.ndarray:
        return (_ratio(nb[rows].sum(axis=1), db[rows].sum(axis=1), empty)
                - _ratio(na[rows].sum(axis=1), da[rows].sum(axis=1), empty))

    estimate = float(_ratio(np.array([nb.sum()]), np.array([db.sum()]), empty)[0]
                     - _ratio(np.array([na.sum()]), np.array([da.sum()]), empty)[0])
    draws = _resampled(na.size, resamples, seed, difference)
    return _interval(estimate, draws, resamples, seed, confidence)


def relative_change(a: Sequence[float], b: Sequence[float], statistic: Statistic, *,
                    resamples: int, seed: int, confidence: float = 0.95) -> Interval:
    """Interval of ``stat(b) / stat(a) - 1`` over the same cases (``stat`` the mean,
    median or 95th percentile, type 7); ``estimate`` is NaN when ``stat(a)`` is 0.

    Example:
        >>> relative_change([100, 200], [50, 100], "mean", resamples=20, seed=1).estimate
        -0.5
    """
    (interval,) = relative_changes(a, b, (statistic,), resamples=resamples, seed=seed,
                                   confidence=confidence)
    return interval


def _sorted_statistic(statistic: str) -> Callable[[np.ndarray], np.ndarray]:
    """The statistic of each row of row-sorted values (type 7 for the quantiles)."""
    if statistic == "mean":
        return lambda rows: rows.mean(axis=1)
    q = 0.5 if statistic == "median" else 0.95

    def quantile(rows: np.ndarray) -> np.ndarray:
        position = (rows.shape[1] - 1) * q
        below = math.floor(position)
        above = min(below + 1, rows.shape[1] - 1)
        return rows[:, below] + (position - below) * (rows[:, above] - rows[:, below])
    return quantile


def relative_changes(a: Sequence[float], b: Sequence[float],
                     statistics: Sequence[Statistic], *, resamples: int, seed: int,
                     confidence: float = 0.95) -> list[Interval]:
    """:func:`relative_change` of several statistics over the same resamples: each
    resample's values are sorted once for all of them (the same draws as one at a time,
    so the same intervals)."""
    _check_confidence(confidence)
    unknown = [s for s in statistics if s not in _STATISTICS]
    if unknown:
        raise ValueError(f"unknown statistic {unknown[0]!r}; use mean, median or p95")
    first, second = _finite_array(a, "a"), _finite_array(b, "b")
    if first.size != second.size or first.size == 0:
        raise ValueError("paired figures must be aligned per case and not empty")
    ofs = [_sorted_statistic(s) for s in statistics]

    def changes(rows: np.ndarray) -> np.ndarray:
        left, right = np.sort(first[rows], axis=1), np.sort(second[rows], axis=1)
        out = np.empty((len(ofs), rows.shape[0]))
        for k, of in enumerate(ofs):
            base = of(left)
            with np.errstate(divide="ignore", invalid="ignore"):
                out[k] = np.where(base == 0, np.nan, of(right) / base - 1.0)
        return out

    estimates = changes(np.arange(first.size)[np.newaxis, :])[:, 0]
    draws = _resampled_many(first.size, resamples, seed, changes, len(ofs))
    return [_interval(float(estimates[k]), draws[k], resamples, seed, confidence)
            for k in range(len(ofs))]


def _resampled_many(n: int, resamples: int, seed: int,
                    statistic: Callable[[np.ndarray], np.ndarray], count: int) -> np.ndarray:
    """:func:`_resampled` for a statistic giving ``count`` values per row."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be an integer >= 1, got {resamples!r}")
    rng = np.random.default_rng(seed)
    out = np.empty((count, resamples), dtype=np.float64)
    for start, rows in _blocks(n, resamples):
        out[:, start:start + rows] = statistic(rng.integers(0, n, size=(rows, n)))
    return out
