"""One set of drawn bootstrap indices shared by many bootstraps of the same size.

A trend compares hundreds of pairs of runs of the same cases, each with the seeded
percentile bootstrap of :func:`paired_bootstrap`; every one of them draws the same index
matrix (it depends on ``n``, ``resamples`` and ``seed`` only). :class:`SharedDraws` draws
it once per size (:func:`draw_indices`) and gives each bootstrap the same interval, bit
for bit, at a fraction of the cost:

- The differences between two runs of a product are mostly 0 (most outputs do not
  change). With ``k`` non-zero differences, each resample's mean is, up to rounding,
  ``counts[r] @ values / n``, where ``counts[r, i]`` is how often resample ``r`` drew
  item ``i``: ``k * resamples`` multiplications instead of ``n * resamples`` look-ups.
- The interval's ends are ``numpy.quantile`` (``"linear"``) of the means, which reads
  two order statistics per end. Those are taken exact: every resample whose
  approximate mean lies within ``2 * eps`` of the order statistics around each end is
  averaged exactly as :func:`mean_ci` averages it (the same rows of indices, the same
  numpy reduction); every other resample lies more than ``eps`` from those order
  statistics either way, so its rank is the same with its exact or its approximate mean,
  and the quantiles of the mixed vector equal those of the exact one. ``eps`` bounds the
  difference between any two summation orders of the same ``n`` terms (each is within
  ``(n - 1)`` unit roundoffs of the true sum, relative to the sum of magnitudes,
  which is at most ``n * max|value|``), with room to spare.
- Differences that are mostly non-zero (more than one in 8) are averaged in full over
  the shared indices, as :func:`mean_ci` with ``draws`` does.

A size is drawn ahead only when it is asked for a second time (drawing costs about what
two bootstraps cost), at most :data:`MAX_ENTRIES` index entries per size, and for at
most two sizes at a time; anything else takes the plain bootstrap.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._intervals import Draws, _blocks, _drawn_means, draw_indices

__all__ = ["MAX_ENTRIES", "SharedDraws"]

#: The most index entries (``n * resamples``) drawn ahead for one size: 2 bytes each,
#: plus one byte of counts.
MAX_ENTRIES = 1 << 25
#: Sizes held at once.
_SIZES = 2
#: A sample with more than one non-zero value in this many is averaged in full.
_DENSE_ONE_IN = 8


@dataclass(frozen=True)
class _Size:
    """The drawn indices of one size and how often each resample drew each item."""

    draws: Draws
    #: first row of each block of ``draws``
    starts: np.ndarray
    #: ``counts[i, r]``: how often resample ``r`` drew item ``i`` (items x resamples)
    counts: np.ndarray


def _counted(draws: Draws) -> _Size | None:
    """The counts of each block's rows (None if a count does not fit a byte)."""
    n, resamples = draws.n, draws.resamples
    counts = np.empty((n, resamples), dtype=np.uint8)
    for (start, rows), block in zip(_blocks(n, resamples), draws.blocks, strict=True):
        flat = block.astype(np.int64)
        flat *= rows
        flat += np.arange(rows, dtype=np.int64)[:, None]
        counted = np.bincount(flat.ravel(), minlength=n * rows)
        if counted.max() > np.iinfo(np.uint8).max:
            return None
        counts[:, start : start + rows] = counted.reshape(n, rows)
    starts = np.cumsum([0] + [len(block) for block in draws.blocks])
    return _Size(draws=draws, starts=starts, counts=counts)


def _ranks_around(q: float, resamples: int) -> list[int]:
    """The ranks ``numpy.quantile`` (``"linear"``) reads for ``q``, with one more on each
    side (so a rounding of ``q * (resamples - 1)`` cannot miss one)."""
    base = math.floor(q * (resamples - 1))
    return sorted({min(max(k, 0), resamples - 1) for k in range(base - 1, base + 3)})


class SharedDraws:
    """Drawn indices for the bootstraps of one ``resamples`` and ``seed``, shared by
    every bootstrap of the same size (pass it as ``shared=`` to
    :func:`paired_bootstrap`, :func:`compare_paired` or ``compare.compare_records``)."""

    def __init__(self, resamples: int, seed: int) -> None:
        self.resamples = resamples
        self.seed = seed
        self._sizes: OrderedDict[int, _Size | None] = OrderedDict()
        self._asked: set[int] = set()

    def quantiles(self, values: np.ndarray, resamples: int, seed: int,
                  qs: Sequence[float]) -> np.ndarray | None:
        """``numpy.quantile`` of the bootstrap means of ``values`` at ``qs``, exactly as
        the plain bootstrap gives them; None when this size is not shared (yet)."""
        n = values.size
        if (resamples, seed) != (self.resamples, self.seed) or n * resamples > MAX_ENTRIES:
            return None
        size = self._size(n)
        if size is None:
            return None
        approx = self._approximate(values, size)
        if approx is None:
            return np.quantile(_drawn_means(values, size.draws), qs)
        means, eps = approx
        ranks = sorted({k for q in qs for k in _ranks_around(q, resamples)})
        ordered = np.partition(means, ranks)
        near = np.zeros(resamples, dtype=bool)
        for q in qs:
            around = _ranks_around(q, resamples)
            near |= (means >= ordered[around[0]] - 2 * eps) & \
                (means <= ordered[around[-1]] + 2 * eps)
        rows = np.flatnonzero(near)
        blocks = np.searchsorted(size.starts, rows, side="right") - 1
        for block in np.unique(blocks):
            chosen = rows[blocks == block]
            indices = size.draws.blocks[block][chosen - size.starts[block]]
            means[chosen] = values[indices].mean(axis=1)
        return np.quantile(means, qs)

    def high_may_be_negative(self, values: np.ndarray, confidence: float = 0.95) -> bool:
        """False only when the upper end of the interval of the mean of ``values`` (at
        ``confidence``, this object's resamples and seed) is certainly at least 0: fewer
        resamples than the end's order statistic needs have a mean that may be below 0.
        True when unsure, or when this size is not drawn yet (nothing is drawn here)."""
        size = self._sizes.get(values.size)
        if size is None:
            return True
        approx = self._approximate(values, size)
        if approx is None:
            return True
        means, eps = approx
        below = int(np.count_nonzero(means < eps))
        return below >= _ranks_around(1.0 - (1.0 - confidence) / 2.0, self.resamples)[0]

    @staticmethod
    def _approximate(values: np.ndarray, size: _Size) -> tuple[np.ndarray, float] | None:
        """Each resample's mean up to ``eps`` (None when too few values are 0 for it)."""
        n = values.size
        nonzero = np.flatnonzero(values)
        if nonzero.size == 0 or nonzero.size * _DENSE_ONE_IN > n:
            return None
        means = np.einsum("k,kr->r", values[nonzero], size.counts[nonzero])
        means /= n
        eps = 4.0 * (n + 2) * float(np.finfo(np.float64).eps) * \
            float(np.abs(values[nonzero]).max())
        return means, eps

    def _size(self, n: int) -> _Size | None:
        if n in self._sizes:
            self._sizes.move_to_end(n)
            return self._sizes[n]
        if n not in self._asked:  # the first bootstrap of a size is a plain one
            self._asked.add(n)
            return None
        size = _counted(draw_indices(n, self.resamples, self.seed))
        self._sizes[n] = size
        while len(self._sizes) > _SIZES:
            self._sizes.popitem(last=False)
        return size
