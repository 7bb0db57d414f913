"""From rule scores to an item result: sources, layer means, the meaning gate, the score.

* A rule's final score is decided in this order: a person's decision (``human``), then
  the judges' agreed score (``judge``), then the automated check (``auto``). Judges see
  the automated results and may overturn them either way; the automated score and
  evidence stay in the record (``auto``). Judges that disagree overrule the check too:
  the rule waits for a person (``unjudged``, the automated result kept as ``auto``). A
  rule with none of them is ``unjudged``:
  score ``None``, left out of layer means and of the gate, and the item is
  *provisional* (see :attr:`~pytest_dictbench.model.ItemResult.provisional`).
* Layer score = mean of the layer's scored rules (0-2).
* Gate: any scored rule of a gate layer below 2 fails the item (meaning error), score 0.
* Otherwise score = 100 × Σ weight × layer / 2 / Σ weight, the sums running over layers
  that have at least one scored rule (with the default weights, which add up to 100 and
  every layer scored, this is Σ weight × layer / 2).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import JudgeError, SuiteError
from ...model import PENDING_ADJUDICATION, ItemResult, RuleScore
from .checkbase import Check
from .rules import LAYERS, layer_of

__all__ = [
    "DEFAULT_GATE",
    "DEFAULT_WEIGHTS",
    "RubricParams",
    "build_result",
    "combine",
    "layer_scores",
    "source_counts",
    "weighted_score",
]

DEFAULT_WEIGHTS: Mapping[str, float] = {"A": 50.0, "B": 25.0, "C": 10.0, "D": 15.0}
DEFAULT_GATE = "A"
UNJUDGED_EVIDENCE = "needs judgement; no verdict"


@dataclass(frozen=True)
class RubricParams:
    """The suite's ``[params]`` for the rubric: layer weights and gate layers."""

    weights: Mapping[str, float]
    gate: frozenset[str]

    @classmethod
    def from_mapping(cls, params: Mapping[str, Any]) -> RubricParams:
        """Read ``weights`` and ``gate`` (defaults A 50, B 25, C 10, D 15; gate ``"A"``)."""
        raw_weights = params.get("weights", DEFAULT_WEIGHTS)
        if not isinstance(raw_weights, Mapping) or set(raw_weights) != set(LAYERS):
            raise SuiteError(
                f"rubric params: weights must give all of A, B, C, D, got {raw_weights!r}"
            )
        weights: dict[str, float] = {}
        for layer in LAYERS:
            value = raw_weights[layer]
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise SuiteError(
                    f"rubric params: weight of layer {layer} must be a number >= 0, got {value!r}"
                )
            weights[layer] = float(value)
        if sum(weights.values()) <= 0:
            raise SuiteError("rubric params: the weights add up to 0")
        raw_gate = params.get("gate", DEFAULT_GATE)
        gate = {raw_gate} if isinstance(raw_gate, str) else set(raw_gate or ())
        gate.discard("")
        if not gate <= set(LAYERS):
            raise SuiteError(
                f"rubric params: gate must name layers among A, B, C, D, got {raw_gate!r}"
            )
        return cls(weights, frozenset(gate))


def combine(rule: str, auto: Check | None, judged: RuleScore | None) -> RuleScore:
    """The final score of ``rule`` from its automated and judged scores (either may be
    missing; a judged score of ``None`` counts as missing, except a rule the judges
    disagreed on: it stays unjudged, waiting for a person, whatever the check said)."""
    if judged is not None and judged.score is None and \
            judged.evidence.startswith(PENDING_ADJUDICATION):
        return RuleScore(rule, None, judged.evidence, "unjudged", auto=auto)
    verdict = judged if judged is not None and judged.score is not None else None
    if verdict is not None and verdict.score not in (0, 1, 2):
        raise JudgeError(f"rule {rule}: a judged score must be 0, 1 or 2, got {verdict.score!r}")
    if verdict is not None:
        source = verdict.source if verdict.source in ("judge", "human") else "judge"
        return RuleScore(rule, verdict.score, verdict.evidence, source, auto=auto)
    if auto is None:
        return RuleScore(rule, None, UNJUDGED_EVIDENCE, "unjudged")
    return RuleScore(rule, auto[0], auto[1], "auto")


def layer_scores(scores: Iterable[RuleScore]) -> dict[str, float]:
    """Mean score (0-2) of each layer that has at least one scored rule."""
    by_layer: dict[str, list[int]] = {}
    for rule_score in scores:
        if rule_score.score is not None:
            by_layer.setdefault(layer_of(rule_score.rule), []).append(rule_score.score)
    return {layer: sum(v) / len(v) for layer in LAYERS if (v := by_layer.get(layer))}


def weighted_score(layers: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """100 × Σ weight × layer / 2 / Σ weight over the layers present (0-100)."""
    total = math.fsum(weights[layer] for layer in layers)
    if total <= 0:
        return 0.0
    return 100.0 * math.fsum(weights[layer] * layers[layer] / 2 for layer in layers) / total


def source_counts(scores: Iterable[RuleScore]) -> dict[str, float]:
    """``auto_A``, ``judge_A``, ``unjudged_A`` ... : rule scores per layer by source
    (``human`` verdicts count as ``judge``)."""
    counts = {f"{kind}_{layer}": 0.0 for layer in LAYERS for kind in ("auto", "judge", "unjudged")}
    for rule_score in scores:
        kind = "judge" if rule_score.source == "human" else rule_score.source
        counts[f"{kind}_{layer_of(rule_score.rule)}"] += 1
    return counts


def _describe(rule_score: RuleScore) -> str:
    origin = "" if rule_score.source == "auto" else f" ({rule_score.source})"
    evidence = f" {rule_score.evidence}" if rule_score.evidence else ""
    return f"{rule_score.rule}={rule_score.score}{origin}{evidence}"


def build_result(scores: Sequence[RuleScore], params: RubricParams, diff: str = "") -> ItemResult:
    """Turn final rule scores into an :class:`ItemResult` (gate, score, metrics, message)."""
    layers = layer_scores(scores)
    gate_failures = [
        s for s in scores if s.score is not None and s.score < 2 and layer_of(s.rule) in params.gate
    ]
    failed = bool(gate_failures)
    metrics: dict[str, float] = {f"layer_{layer}": value for layer, value in layers.items()}
    metrics.update(source_counts(scores))
    metrics["meaning_error"] = 1.0 if failed else 0.0
    message = ""
    if failed:
        below = "; ".join(_describe(s) for s in scores if s.score is not None and s.score < 2)
        message = f"meaning error: {below}"
        if diff:
            message += f" | diff: {diff}"
    return ItemResult(
        passed=not failed,
        score=0.0 if failed else weighted_score(layers, params.weights),
        rules=tuple(scores),
        metrics=metrics,
        message=message,
        provisional=sum(1 for s in scores if s.source == "unjudged"),
    )
