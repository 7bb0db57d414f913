"""Tables of a keypoints suite x product, from item records. Pure.

Figures are means over items (macro averages) and fractions 0..1:

- ``overall``, ``fbeta``, ``recall``, ``precision`` (and the weighted variants): over the
  items with every verdict known (provisional items are left out and counted);
- ``names_f1`` / ``names_precision`` / ``names_recall``: over the items where either side
  has an extracted item;
- ``critical_missing``, ``critical_contradicted``, ``insertions``: counts summed.

``items`` lists every item with its figures, its critical misses and contradictions, and
the extracted names, numbers and coined words of both sides, so a reader can check them.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from ...model import Suite
from ..base import ItemRecord
from .casedata import KeypointsCase
from .names import extract_names

__all__ = ["aggregate_records"]

_JUDGED = ("overall", "fbeta", "recall", "precision", "weighted_fbeta", "weighted_recall",
           "weighted_precision")
_NAMES = ("names_f1", "names_precision", "names_recall")
_COUNTS = ("critical_missing", "critical_contradicted", "insertions", "contradicted",
           "missing", "present")


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _item_row(record: ItemRecord, suite: Suite) -> dict[str, Any]:
    m = record.get("metrics", {})
    kcase = KeypointsCase.from_case(suite.case(record["case_id"]))
    severities = {p.id: p.severity for p in kcase.key_points}
    rules = record.get("rules", {})
    critical = {p for p, s in severities.items() if s == "critical"}
    ref = extract_names(kcase.reference)
    hyp = extract_names(record.get("text") or "")
    return {
        "case_id": record["case_id"], "repetition": record["repetition"],
        "provisional": bool(m.get("provisional")),
        **{k: m.get(k) for k in ("overall", "names_f1", "fbeta", "recall", "precision",
                                 "insertions")},
        "critical_missing": sorted(p for p in critical
                                   if rules.get(p, {}).get("score") == 1),
        "critical_contradicted": sorted(p for p in critical
                                        if rules.get(p, {}).get("score") == 0),
        "names_reference": sorted(ref.items), "names_hypothesis": sorted(hyp.items),
        "names_missed": sorted(ref.items - hyp.items),
        "names_extra": sorted(hyp.items - ref.items),
    }


def aggregate_records(records: Sequence[ItemRecord], suite: Suite) -> dict[str, Any]:
    """``summary`` and ``items`` (see the module docstring)."""
    metrics = [r.get("metrics", {}) for r in records]
    judged = [m for m in metrics if not m.get("provisional")]
    summary: dict[str, Any] = {"items": len(records), "judged_items": len(judged),
                               "provisional": len(metrics) - len(judged),
                               "empty": sum(1 for r in records if r.get("empty"))}
    for name in _JUDGED:
        values = [float(m[name]) for m in judged if m.get(name) is not None]
        if name in ("overall", "fbeta", "recall", "precision") or values:
            summary[name] = _mean(values)
    applies = [m for m in metrics if m.get("names_applies")]
    for name in _NAMES:
        summary[name] = _mean([float(m[name]) for m in applies])
    for name in _COUNTS:
        summary[name] = int(sum(m.get(name, 0) for m in judged))
    return {"summary": summary, "items": [_item_row(r, suite) for r in records]}
