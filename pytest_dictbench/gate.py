"""The vendor-CI gate: compare a run with a baseline run, and check minimum scores.

Pure: takes item records and report bodies, returns comparisons and failure lines.
A product fails the baseline gate only when its drop against the baseline, on the
items both runs scored, is statistically resolved (the bootstrap interval of the
difference lies below 0) and larger than ``max_drop`` points.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .compare import compare_records
from .methods.base import ItemRecord

__all__ = ["baseline_comparisons", "gate_failures", "group_records"]


def group_records(records: Iterable[ItemRecord]) -> dict[tuple[str, str], list[ItemRecord]]:
    """Records by (suite, product)."""
    groups: dict[tuple[str, str], list[ItemRecord]] = defaultdict(list)
    for record in records:
        groups[(record["suite"], record["product"])].append(record)
    return groups


def baseline_comparisons(current: Iterable[ItemRecord], baseline: Iterable[ItemRecord], *,
                         resamples: int, seed: int) -> list[dict[str, Any]]:
    """For each (suite, product) in both runs: this run minus the baseline."""
    now, before = group_records(current), group_records(baseline)
    comparisons = []
    for suite, product in sorted(now.keys() & before.keys()):
        result = compare_records(before[(suite, product)], now[(suite, product)],
                                 resamples=resamples, seed=seed)
        if result is not None:
            comparisons.append({"suite": suite, "product": product, **result})
    return comparisons


def gate_failures(report: Mapping[str, Any], comparisons: Sequence[Mapping[str, Any]], *,
                  max_drop: float, min_score: float | None,
                  baseline: Iterable[ItemRecord] | None = None) -> list[str]:
    """One line per reason the run fails the gate (empty when it passes).

    With a baseline, a suite x product of this run that the baseline lacks fails too:
    nothing was compared, so nothing was shown not to have dropped.
    """
    failures = []
    if baseline is not None:
        before = group_records(baseline).keys()
        for suite in report["suites"]:
            for entry in suite["products"]:
                if (suite["id"], entry["product"]) not in before:
                    failures.append(f"{suite['id']}/{entry['product']}: not in the baseline "
                                    "run, so it could not be compared")
    for c in comparisons:
        drop = -c["mean_difference"]
        if c["interval"]["high"] < 0 and drop > max_drop:
            failures.append(
                f"{c['suite']}/{c['product']}: score dropped {drop:.2f} points against the "
                f"baseline (95% interval of the change {c['interval']['low']:+.2f} to "
                f"{c['interval']['high']:+.2f}, McNemar p={c['mcnemar_p']:.3f}, n={c['n']}), "
                f"more than the allowed {max_drop:g}")
    if min_score is not None:
        for suite in report["suites"]:
            for entry in suite["products"]:
                score = entry["score"]
                if score is None or score < min_score:
                    shown = "no score" if score is None else f"{score:.2f}"
                    failures.append(f"{suite['id']}/{entry['product']}: suite score {shown} "
                                    f"is below the minimum {min_score:g}")
    return failures
