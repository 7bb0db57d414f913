"""Proposition metrics from key-point verdicts. Pure functions.

With ``K`` key points of which ``present`` are kept, ``contradicted`` are stated wrongly,
and ``insertions`` claims the reference does not support:

- recall = present / K
- precision = present / (present + contradicted + insertions), 0 when nothing was asserted
- F-beta = (1 + beta²) P R / (beta² P + R), 0 when P = R = 0

The severity-weighted variant gives each key point the weight of its severity and each
insertion the weight of a minor point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["VERDICTS", "PropositionCounts", "f_beta", "proposition_counts"]

#: Verdict names, by the 0-2 score they travel as through the judge machinery.
VERDICTS = {2: "present", 1: "missing", 0: "contradicted"}


def f_beta(precision: float, recall: float, beta: float = 1.0) -> float:
    """F-beta of ``precision`` and ``recall`` (0 when both are 0)."""
    b2 = beta * beta
    denominator = b2 * precision + recall
    return (1 + b2) * precision * recall / denominator if denominator else 0.0


@dataclass(frozen=True)
class PropositionCounts:
    """Counts (or weight sums) of key-point verdicts on one item or pooled."""

    present: float = 0.0
    missing: float = 0.0
    contradicted: float = 0.0
    insertions: float = 0.0

    @property
    def key_points(self) -> float:
        return self.present + self.missing + self.contradicted

    @property
    def recall(self) -> float:
        return self.present / self.key_points if self.key_points else 0.0

    @property
    def precision(self) -> float:
        asserted = self.present + self.contradicted + self.insertions
        return self.present / asserted if asserted else 0.0

    def f_beta(self, beta: float = 1.0) -> float:
        return f_beta(self.precision, self.recall, beta)

    def __add__(self, other: PropositionCounts) -> PropositionCounts:
        return PropositionCounts(self.present + other.present, self.missing + other.missing,
                                 self.contradicted + other.contradicted,
                                 self.insertions + other.insertions)


def proposition_counts(verdicts: Mapping[str, str], insertions: int,
                       severities: Mapping[str, str] | None = None,
                       weights: Mapping[str, float] | None = None) -> PropositionCounts:
    """Counts from ``verdicts`` (key point id -> present/missing/contradicted).

    With ``weights`` (severity -> weight) and ``severities`` (key point id -> severity),
    each key point counts its weight and each insertion the ``minor`` weight.
    """
    totals = {"present": 0.0, "missing": 0.0, "contradicted": 0.0}
    for point, verdict in verdicts.items():
        weight = 1.0
        if weights is not None and severities is not None:
            weight = float(weights[severities[point]])
        totals[verdict] += weight
    insertion_weight = float(weights["minor"]) if weights is not None else 1.0
    return PropositionCounts(totals["present"], totals["missing"], totals["contradicted"],
                             insertions * insertion_weight)


def severity_misses(verdicts: Mapping[str, str], severities: Mapping[str, str],
                    severity: str = "critical") -> tuple[Sequence[str], Sequence[str]]:
    """Key points of ``severity`` that are missing, and those contradicted."""
    missing = sorted(p for p, v in verdicts.items()
                     if v == "missing" and severities[p] == severity)
    contradicted = sorted(p for p, v in verdicts.items()
                          if v == "contradicted" and severities[p] == severity)
    return missing, contradicted
