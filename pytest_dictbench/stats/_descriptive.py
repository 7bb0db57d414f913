"""Descriptive statistics for reports: percentiles and latency summaries.

Percentiles use linear interpolation between order statistics, the same definition as
``numpy.percentile``'s default (Hyndman and Fan type 7): for sorted values
``x[0] <= ... <= x[n-1]`` the q-th percentile sits at position ``h = (n - 1) * q / 100``
and equals ``x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)])``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

__all__ = ["latency_summary", "median", "percentile"]


def median(values: Sequence[float]) -> float:
    """``statistics.median``; the one value itself when there is only one (most cases
    run once, and a report takes a median per case: this saves a tenth of a summary)."""
    return values[0] if len(values) == 1 else statistics.median(values)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (``q`` from 0 to 100) by linear interpolation.

    Raises:
        ValueError: no values, a value is not finite, or ``q`` is outside [0, 100].

    Example:
        >>> percentile([10, 20, 30, 40, 50], 95)  # h = 4 * 0.95 = 3.8 -> 40 + 0.8 * 10
        48.0
    """
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile q must lie in [0, 100], got {q!r}")
    ordered = sorted(_finite_floats(values))
    if not ordered:
        raise ValueError("percentile of an empty sequence is undefined")
    return _interpolate(ordered, q)


def latency_summary(values_ms: Sequence[float]) -> dict[str, float | int | None]:
    """Count, median, 95th percentile, mean, minimum and maximum of latencies in ms.

    With no values, ``n`` is 0 and every other field is ``None`` (a product whose
    outputs carry no latency is common and is not an error).

    Raises:
        ValueError: a value is negative or not finite.

    Example:
        >>> latency_summary([400, 100, 300, 200])
        {'n': 4, 'median': 250.0, 'p95': 385.0, 'mean': 250.0, 'min': 100.0, 'max': 400.0}
    """
    ordered = sorted(_finite_floats(values_ms))
    if not ordered:
        return {"n": 0, "median": None, "p95": None, "mean": None, "min": None, "max": None}
    if ordered[0] < 0.0:
        raise ValueError(f"latencies cannot be negative, got {ordered[0]!r} ms")
    return {
        "n": len(ordered),
        "median": _interpolate(ordered, 50.0),
        "p95": _interpolate(ordered, 95.0),
        "mean": math.fsum(ordered) / len(ordered),
        "min": ordered[0],
        "max": ordered[-1],
    }


def _interpolate(ordered: Sequence[float], q: float) -> float:
    position = (len(ordered) - 1) * q / 100.0
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    fraction = position - below
    return ordered[below] + fraction * (ordered[above] - ordered[below])


def _finite_floats(values: Sequence[float]) -> list[float]:
    floats = [float(v) for v in values]
    for position, value in enumerate(floats):
        if not math.isfinite(value):
            raise ValueError(f"value #{position} is {value!r}; values must be finite")
    return floats
