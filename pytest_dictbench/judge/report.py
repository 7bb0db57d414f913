"""The judges' table of a report, from item records. Pure: no I/O.

Records of judged items carry ``judges`` (judge name -> rule -> score), ``pending``
(adjudications waiting for a human), ``judge_spend`` (cost of the verdicts used, per
model) and, after ``--judge-audit``, ``judge_audit`` (judge -> rule -> [cached, fresh]).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from .audit import COUNT_RULES, agreement, agreement_table, count_agreement

__all__ = ["RULE_HEAD", "judges_table", "rule_rows"]

#: Columns of the per-rule judging table (see :func:`rule_rows`).
RULE_HEAD = ("Product", "Rule", "Scored by all judges", "Sent to a human", "Share",
             "Agreement with humans")


def _spend(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Spend per model summed over records, in exact decimals; a cost some record could
    not know makes the model's ``cost_usd`` ``None``, with the reasons in
    ``cost_unknown``."""
    total: dict[str, dict[str, Any]] = {}
    for record in records:
        for model, spend in record.get("judge_spend", {}).items():
            entry = total.setdefault(model, {"input_tokens": 0, "output_tokens": 0,
                                             "cache_write_tokens": 0, "cache_read_tokens": 0,
                                             "cost_usd": Decimal(0), "verdicts": 0})
            for key in ("input_tokens", "output_tokens", "cache_write_tokens",
                        "cache_read_tokens", "verdicts"):
                entry[key] += spend.get(key, 0)
            if spend.get("cost_usd") is None or entry["cost_usd"] is None:
                entry["cost_usd"] = None
                why = entry.setdefault("cost_unknown", [])
                why.extend(w for w in spend.get("cost_unknown", ()) if w not in why)
            else:
                entry["cost_usd"] += Decimal(str(spend["cost_usd"]))
    for entry in total.values():
        if entry["cost_usd"] is not None:
            entry["cost_usd"] = float(entry["cost_usd"])
    return dict(sorted(total.items()))


def _human_by_rule(records: Iterable[Mapping[str, Any]]
                   ) -> dict[str, dict[str, list[tuple[int, int]]]]:
    """judge -> rule -> (judge score, human score) over rules a human decided."""
    found: dict[str, dict[str, list[tuple[int, int]]]] = {}
    for r in records:
        for rule, final in r.get("rules", {}).items():
            if final.get("source") != "human":
                continue
            for name, scores in r.get("judges", {}).items():
                if rule in scores:
                    found.setdefault(name, {}).setdefault(rule, []).append(
                        (scores[rule], final["score"]))
    return found


def adjudication_share(records: Iterable[Mapping[str, Any]], names: list[str]
                       ) -> dict[str, Any] | None:
    """Per rule: of the rules every judge scored, how many they disagreed on (and so
    sent to a human). ``None`` with fewer than two judges."""
    if len(names) < 2:
        return None
    counts: dict[str, list[int]] = {}
    for r in records:
        scored = [r.get("judges", {}).get(n, {}) for n in names]
        for rule in sorted(set.intersection(*(set(s) for s in scored))):
            entry = counts.setdefault(rule, [0, 0])
            entry[0] += 1
            entry[1] += len({s[rule] for s in scored}) > 1

    def row(judged: int, sent: int) -> dict[str, Any]:
        return {"judged": judged, "sent": sent,
                "share": round(sent / judged, 6) if judged else None}

    return {"overall": row(sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values())),
            "rules": {rule: row(*c) for rule, c in sorted(counts.items())}}


def judges_table(records: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Agreement, human agreement (pooled and per rule), the share of rules sent to
    adjudication per rule, self-consistency, pending count and cost."""
    judged = [r for r in records if r.get("judges") or r.get("pending")]
    if not judged:
        return None
    names = sorted({name for r in judged for name in r.get("judges", {})})
    models = {n: m for r in judged for n, m in r.get("judge_models", {}).items()}
    table: dict[str, Any] = {
        "judges": names,
        "judge_models": dict(sorted(models.items())),
        "items_judged": len(judged),
        "pending": sum(len(r.get("pending", ())) for r in judged),
        "spend": _spend(judged),
    }
    costs = [s["cost_usd"] for s in table["spend"].values()]
    table["cost_usd"] = None if None in costs else float(sum(Decimal(str(c)) for c in costs))
    missing = sorted({w for s in table["spend"].values() for w in s.get("cost_unknown", ())})
    if missing:
        table["cost_missing"] = missing
    if len(names) >= 2:
        first, second = names[0], names[1]
        pairs: dict[str, list[tuple[int, int]]] = {}
        for r in judged:
            a, b = r["judges"].get(first, {}), r["judges"].get(second, {})
            for rule in sorted(set(a) & set(b)):
                pairs.setdefault(rule, []).append((a[rule], b[rule]))
        table["agreement"] = {"between": [first, second],
                              **agreement_table(pairs).to_json()}
    by_judge = _human_by_rule(judged)
    human = {n: [p for rule, pairs in by_rule.items() if rule not in COUNT_RULES
                 for p in pairs] for n, by_rule in by_judge.items()}
    if any(human.values()):
        table["human_agreement"] = {n: agreement(p).to_json()
                                    for n, p in sorted(human.items()) if p}
        table["human_agreement_rules"] = {
            n: agreement_table(by_rule).to_json()["rules"]
            for n, by_rule in sorted(by_judge.items())}
    counts = {n: {rule: count_agreement(p).to_json() for rule, p in sorted(by_rule.items())
                  if rule in COUNT_RULES} for n, by_rule in sorted(by_judge.items())}
    if any(counts.values()):
        table["human_agreement_counts"] = {n: c for n, c in counts.items() if c}
    sent = adjudication_share(judged, names)
    if sent is not None:
        table["adjudication"] = sent
    audit: dict[str, dict[str, list[tuple[int, int]]]] = {}
    for r in judged:
        for name, rules in r.get("judge_audit", {}).items():
            for rule, (cached, fresh) in rules.items():
                audit.setdefault(name, {}).setdefault(rule, []).append((cached, fresh))
    if audit:
        table["self_consistency"] = {n: agreement_table(p).to_json()
                                     for n, p in sorted(audit.items())}
    return table


def rule_rows(entries: Iterable[Mapping[str, Any]]) -> list[list[str]]:
    """Per product and rule: how often the judges disagreed (sent to adjudication) and
    each judge's agreement with human decisions (``agreed/n``), as text cells."""
    rows = []
    for entry in entries:
        j = entry.get("judging") or {}
        sent = (j.get("adjudication") or {}).get("rules", {})
        human = j.get("human_agreement_rules") or {}
        for rule in sorted(set(sent) | {r for t in human.values() for r in t}):
            s = sent.get(rule, {})
            share = s.get("share")
            agree = "; ".join(f"{name}: {t[rule]['agreed']}/{t[rule]['n']}"
                              for name, t in sorted(human.items()) if rule in t) or "-"
            rows.append([str(entry.get("product", "")), rule, str(s.get("judged", 0)),
                         str(s.get("sent", 0)), "-" if share is None else f"{share:.3f}",
                         agree])
    return rows
