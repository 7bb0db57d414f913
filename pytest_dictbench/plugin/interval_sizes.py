"""The sample sizes a run's score intervals will have, known at collection: a large
run's report helper draws their bootstrap indices while the tests run; and, once a
serial run has scored every item ahead (``ahead.py``), the intervals themselves."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from ..aggregate import IntervalSource, StatsOptions, case_scores
from ..methods.base import Method
from ..model import Suite
from .ahead import ScoredRecords

__all__ = ["expected_samples", "prefetch_intervals"]


def expected_samples(items: Sequence[pytest.Item], method_of: Callable[[Suite], Method],
                     options: StatsOptions) -> list[tuple[int, int]]:
    """``(cases, bootstrap seed)`` of each suite and product whose score interval the
    reports will draw, if every collected item is scored (a method that ranks no
    product overall draws none)."""
    cases: dict[tuple[str, str], set[str]] = {}
    seeds: dict[str, int | None] = {}
    for item in items:
        suite: Suite | None = getattr(item, "suite", None)
        if suite is None or getattr(item, "case", None) is None:
            continue
        if suite.id not in seeds:
            seeds[suite.id] = interval_seed(suite, method_of, options)
        if seeds[suite.id] is not None:
            held: Any = item  # a dictbench item: its product and case are set
            cases.setdefault((suite.id, held.product.name), set()).add(held.case.id)
    return sorted({(len(ids), seeds[suite_id]) for (suite_id, _), ids in cases.items()})  # type: ignore[misc]


def prefetch_intervals(source: IntervalSource, records: ScoredRecords,
                       method_of: Callable[[Suite], Method], suites: Mapping[str, Suite],
                       options: StatsOptions) -> None:
    """Start each suite and product's score interval from its scored ``records`` as the
    report will ask for it (:func:`aggregate.case_scores`, the suite's own seed), so
    that the report build finds it drawn."""
    for (suite_id, _product), scored in sorted(records.items()):
        suite = suites.get(suite_id)
        seed = interval_seed(suite, method_of, options) if suite is not None else None
        values = case_scores(scored) if seed is not None else []
        if values:
            source.prefetch(values, options.resamples, seed)


def interval_seed(suite: Suite, method_of: Callable[[Suite], Method],
                  options: StatsOptions) -> int | None:
    """The bootstrap seed of ``suite``'s score intervals (its own, or the run's);
    ``None`` when its method ranks no product overall, and so draws none."""
    if not getattr(method_of(suite), "overall_ranking", True):
        return None
    return options.for_suite(suite).seed
