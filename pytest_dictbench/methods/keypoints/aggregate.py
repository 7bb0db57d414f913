"""Tables of a keypoints suite x product, from item records. Pure.

Figures are means over items (macro averages) and fractions 0..1:

- ``overall``, ``fbeta``, ``recall``, ``precision`` (and the weighted variants): over the
  items with every verdict known (provisional items are left out and counted);
- ``names_f1`` / ``names_precision`` / ``names_recall``: over the items where either side
  has an extracted item;
- ``critical_missing``, ``critical_contradicted``, ``insertions``: counts summed over the
  items with verdicts (``None`` when no item has them).

``analyser`` names the morphological analyser, its dictionary (with versions) and the
split mode that produced the names figures.

``items`` lists every item with its figures, its critical misses and contradictions, and
the extracted names, numbers and coined words of both sides, so a reader can check them.
A private suite's rows (records already carry the keyed case id) list only how many
items each side had, missed and added (``names_reference_count`` ...), never the
items: they are taken from the private reference.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from ...model import Case, Suite
from ...private import is_private, public_case_id
from ...text.japanese import analyser_info
from ..base import ItemRecord
from .casedata import KeypointsCase
from .names import extract_names
from .params import KeypointsParams

__all__ = ["aggregate_records"]

_JUDGED = ("overall", "fbeta", "recall", "precision", "weighted_fbeta", "weighted_recall",
           "weighted_precision")
_NAMES = ("names_f1", "names_precision", "names_recall")
_COUNTS = ("critical_missing", "critical_contradicted", "insertions", "contradicted",
           "missing", "present")


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _cases_by_shown_id(suite: Suite) -> dict[str, Case]:
    """Case by the id its records carry (the keyed id in a private suite)."""
    if is_private(suite):
        return {public_case_id(suite, c.id): c for c in suite.cases}
    return {c.id: c for c in suite.cases}


def _names_counts(m: Any) -> dict[str, Any]:
    tp, fp, fn = (int(m.get(k, 0)) for k in ("names_tp", "names_fp", "names_fn"))
    return {"names_reference_count": tp + fn, "names_hypothesis_count": tp + fp,
            "names_missed_count": fn, "names_extra_count": fp}


def _item_row(record: ItemRecord, case: Case, private: bool, match: str) -> dict[str, Any]:
    m = record.get("metrics", {})
    kcase = KeypointsCase.from_case(case)
    severities = {p.id: p.severity for p in kcase.key_points}
    rules = record.get("rules", {})
    critical = {p for p, s in severities.items() if s == "critical"}
    row: dict[str, Any] = {
        "case_id": record["case_id"], "repetition": record["repetition"],
        "provisional": bool(m.get("provisional")),
        **{k: m.get(k) for k in ("overall", "names_f1", "fbeta", "recall", "precision",
                                 "insertions")},
        "critical_missing": sorted(p for p in critical
                                   if rules.get(p, {}).get("score") == 1),
        "critical_contradicted": sorted(p for p in critical
                                        if rules.get(p, {}).get("score") == 0),
    }
    if private:
        return {**row, **_names_counts(m)}
    ref = extract_names(kcase.reference, match)
    hyp = extract_names(record.get("text") or "", match)
    return {**row, "names_reference": sorted(ref.items), "names_hypothesis": sorted(hyp.items),
            "names_missed": ref.not_in(hyp), "names_extra": hyp.not_in(ref)}


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
    for name in _COUNTS:  # nothing judged: no counts (not zero of each)
        summary[name] = int(sum(m.get(name, 0) for m in judged)) if judged else None
    cases = _cases_by_shown_id(suite)
    private = is_private(suite)
    match = KeypointsParams.from_mapping(suite.params).names_match
    return {"summary": summary, "analyser": analyser_info(),
            "items": [_item_row(r, cases[str(r["case_id"])], private, match)
                      for r in records]}
