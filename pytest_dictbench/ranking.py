"""Rank eligibility, environment cohorts and competition ranks. Pure: no pytest, no I/O.

A product is ranked within a suite only when

1. the suite's execution gate is open (``[execution_gate] ready``, default true);
2. every case has a scored result for every required repetition;
3. it has no rule waiting for a human adjudication and no provisional score (an item
   record whose ``provisional`` count is above 0: rules or other parts of the score
   still waiting for a judge or a person, whatever the method);
4. the suite's run-validity conditions hold (``[validity]``, declared before results);
5. it declares every same-environment field of the suite (``[ranking]
   same_environment``) and at least ``minimum_products`` eligible products share its
   values of those fields (its cohort).

Ranks are competition ranks (1, 1, 3) on the reported value: rounded to ``[ranking]
decimals`` or, by default, to the places the metric is published with (3 for 0..1
fractions such as WER, 1 for scores; see ``precision.py``), so WER 0.195 and 0.218 do
not tie, and 0.2104 and 0.2096 (both shown as 0.210) do.
Every other product is listed as not ranked, with the reason. There is no ranking across
suites.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import SuiteError
from .methods.base import ItemRecord
from .model import SCORED_STATUSES
from .precision import published_places
from .stats import competition_ranks

__all__ = ["RankingRules", "provisional_counts", "rank_products"]


@dataclass(frozen=True)
class RankingRules:
    """How a suite ranks products, from its manifest."""

    metric: str = "score"
    higher_is_better: bool = True
    #: Places the ranked values are compared at; ``None``: the metric's published places.
    decimals: int | None = None
    minimum_products: int = 2
    same_environment: tuple[str, ...] = ()
    gate_ready: bool = True
    blocking_items: tuple[str, ...] = ()
    max_errors: int | None = None
    #: Output flag (a boolean field of output lines, e.g. ``fallback``) -> most allowed.
    max_flagged: Mapping[str, int] | None = None
    #: The suite declares LLM judges (changes only the advice of the not-ranked reason).
    judged: bool = False

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any], *, metric: str,
                      higher_is_better: bool, where: Any = None) -> RankingRules:
        ranking = dict(manifest.get("ranking", {}))
        validity = dict(manifest.get("validity", {}))
        gate = dict(manifest.get("execution_gate", {}))
        rules = cls(
            metric=str(ranking.pop("metric", metric)),
            higher_is_better=bool(ranking.pop("higher_is_better", higher_is_better)),
            decimals=int(ranking["decimals"]) if "decimals" in ranking else None,
            minimum_products=int(ranking.pop("minimum_products", 2)),
            same_environment=tuple(ranking.pop("same_environment", ())),
            gate_ready=bool(gate.pop("ready", True)),
            blocking_items=tuple(gate.pop("blocking_items", ())),
            max_errors=validity.pop("max_errors", None),
            max_flagged=validity.pop("max_flagged", None),
            judged="judge" in manifest,
        )
        ranking.pop("decimals", None)
        leftover = [f"ranking.{k}" for k in ranking] + [f"validity.{k}" for k in validity]
        leftover += [f"execution_gate.{k}" for k in gate]
        if leftover:
            raise SuiteError(f"unknown field(s) {', '.join(leftover)}", path=where)
        return rules

    @property
    def places(self) -> int:
        """Places ranked values are rounded to before ties are judged."""
        return self.decimals if self.decimals is not None else published_places(self.metric)


def provisional_counts(records: Sequence[ItemRecord]) -> tuple[int, int]:
    """(unjudged judgements, items having any) over scored records: a provisional score
    when the first is above 0."""
    counts = [int(r.get("provisional") or 0) for r in records
              if r["status"] in SCORED_STATUSES]
    return sum(counts), sum(1 for n in counts if n)


def _unjudged_examples(records: Sequence[ItemRecord], most: int = 3) -> str:
    """The first provisional items with their unjudged rules: ``e.g. ja-005 (C1, C2)``."""
    waiting = sorted((r for r in records if int(r.get("provisional") or 0)
                      and r["status"] in SCORED_STATUSES),
                     key=lambda r: (str(r["case_id"]), r.get("repetition", 1)))
    shown = []
    for r in waiting[:most]:
        rules = [name for name, rule in (r.get("rules") or {}).items()
                 if isinstance(rule, dict) and rule.get("source") == "unjudged"]
        listed = ", ".join(rules[:4]) + (", ..." if len(rules) > 4 else "")
        shown.append(f"{r['case_id']}{f' ({listed})' if listed else ''}")
    more = ", ..." if len(waiting) > most else ""
    return "e.g. " + "; ".join(shown) + more


def _lacking(record: ItemRecord) -> str:
    """``case: status`` of a missing result; an item not tested because its output was
    refused before sending says so and why (``aiff1: unsupported (.aiff audio is not a
    format whisper-1 accepts ...)``, PV20)."""
    status = record["status"]
    output = record.get("output_status")
    if status == "not_tested" and output not in (None, "not_tested"):
        status = output
    message = str(record.get("message") or "")
    reason = message.removeprefix(f"{status}: ") if message.startswith(f"{status}: ") else ""
    return f"{record['case_id']}: {status}" + (f" ({reason})" if reason else "")


def _exclusion(records: Sequence[ItemRecord], cases: int, repetitions: int,
               rules: RankingRules) -> str | None:
    """Why a product cannot be ranked on its own record (cohorts aside), or None.

    ``[validity] max_errors`` lets up to that many errored items (capture or output
    errors) stand in for results; without it every required result must be scored.
    """
    errors = sum(r["status"] == "error" for r in records)
    if rules.max_errors is not None and errors > rules.max_errors:
        return f"run invalid: {errors} errors (at most {rules.max_errors} allowed)"
    complete = {(r["case_id"], r["repetition"]) for r in records
                if r["status"] in SCORED_STATUSES}
    excused = min(errors, rules.max_errors or 0)
    missing = cases * repetitions - len(complete) - excused
    if missing > 0:
        lacking = sorted({_lacking(r) for r in records
                          if (r["case_id"], r["repetition"]) not in complete})
        shown = ", ".join(lacking[:3]) + (", ..." if len(lacking) > 3 else "")
        detail = f" ({shown})" if shown else ""
        return f"incomplete: {missing} of {cases * repetitions} required results missing{detail}"
    pending = sum(len(r.get("pending", ())) for r in records)
    if pending:
        return f"{pending} rule score(s) pending human adjudication"
    waiting, items = provisional_counts(records)
    if waiting:
        how = ("run --judge=live, or replay a complete verdict cache" if rules.judged
               else "declare judges, or add human decisions")
        return (f"provisional score: {waiting} unjudged judgement(s) on {items} item(s), "
                f"{_unjudged_examples(records)} ({how})")
    for flag, most in sorted((rules.max_flagged or {}).items()):
        count = sum(bool(r.get("flags", {}).get(flag)) for r in records)
        if count > most:
            return f"run invalid: {count} items flagged {flag!r} (at most {most} allowed)"
    return None


def _apart(cohort: Mapping[str, Any], others: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """What sets a cohort apart from the nearest other one (fewest differing fields, then
    most members, then first name): ``its os='y' differs from os='x' of a, b``."""
    if not others:
        return "no other product is eligible"
    # grouped by the differing fields *and* their values: each group is one cohort, so
    # every product named holds the values shown (CF3)
    groups: dict[tuple[tuple[str, Any], ...], list[str]] = defaultdict(list)
    for name, values in others:
        groups[tuple((f, values.get(f)) for f in cohort
                     if values.get(f) != cohort[f])].append(name)
    differing, names = min(groups.items(),
                           key=lambda g: (len(g[0]), -len(g[1]), sorted(g[1])))
    fields, values = [f for f, _ in differing], dict(differing)
    shown = ", ".join(sorted(names)[:3]) + (", ..." if len(names) > 3 else "")
    return (f"its {', '.join(f'{f}={cohort[f]!r}' for f in fields)} "
            f"{'differs' if len(fields) == 1 else 'differ'} from "
            f"{', '.join(f'{f}={values.get(f)!r}' for f in fields)} of {shown}")


def rank_products(entries: Sequence[Mapping[str, Any]],
                  records: Mapping[str, Sequence[ItemRecord]], *, cases: int,
                  repetitions: int, rules: RankingRules) -> dict[str, dict[str, Any]]:
    """``{product: {"rank": int | None, "reason": str | None, "cohort": {...}}}``.

    :param entries: per product ``{"product", "environment", "value"}`` where ``value``
        is the ranked metric.
    """
    result: dict[str, dict[str, Any]] = {}
    cohorts: dict[tuple[Any, ...], list[str]] = defaultdict(list)
    values = {}
    for entry in entries:
        name, env = entry["product"], entry.get("environment") or {}
        cohort = {f: env.get(f) for f in rules.same_environment}
        result[name] = {"rank": None, "reason": None, "cohort": cohort}
        undeclared = [f for f in rules.same_environment if f not in env]
        if not rules.gate_ready:
            blocking = ", ".join(rules.blocking_items) or "none listed"
            reason = f"execution gate closed (blocking: {blocking})"
        else:
            reason = _exclusion(records[name], cases, repetitions, rules)
        if reason is None and undeclared:
            reason = f"environment field(s) not declared: {', '.join(undeclared)}"
        if reason is None and entry.get("value") is None:
            reason = f"no value for {rules.metric!r}"
        if reason:
            result[name]["reason"] = reason
            continue
        values[name] = float(entry["value"])
        cohorts[tuple(repr(cohort[f]) for f in rules.same_environment)].append(name)
    for members in cohorts.values():
        if len(members) < rules.minimum_products:
            cohort = result[members[0]]["cohort"]
            others = [m for group in cohorts.values() if group is not members for m in group]
            why = _apart(cohort, [(m, result[m]["cohort"]) for m in others])
            for name in members:
                result[name]["reason"] = (
                    f"only {len(members)} eligible product{'s' if len(members) != 1 else ''} "
                    f"in its environment cohort (at least {rules.minimum_products} needed): "
                    f"{why}")
            continue
        ranks = competition_ranks({n: values[n] for n in members},
                                  rules.higher_is_better, rules.places)
        for name, rank in ranks.items():
            result[name]["rank"] = rank
    return dict(sorted(result.items()))
