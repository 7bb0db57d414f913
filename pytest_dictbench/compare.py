"""Paired comparisons of products on shared items. Pure: no pytest, no I/O.

Two products are compared on the cases both have a scored result for. Repetitions of a
case are not independent samples: each case counts once, with the median of its
repetitions' scores, and as failed when more than half of its repetitions failed.
Failures (items below the method's gate) are compared with McNemar's exact test on the
discordant cases, scores with the mean per-case difference ``b - a`` and its seeded
percentile bootstrap interval. A difference is *resolved* when the interval excludes 0
(uncorrected; whether a gap survives a correction over every pair of the suite is what a
suite's chosen correction adds, below).
A provisional item (a score still waiting for judges or a person: ``provisional`` above 0
on its record) is left out, for every method: its score may still change, so a
comparison over it could be called resolved and then turn round. The comparison then
counts, per side, the cases left out that way (``provisional_a``, ``provisional_b``; only
when there are any).
P-values are adjusted within each suite (Holm and Bonferroni over that suite's
comparisons): a suite is one benchmark, and its comparisons form one family.

A suite may choose a correction for its score gaps as well (``[comparisons] correction
= "bonferroni"`` or ``"holm"``; :func:`correct_gaps`): each comparison then also carries
an ``adjusted`` interval, drawn at the confidence the correction gives it for a
family-wise 95%, and whether it is resolved there. Bonferroni: every interval at
``1 - 0.05 / m`` for ``m`` comparisons. Holm: the comparisons in the order of their
bootstrap p (:func:`stats.paired_bootstrap_p`), the k-th (from 0) at ``1 - 0.05 / (m -
k)`` while every earlier one was resolved; from the first that is not, the rest keep its
confidence and none is resolved (the step-down stops).

Which pairs: every pair while a suite has at most :data:`ALL_PAIRS_UP_TO` products
(190 comparisons at most). Above that, all pairs would grow as n(n-1)/2 (499,500 for a
sweep of 1,000 configurations), so each product is compared with the *best* one only
(the highest mean of its final per-case scores, ties broken by name): n - 1
comparisons, the best always as ``a``. :func:`comparison_scope` says which was done and
:func:`compared_pairs` lists the pairs; the reports' history and ``dictbench variation``
compare products' newest runs by the same rule (``variation.measure_variation``).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from . import stats
from .methods.base import ItemRecord
from .model import SCORED_STATUSES
from .stats import bonferroni, holm

__all__ = [
    "ALL_PAIRS_UP_TO",
    "CORRECTIONS",
    "CaseScores",
    "CaseTally",
    "adjust_pvalues",
    "compare_cases",
    "compare_products",
    "compare_records",
    "compared_pairs",
    "comparison_scope",
    "correct_gaps",
    "per_case",
]

#: The corrections a suite may choose for its score gaps, by ``[comparisons]
#: correction`` value, with the report's name.
CORRECTIONS = {"bonferroni": "Bonferroni", "holm": "Holm"}
#: Family-wise error rate of the corrected intervals.
FAMILY_ALPHA = 0.05
#: The most products a suite compares pair by pair; above it, each against the best.
ALL_PAIRS_UP_TO = 20


class CaseTally:
    """:func:`per_case` record by record (the store tallies a run's records as it writes
    them): a record counts when its score is final (a scored status, a score, and no
    part of it waiting for a judgement); a case with only provisional repetitions is
    counted as such."""

    __slots__ = ("_failures", "_scores", "_waiting")

    def __init__(self) -> None:
        self._scores: dict[Any, list[float]] = {}
        self._failures: dict[Any, int] = {}
        self._waiting: set[Any] = set()

    def add(self, record: ItemRecord) -> None:
        case = record["case_id"]
        if record.get("provisional"):
            self._waiting.add(case)
        elif record["status"] in SCORED_STATUSES and record["score"] is not None:
            if case in self._scores:
                self._scores[case].append(float(record["score"]))
            else:
                self._scores[case] = [float(record["score"])]
            if record["status"] == "failed":
                self._failures[case] = self._failures.get(case, 0) + 1

    def per_case(self) -> dict[str, tuple[float, bool]]:
        return {case: (stats.median(values),
                       2 * self._failures.get(case, 0) > len(values))
                for case, values in self._scores.items()}

    def case_scores(self) -> CaseScores:
        cases = sorted(self._scores)
        scores, failed = [], []
        for case in cases:
            values = self._scores[case]
            scores.append(stats.median(values))
            failed.append(2 * self._failures.get(case, 0) > len(values))
        return CaseScores(tuple(cases), tuple(scores), tuple(failed),
                          len(self._waiting - self._scores.keys()))


def _tally(records: Iterable[ItemRecord]) -> CaseTally:
    tally = CaseTally()
    for record in records:
        tally.add(record)
    return tally


def per_case(records: Iterable[ItemRecord]) -> dict[str, tuple[float, bool]]:
    """Case id -> (median score, failed) over the case's final scored repetitions
    (provisional ones left out)."""
    return _tally(records).per_case()


def compare_records(a: Iterable[ItemRecord], b: Iterable[ItemRecord], *,
                    resamples: int, seed: int, shared: Any = None) -> dict[str, Any] | None:
    """Compare B with A on their shared scored cases, or ``None`` when they share none.

    ``n`` is the number of shared cases; ``cases_a`` and ``cases_b`` count the cases each
    side scored (final scores only), so a comparison made on part of the cases says so;
    ``provisional_a`` / ``provisional_b`` count the provisional cases left out;
    ``cases_only_a_failed`` / ``cases_only_b_failed`` name the discordant cases (for a
    baseline comparison: the cases that pass again and those that regressed).
    ``shared``: a :class:`stats.SharedDraws` for many comparisons (the same result).
    """
    return compare_cases(CaseScores.of(a), CaseScores.of(b), resamples=resamples, seed=seed,
                         shared=shared)


@dataclass(frozen=True)
class CaseScores:
    """What a paired comparison reads of one side: each case's final score (the median
    of its final repetitions) and whether it failed (:func:`per_case`), cases sorted,
    and how many cases only have provisional repetitions."""

    cases: tuple[str, ...]
    scores: tuple[float, ...]
    failed: tuple[bool, ...]
    provisional: int = 0

    @classmethod
    def of(cls, records: Iterable[ItemRecord]) -> CaseScores:
        return _tally(records).case_scores()

    def per_case(self) -> dict[str, tuple[float, bool]]:
        return dict(zip(self.cases, zip(self.scores, self.failed, strict=True), strict=True))


def compare_cases(a: CaseScores, b: CaseScores, *, resamples: int, seed: int,
                  shared: Any = None) -> dict[str, Any] | None:
    """:func:`compare_records` on the sides' :class:`CaseScores`."""
    left, right = a.per_case(), b.per_case()
    shared_cases = sorted(left.keys() & right.keys())
    if not shared_cases:
        return None
    result = {**stats.compare_paired(
        [left[c][0] for c in shared_cases], [right[c][0] for c in shared_cases],
        [left[c][1] for c in shared_cases], [right[c][1] for c in shared_cases],
        resamples=resamples, seed=seed, shared=shared), "cases_a": len(left),
        "cases_b": len(right),
        "cases_only_a_failed": [c for c in shared_cases if left[c][1] and not right[c][1]],
        "cases_only_b_failed": [c for c in shared_cases if right[c][1] and not left[c][1]]}
    if a.provisional or b.provisional:
        result["provisional_a"], result["provisional_b"] = a.provisional, b.provisional
    return result


def _best(by_product: Mapping[str, Sequence[ItemRecord]]) -> str:
    """The product with the highest mean final per-case score (ties: first by name; a
    product with no final score comes last)."""
    def key(name: str) -> tuple[bool, float, str]:
        scores = [score for score, _ in per_case(by_product[name]).values()]
        return (not scores, -statistics.fmean(scores) if scores else 0.0, name)

    return min(by_product, key=key)


def comparison_scope(by_product: Mapping[str, Sequence[ItemRecord]]) -> dict[str, Any]:
    """Which comparisons :func:`compare_products` makes: ``all_pairs``, or
    ``each_against_best`` with the ``reference`` product."""
    many = len(by_product) > ALL_PAIRS_UP_TO
    return {"mode": "each_against_best" if many else "all_pairs",
            "reference": _best(by_product) if many else None,
            "products": len(by_product), "all_pairs_up_to": ALL_PAIRS_UP_TO}


def compared_pairs(by_product: Mapping[str, Sequence[ItemRecord]],
                   scope: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """The (A, B) pairs the rule compares, in the order of ``by_product``: every two
    products (A first), or above :data:`ALL_PAIRS_UP_TO` products each product (B)
    against the best (A). ``scope``: :func:`comparison_scope` of ``by_product``, when
    already worked out."""
    reference = (scope or comparison_scope(by_product))["reference"]
    if reference is None:
        return list(combinations(by_product, 2))
    return [(reference, b) for b in by_product if b != reference]


def compare_products(by_product: Mapping[str, Sequence[ItemRecord]], *, resamples: int,
                     seed: int) -> list[dict[str, Any]]:
    """Every pair (A, B) of products, A before B by name, compared on shared items; above
    :data:`ALL_PAIRS_UP_TO` products, each product (B) against the best (A)."""
    comparisons = []
    for a, b in compared_pairs({name: by_product[name] for name in sorted(by_product)}):
        result = compare_records(by_product[a], by_product[b], resamples=resamples, seed=seed)
        if result is not None:
            comparisons.append({"a": a, "b": b, **result})
    return comparisons


def adjust_pvalues(comparisons: Sequence[dict[str, Any]]) -> None:
    """Add ``p_holm`` and ``p_bonferroni`` to each comparison; ``comparisons`` is one
    family (one suite's comparisons)."""
    raw = [c["mcnemar_p"] for c in comparisons]
    for comparison, p_holm, p_bonf in zip(comparisons, holm(raw), bonferroni(raw),
                                          strict=True):
        comparison["p_holm"] = p_holm
        comparison["p_bonferroni"] = p_bonf


def _shared_scores(a: Iterable[ItemRecord], b: Iterable[ItemRecord]
                   ) -> tuple[list[float], list[float]]:
    left, right = per_case(a), per_case(b)
    shared = sorted(left.keys() & right.keys())
    return [left[c][0] for c in shared], [right[c][0] for c in shared]


def _level(confidence: float) -> str:
    """``99.67%``: a confidence as the report names it (2 places, trailing zeros cut)."""
    return f"{100 * confidence:.2f}".rstrip("0").rstrip(".") + "%"


def correct_gaps(comparisons: Sequence[dict[str, Any]],
                 by_product: Mapping[str, Sequence[ItemRecord]], correction: str, *,
                 resamples: int, seed: int) -> None:
    """Add ``adjusted`` to each of one suite's ``comparisons`` (see the module
    docstring): ``method``, ``pairs``, ``confidence``, ``label``, ``interval``,
    ``resolved``, and the McNemar p of the same correction (``mcnemar_p``)."""
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; use "
                         f"{' or '.join(sorted(CORRECTIONS))}")
    m = len(comparisons)
    if not m:
        return
    scores = [_shared_scores(by_product[c["a"]], by_product[c["b"]]) for c in comparisons]
    raw_p = [c["mcnemar_p"] for c in comparisons]
    mcnemar = bonferroni(raw_p) if correction == "bonferroni" else holm(raw_p)
    if correction == "bonferroni":
        order = list(range(m))
        levels = [1 - FAMILY_ALPHA / m] * m
    else:
        p = [stats.paired_bootstrap_p(x, y, resamples, seed) for x, y in scores]
        order = sorted(range(m), key=lambda i: (p[i], i))
        levels = [1 - FAMILY_ALPHA / (m - k) for k in range(m)]
    stopped: float | None = None
    for step, index in enumerate(order):
        confidence = levels[step] if stopped is None else stopped
        interval = stats.paired_bootstrap(*scores[index], resamples, seed, confidence)
        resolved = stopped is None and not interval.contains(0.0)
        if correction == "holm" and not resolved and stopped is None:
            stopped = confidence
        comparisons[index]["adjusted"] = {
            "method": correction, "pairs": m, "confidence": confidence,
            "label": f"{_level(confidence)} {CORRECTIONS[correction]}",
            "interval": {"low": interval.low, "high": interval.high},
            "resolved": resolved, "mcnemar_p": mcnemar[index]}
