"""A product's score on a suite over stored runs, with the runs where it dropped: the
series ``dictbench trend`` prints. Pure: summaries and each run's case scores in.

A point is one run's suite score with its interval (as its ``dictbench.json`` gave
them). A run whose score fell below the run before it, on the same suite version, is
compared with that run case by case (``compare.compare_cases``, seeded bootstrap); it
is flagged as a *drop* when the paired interval lies below 0 (resolved), so the night a
product dropped is named, not only seen. A new suite version starts the series again.

Most falls are noise, and a trend over a thousand runs answers in under a second, by
three devices that change no number (docs/store.md, "Performance"):

- each run's cases are read from the store's ``case_scores`` (one row per run, read for
  every run in one query), not from its items;
- a fall whose paired mean difference lies within one standard error of 0 is not
  bootstrapped (a percentile interval's upper end lies about two standard errors above
  the mean, so such a fall is never resolved);
- the falls share one set of drawn bootstrap indices per number of cases
  (``stats.SharedDraws``), which gives each interval bit for bit, and first rules out,
  exactly, the falls whose interval cannot lie below 0.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import stats
from .compare import CaseScores, compare_cases
from .store.interface import Store, StoreError

__all__ = ["BARS", "sparkline", "store_trend", "trend_points"]

#: Falls whose numpy mean + standard error lies this close to 0 (relative to the largest
#: difference) are decided with the standard library's exact sums instead.
_CLOSE = 1e-9


def differences(before: CaseScores, now: CaseScores,
                arrays: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """``now - before`` per shared case, cases sorted (as ``compare_cases`` pairs them);
    ``arrays``: both sides' scores as arrays already."""
    if before.cases == now.cases:
        left, right = arrays or (np.asarray(before.scores, dtype=np.float64),
                                 np.asarray(now.scores, dtype=np.float64))
        return right - left
    left = dict(zip(before.cases, before.scores, strict=True))
    right = dict(zip(now.cases, now.scores, strict=True))
    shared = sorted(left.keys() & right.keys())
    return np.asarray([right[c] for c in shared], dtype=np.float64) - \
        np.asarray([left[c] for c in shared], dtype=np.float64)


def may_resolve(diffs: np.ndarray) -> bool:
    """Whether the paired fall lies more than one standard error below 0 (only then can
    its bootstrap interval lie below 0): ``fmean + stdev / sqrt(n) < 0``, decided with
    numpy unless numpy's sums come too close to 0 to tell."""
    n = diffs.size
    if n < 2:
        return n == 1 and bool(diffs[0] < 0)
    value = float(diffs.mean()) + float(diffs.std(ddof=1)) / math.sqrt(n)
    close = _CLOSE * float(np.abs(diffs).max())
    if abs(value) > close:
        return value < 0
    exact = diffs.tolist()
    mean, error = statistics.fmean(exact), statistics.stdev(exact) / math.sqrt(n)
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


def trend_points(summaries: Sequence[Any], cases_of: Callable[[str], CaseScores], *,
                 resamples: int, seed: int) -> list[dict[str, Any]]:
    """One point per summary (oldest first): ``run_id``, ``finished_utc``,
    ``git_commit``, ``suite_version``, ``score``, ``low``, ``high``, and ``drop`` (the
    paired comparison with the run before, ``compare.compare_cases``, when the score
    fell and the fall is resolved) or ``new_version`` at the first run of a suite
    version. ``cases_of(run_id)``: that run's cases of the suite x product."""
    points: list[dict[str, Any]] = []
    shared = stats.SharedDraws(resamples, seed)
    previous = None
    arrays: dict[str, np.ndarray] = {}  # the scores of the last two runs compared

    def scores(run_id: str, cases: CaseScores) -> np.ndarray:
        if run_id not in arrays:
            if len(arrays) > 1:
                arrays.clear()
            arrays[run_id] = np.asarray(cases.scores, dtype=np.float64)
        return arrays[run_id]

    for summary in summaries:
        point = {"run_id": summary.run_id, "finished_utc": summary.finished_utc,
                 "git_commit": summary.git_commit, "suite_version": summary.suite_version,
                 "score": summary.score, "low": summary.low, "high": summary.high,
                 "drop": None, "new_version": False}
        if previous is not None and previous.suite_version != summary.suite_version:
            point["new_version"] = True
        elif previous is not None and summary.score is not None and \
                previous.score is not None and summary.score < previous.score:
            before, now = cases_of(previous.run_id), cases_of(summary.run_id)
            diffs = differences(before, now, (scores(previous.run_id, before),
                                              scores(summary.run_id, now)))
            if may_resolve(diffs) and shared.high_may_be_negative(diffs):
                comparison = compare_cases(before, now, resamples=resamples, seed=seed,
                                           shared=shared)
                if comparison is not None and comparison["interval"]["high"] < 0:
                    point["drop"] = comparison
        points.append(point)
        previous = summary
    return points


def store_trend(store: Store, suite: str, product: str, *, suite_version: str | None = None,
                cohort: str | None = None, resamples: int, seed: int) -> list[dict[str, Any]]:
    """:func:`trend_points` of a suite x product over a store's runs (``suite_version``
    and ``cohort`` narrow them); runs recorded before the store kept ``case_scores``
    are read from their items."""
    summaries = store.summaries(suite, product, suite_version=suite_version, cohort=cohort)
    if not summaries:
        raise StoreError(f"no stored run of {product} on {suite}")
    cases = store.case_scores(suite, product, [s.run_id for s in summaries])

    def cases_of(run_id: str) -> CaseScores:
        if run_id not in cases:
            cases[run_id] = CaseScores.of(store.item_scores(run_id, suite, product))
        return cases[run_id]

    return trend_points(summaries, cases_of, resamples=resamples, seed=seed)
