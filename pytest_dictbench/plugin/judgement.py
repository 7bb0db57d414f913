"""What the judges decided for one item (:class:`Judgement`), made from a judging run's
outcomes: the judged rule scores, or an error, or why the item is not scored yet, and
the fields its record carries (each judge's scores, pending adjudications, spend)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from ..judge.records import JudgeRequest
from ..model import RuleScore

__all__ = ["NO_JUDGEMENT", "Judgement", "judgement_of"]


@dataclass(frozen=True)
class Judgement:
    """What the judges decided for one item."""

    judged: Mapping[str, RuleScore] = field(default_factory=dict)
    #: Fields added to the item record (judge scores, pending, spend).
    record: Mapping[str, Any] = field(default_factory=dict)
    #: Set when a judge request failed: the item is an error, never a score.
    error: str | None = None
    #: Set when verdicts are pending in a batch or were held back by the budget: the
    #: item is not scored (reported as not tested) and its product not ranked.
    unscored: str | None = None


#: The judgement of an item nobody judges (shared: a Judgement is immutable).
NO_JUDGEMENT = Judgement()



def judgement_of(run: Any, combined: Any, request: JudgeRequest,
                 audit: Mapping[str, Any], listed: set[tuple[str, ...]]) -> Judgement:
    """The judgement of ``request``'s item from a judging ``run`` and its ``combined``
    scores (people's decisions over agreed verdicts), with its ``audit`` pairs; a pending
    rule already in ``listed`` (per output) is not listed again."""
    from ..judge.batch import BUDGET_DETAIL

    errors, unscored, scores, spend = [], [], {}, {}
    for config in run.judges:
        outcome = run.outcome(request.key, config.name)
        if outcome is None:
            continue
        if outcome.status == "error":
            errors.append(f"judge {config.name!r}: {outcome.error}: {outcome.detail}")
        if outcome.status == "pending" or outcome.detail == BUDGET_DETAIL:
            unscored.append(f"judge {config.name!r}: {outcome.detail}")
        if outcome.verdict is not None:
            scores[config.name] = {r: v.score for r, v in outcome.verdict.rules.items()}
            usage = outcome.verdict.billed_usage
            entry = spend.setdefault(config.model, {
                "input_tokens": 0, "output_tokens": 0, "cache_write_tokens": 0,
                "cache_read_tokens": 0, "cost_usd": 0.0, "verdicts": 0})
            entry["input_tokens"] += usage.input_tokens
            entry["output_tokens"] += usage.output_tokens
            entry["cache_write_tokens"] += usage.cache_write_tokens
            entry["cache_read_tokens"] += usage.cache_read_tokens
            cost = outcome.verdict.cost_decimal(config)
            if cost is None or entry["cost_usd"] is None:  # unknown, never $0
                entry["cost_usd"] = None
                why = config.missing_price or f"judge {config.name!r}: an answer " \
                    "without valid usage"
                if why not in entry.setdefault("cost_unknown", []):
                    entry["cost_unknown"].append(why)
            else:
                entry["cost_usd"] = float(Decimal(str(entry["cost_usd"])) + cost)
            entry["verdicts"] += 1
    pending = []
    for p in combined.pending:
        target = (p.suite, p.case, p.product, p.output_hash, p.rule)
        if target[:4] == (request.suite, request.case_id, request.product,
                          request.output_hash) and target not in listed:
            listed.add(target)
            pending.append(p.to_json())
    models = {c.name: f"{c.family}:{c.model}" + (f"@{urlsplit(c.base_url).hostname}"
                                                 if c.base_url else "")
              for c in run.judges}
    record = {"judges": scores, "pending": pending, "judge_spend": spend,
              "judge_models": models}
    if audit:
        record["judge_audit"] = dict(audit)
    if errors and getattr(request.task, "protocol", None) is not None:
        # A method with its own protocol (keypoints) shows a failed request as rules
        # still unjudged: the item is provisional, never a score, and says why.
        final = dict(combined.final.get(request.key, {}))
        why = "judge error: " + "; ".join(errors)
        for rule in request.rule_ids:
            if final.get(rule) is None or final[rule].score is None:
                final[rule] = RuleScore(rule, None, why, "unjudged")
        return Judgement(judged=final, record=record)
    if errors:
        return Judgement(record=record, error="; ".join(errors))
    if unscored:
        return Judgement(unscored="verdicts not available: " + "; ".join(unscored))
    return Judgement(judged=combined.final.get(request.key, {}), record=record)
