"""Suite tables for the rubric, built from item records (``items.jsonl`` lines).

Only records with status ``passed`` or ``failed`` and a score are *scored*; a failed item
scores 0 and so pulls the means down. With repetitions, every repetition is one scored
record. Layer means are taken before the gate and shown on 0-100 (layer / 2 × 100).
Grouping fields (genre, source, short) are read from the record's ``case`` and, when
missing there, from the suite's case.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...model import SCORED_STATUSES, Suite
from ...text.diff import diff_against_closest
from .observations import observations
from .rules import LAYERS, sorted_rules

__all__ = ["aggregate_records"]

Record = Mapping[str, Any]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _case_field(record: Record, suite: Suite, name: str) -> Any:
    case_info = record.get("case") or {}
    if name in case_info:
        return case_info[name]
    try:
        return suite.case(str(record.get("case_id"))).get(name)
    except KeyError:
        return None


def _metric(record: Record, name: str) -> float:
    return float((record.get("metrics") or {}).get(name, 0.0))


def _group_row(records: Sequence[Record]) -> dict[str, Any]:
    return {
        "items": len(records),
        "score": _mean([float(r["score"]) for r in records]),
        "meaning_errors": int(sum(_metric(r, "meaning_error") for r in records)),
    }


def _grouped(records: Sequence[Record], key: Callable[[Record], str]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Record]] = {}
    for record in records:
        groups.setdefault(key(record), []).append(record)
    return {name: _group_row(groups[name]) for name in sorted(groups)}


def _summary(records: Sequence[Record], scored: Sequence[Record]) -> dict[str, Any]:
    summary = _group_row(scored)
    summary["passed"] = sum(1 for r in scored if r.get("status") == "passed")
    for layer in LAYERS:
        values = [
            float(r["metrics"][f"layer_{layer}"])
            for r in scored
            if f"layer_{layer}" in (r.get("metrics") or {})
        ]
        mean = _mean(values)
        summary[f"layer_{layer}"] = None if mean is None else mean / 2 * 100
        for kind in ("auto", "judge", "unjudged"):
            summary[f"{kind}_{layer}"] = int(sum(_metric(r, f"{kind}_{layer}") for r in scored))
    return summary


def _rule_counts(
    records: Sequence[Record], hit: Callable[[Mapping[str, Any]], bool]
) -> dict[str, int]:
    counts: dict[str, int] = {}
    for record in records:
        for rule, value in (record.get("rules") or {}).items():
            if hit(value):
                counts[rule] = counts.get(rule, 0) + 1
    return {rule: counts[rule] for rule in sorted_rules(counts)}


def _judged_over_auto(value: Mapping[str, Any]) -> bool:
    """A judge or a person decided a rule that an automated check had scored too."""
    return value.get("source") in ("judge", "human") and isinstance(value.get("auto"), Mapping)


def _failing_items(scored: Sequence[Record], suite: Suite) -> list[dict[str, Any]]:
    rows = []
    for record in scored:
        if record.get("status") != "failed":
            continue
        try:
            expected = suite.case(str(record.get("case_id"))).get("expected", ())
        except KeyError:
            expected = ()
        rules = record.get("rules") or {}
        rows.append(
            {
                "case_id": record.get("case_id"),
                "repetition": record.get("repetition", 1),
                "rules": {
                    rule: {
                        "score": rules[rule]["score"],
                        "evidence": rules[rule].get("evidence", ""),
                    }
                    for rule in sorted_rules(rules)
                    if rules[rule].get("score") is not None and rules[rule]["score"] < 2
                },
                "diff": diff_against_closest(str(record.get("text") or ""), list(expected)),
            }
        )
    return sorted(rows, key=lambda row: (str(row["case_id"]), row["repetition"]))


def aggregate_records(records: Sequence[Record], suite: Suite) -> dict[str, Any]:
    """The rubric's tables: summary, by_genre, by_source, by_short, rule_failures,
    unjudged, judged_over_auto and overturned (per rule, items where a judge or a person
    decided a rule the automated check had scored, and where their score differs from
    it), failing_items, and the observation tables (``observations``, ``by_voice``:
    see :mod:`.observations`)."""
    scored = [
        r for r in records if r.get("status") in SCORED_STATUSES and r.get("score") is not None
    ]

    def short_key(record: Record) -> str:
        return "short" if _case_field(record, suite, "short") else "not_short"

    return {
        "summary": _summary(records, scored),
        "by_genre": _grouped(scored, lambda r: str(_case_field(r, suite, "genre") or "-")),
        "by_source": _grouped(scored, lambda r: str(_case_field(r, suite, "source") or "-")),
        "by_short": _grouped(scored, short_key),
        "rule_failures": _rule_counts(
            scored, lambda v: v.get("score") is not None and v["score"] < 2
        ),
        "unjudged": _rule_counts(scored, lambda v: v.get("source") == "unjudged"),
        "judged_over_auto": _rule_counts(scored, _judged_over_auto),
        "overturned": _rule_counts(
            scored, lambda v: _judged_over_auto(v) and v["auto"]["score"] != v.get("score")),
        "failing_items": _failing_items(scored, suite),
        **observations(scored, suite),
    }
