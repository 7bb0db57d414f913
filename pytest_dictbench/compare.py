"""Paired comparisons of products on shared items. Pure: no pytest, no I/O.

Two products are compared on the cases both have a scored result for. Repetitions of a
case are not independent samples: each case counts once, with the median of its
repetitions' scores, and as failed when more than half of its repetitions failed.
Failures (items below the method's gate) are compared with McNemar's exact test on the
discordant cases, scores with the mean per-case difference ``b - a`` and its seeded
percentile bootstrap interval. A difference is *resolved* when the interval excludes 0;
*resolved after Bonferroni* (``resolved_bonferroni``) when its interval at 1 - 0.05/m,
over the suite's m pairs, does: the gap then survives a correction over every pair.
A provisional item (a score still waiting for judges or a person: ``provisional`` above 0
on its record) is left out, for every method: its score may still change, so a
comparison over it could be called resolved and then turn round. The comparison then
counts, per side, the cases left out that way (``provisional_a``, ``provisional_b``; only
when there are any).
P-values are adjusted within each suite (Holm and Bonferroni over that suite's
comparisons): a suite is one benchmark, and its comparisons form one family.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from . import stats
from .methods.base import ItemRecord
from .model import SCORED_STATUSES
from .stats import bonferroni, holm

__all__ = ["adjust_pvalues", "compare_products", "compare_records", "per_case"]



def _final(record: ItemRecord) -> bool:
    """A scored record whose score is final (no part of it waits for a judgement)."""
    return record["status"] in SCORED_STATUSES and record["score"] is not None \
        and not record.get("provisional")


def _provisional_cases(records: Iterable[ItemRecord]) -> int:
    """Cases with a provisional repetition and no final one."""
    waiting, final = set(), set()
    for r in records:
        if _final(r):
            final.add(r["case_id"])
        elif r.get("provisional"):
            waiting.add(r["case_id"])
    return len(waiting - final)


def per_case(records: Iterable[ItemRecord]) -> dict[str, tuple[float, bool]]:
    """Case id -> (median score, failed) over the case's final scored repetitions
    (provisional ones left out)."""
    scores: dict[str, list[float]] = defaultdict(list)
    failures: dict[str, int] = defaultdict(int)
    for r in records:
        if _final(r):
            scores[r["case_id"]].append(float(r["score"]))
            failures[r["case_id"]] += r["status"] == "failed"
    return {case: (statistics.median(values), 2 * failures[case] > len(values))
            for case, values in scores.items()}


def compare_records(a: Iterable[ItemRecord], b: Iterable[ItemRecord], *,
                    resamples: int, seed: int) -> dict[str, Any] | None:
    """Compare B with A on their shared scored cases, or ``None`` when they share none.

    ``n`` is the number of shared cases; ``cases_a`` and ``cases_b`` count the cases each
    side scored (final scores only), so a comparison made on part of the cases says so;
    ``provisional_a`` / ``provisional_b`` count the provisional cases left out.
    """
    a, b = list(a), list(b)
    left, right = per_case(a), per_case(b)
    shared = sorted(left.keys() & right.keys())
    if not shared:
        return None
    result = {**stats.compare_paired(
        [left[c][0] for c in shared], [right[c][0] for c in shared],
        [left[c][1] for c in shared], [right[c][1] for c in shared],
        resamples=resamples, seed=seed), "cases_a": len(left), "cases_b": len(right)}
    waiting = (_provisional_cases(a), _provisional_cases(b))
    if any(waiting):
        result["provisional_a"], result["provisional_b"] = waiting
    return result


#: The family-wise error rate of ``resolved_bonferroni``: each of the m pairs' score-gap
#: intervals is drawn at 1 - 0.05 / m, so a gap resolved there survives a Bonferroni
#: correction over all pairs (``resolved`` is the uncorrected 95 % interval).
FAMILY_ALPHA = 0.05


def compare_products(by_product: Mapping[str, Sequence[ItemRecord]], *, resamples: int,
                     seed: int) -> list[dict[str, Any]]:
    """Every pair (A, B) of products, A before B by name, compared on shared items."""
    comparisons = []
    for a, b in combinations(sorted(by_product), 2):
        result = compare_records(by_product[a], by_product[b], resamples=resamples, seed=seed)
        if result is not None:
            comparisons.append({"a": a, "b": b, **result})
    for comparison in comparisons:  # the score gap corrected over the family (PS20)
        left = per_case(by_product[comparison["a"]])
        right = per_case(by_product[comparison["b"]])
        shared = sorted(left.keys() & right.keys())
        interval = stats.paired_bootstrap([left[c][0] for c in shared],
                                          [right[c][0] for c in shared], resamples, seed,
                                          1 - FAMILY_ALPHA / len(comparisons))
        comparison["interval_bonferroni"] = interval.as_dict()
        comparison["resolved_bonferroni"] = not interval.contains(0.0)
    return comparisons


def adjust_pvalues(comparisons: Sequence[dict[str, Any]]) -> None:
    """Add ``p_holm`` and ``p_bonferroni`` to each comparison; ``comparisons`` is one
    family (one suite's comparisons)."""
    raw = [c["mcnemar_p"] for c in comparisons]
    for comparison, p_holm, p_bonf in zip(comparisons, holm(raw), bonferroni(raw),
                                          strict=True):
        comparison["p_holm"] = p_holm
        comparison["p_bonferroni"] = p_bonf
