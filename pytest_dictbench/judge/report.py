"""The judges' table of a report, from item records. Pure: no I/O.

Records of judged items carry ``judges`` (judge name -> rule -> score), ``pending``
(adjudications waiting for a human), ``judge_spend`` (cost of the verdicts used, per
model) and, after ``--judge-audit``, ``judge_audit`` (judge -> rule -> [cached, fresh]).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .audit import agreement, agreement_table

__all__ = ["judges_table"]


def _spend(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    total: dict[str, dict[str, float]] = {}
    for record in records:
        for model, spend in record.get("judge_spend", {}).items():
            entry = total.setdefault(model, {"input_tokens": 0, "output_tokens": 0,
                                             "cost_usd": 0.0, "verdicts": 0})
            for key in entry:
                entry[key] += spend.get(key, 0)
    return dict(sorted(total.items()))


def judges_table(records: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Agreement, human agreement, self-consistency, pending count and cost."""
    judged = [r for r in records if r.get("judges") or r.get("pending")]
    if not judged:
        return None
    names = sorted({name for r in judged for name in r.get("judges", {})})
    table: dict[str, Any] = {
        "judges": names,
        "items_judged": len(judged),
        "pending": sum(len(r.get("pending", ())) for r in judged),
        "spend": _spend(judged),
    }
    table["cost_usd"] = sum(s["cost_usd"] for s in table["spend"].values())
    if len(names) >= 2:
        first, second = names[0], names[1]
        pairs: dict[str, list[tuple[int, int]]] = {}
        for r in judged:
            a, b = r["judges"].get(first, {}), r["judges"].get(second, {})
            for rule in sorted(set(a) & set(b)):
                pairs.setdefault(rule, []).append((a[rule], b[rule]))
        table["agreement"] = {"between": [first, second],
                              **agreement_table(pairs).to_json()}
    human: dict[str, list[tuple[int, int]]] = {}
    for r in judged:
        for rule, final in r.get("rules", {}).items():
            if final.get("source") != "human":
                continue
            for name, scores in r.get("judges", {}).items():
                if rule in scores:
                    human.setdefault(name, []).append((scores[rule], final["score"]))
    if human:
        table["human_agreement"] = {n: agreement(p).to_json() for n, p in sorted(human.items())}
    audit: dict[str, dict[str, list[tuple[int, int]]]] = {}
    for r in judged:
        for name, rules in r.get("judge_audit", {}).items():
            for rule, (cached, fresh) in rules.items():
                audit.setdefault(name, {}).setdefault(rule, []).append((cached, fresh))
    if audit:
        table["self_consistency"] = {n: agreement_table(p).to_json()
                                     for n, p in sorted(audit.items())}
    return table
