"""Paired comparisons of products on shared items. Pure: no pytest, no I/O.

Two products are compared on the items (case, repetition) both have a scored result
for: failures (items below the method's gate) with McNemar's exact test on the
discordant items, scores with the mean per-item difference ``b - a`` and its seeded
percentile bootstrap interval. A difference is *resolved* when the interval excludes 0.
P-values are adjusted across every comparison of a run (Holm and Bonferroni).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from .methods.base import ItemRecord
from .stats import bonferroni, compare_paired, holm

__all__ = ["adjust_pvalues", "compare_products", "compare_records", "scored_by_item"]

SCORED = frozenset({"passed", "failed"})
ItemKey = tuple[str, int]


def scored_by_item(records: Iterable[ItemRecord]) -> dict[ItemKey, ItemRecord]:
    """Scored records keyed by (case id, repetition)."""
    return {(r["case_id"], r["repetition"]): r for r in records if r["status"] in SCORED}


def compare_records(a: Iterable[ItemRecord], b: Iterable[ItemRecord], *,
                    resamples: int, seed: int) -> dict[str, Any] | None:
    """Compare B with A on their shared scored items, or ``None`` when they share none."""
    left, right = scored_by_item(a), scored_by_item(b)
    shared = sorted(left.keys() & right.keys())
    if not shared:
        return None
    result = compare_paired(
        [float(left[k]["score"]) for k in shared], [float(right[k]["score"]) for k in shared],
        [left[k]["status"] == "failed" for k in shared],
        [right[k]["status"] == "failed" for k in shared],
        resamples=resamples, seed=seed)
    return result


def compare_products(by_product: Mapping[str, Sequence[ItemRecord]], *, resamples: int,
                     seed: int) -> list[dict[str, Any]]:
    """Every pair (A, B) of products, A before B by name, compared on shared items."""
    comparisons = []
    for a, b in combinations(sorted(by_product), 2):
        result = compare_records(by_product[a], by_product[b], resamples=resamples, seed=seed)
        if result is not None:
            comparisons.append({"a": a, "b": b, **result})
    return comparisons


def adjust_pvalues(comparisons: Sequence[dict[str, Any]]) -> None:
    """Add ``p_holm`` and ``p_bonferroni`` to each comparison, across all of them."""
    raw = [c["mcnemar_p"] for c in comparisons]
    for comparison, p_holm, p_bonf in zip(comparisons, holm(raw), bonferroni(raw),
                                          strict=True):
        comparison["p_holm"] = p_holm
        comparison["p_bonferroni"] = p_bonf
