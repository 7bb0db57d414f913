"""A product's score on a suite over stored runs, with the runs where it dropped: the
series ``dictbench trend`` prints. Pure: summaries and item records in.

A point is one run's suite score with its interval (as its ``dictbench.json`` gave
them). A run whose score fell below the run before it, on the same suite version, is
compared with that run item by item (``compare.compare_records``, seeded bootstrap); it
is flagged as a *drop* when the paired interval lies below 0 (resolved), so the night a
product dropped is named, not only seen. A new suite version starts the series again.

Most falls are noise: a fall whose paired mean difference lies within one standard
error of 0 is not bootstrapped (a percentile interval's upper end lies about two
standard errors above the mean, so such a fall is never resolved); this keeps a trend
over a thousand runs under a second.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from .compare import compare_records, per_case
from .methods.base import ItemRecord

__all__ = ["BARS", "sparkline", "trend_points"]


def _may_resolve(before: Sequence[ItemRecord], now: Sequence[ItemRecord]) -> bool:
    """Whether the paired fall from ``before`` to ``now`` lies more than one standard
    error below 0 (only then can its bootstrap interval lie below 0)."""
    left, right = per_case(before), per_case(now)
    diffs = [right[c][0] - left[c][0] for c in left.keys() & right.keys()]
    if len(diffs) < 2:
        return bool(diffs) and diffs[0] < 0
    mean = statistics.fmean(diffs)
    error = statistics.stdev(diffs) / math.sqrt(len(diffs))
    return mean + error < 0 if error else mean < 0

#: The terminal sparkline's bars, lowest to highest.
BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float | None]) -> str:
    """One bar per value, scaled between the lowest and the highest (a gap for none)."""
    known = [v for v in values if v is not None]
    if not known:
        return ""
    low, high = min(known), max(known)
    span = high - low
    return "".join(" " if v is None else BARS[round((v - low) / span * (len(BARS) - 1))]
                   if span else BARS[len(BARS) // 2] for v in values)


def trend_points(summaries: Sequence[Any], items_of: Callable[[str], Sequence[ItemRecord]],
                 *, resamples: int, seed: int) -> list[dict[str, Any]]:
    """One point per summary (oldest first): ``run_id``, ``finished_utc``,
    ``git_commit``, ``suite_version``, ``score``, ``low``, ``high``, and ``drop`` (the
    paired comparison with the run before, when the score fell and the fall is
    resolved) or ``new_version`` at the first run of a suite version."""
    points: list[dict[str, Any]] = []
    previous = None
    for summary in summaries:
        point = {"run_id": summary.run_id, "finished_utc": summary.finished_utc,
                 "git_commit": summary.git_commit, "suite_version": summary.suite_version,
                 "score": summary.score, "low": summary.low, "high": summary.high,
                 "drop": None, "new_version": False}
        if previous is not None and previous.suite_version != summary.suite_version:
            point["new_version"] = True
        elif previous is not None and summary.score is not None and \
                previous.score is not None and summary.score < previous.score:
            before, now = items_of(previous.run_id), items_of(summary.run_id)
            if _may_resolve(before, now):
                comparison = compare_records(before, now, resamples=resamples, seed=seed)
                if comparison is not None and comparison["interval"]["high"] < 0:
                    point["drop"] = comparison
        points.append(point)
        previous = summary
    return points
