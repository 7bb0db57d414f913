"""What the human-readable reports show, worked out once for Markdown and HTML alike.

Pure: takes the ``dictbench.json`` body and the item records, returns plain data (no
markup). Number formatting lives here too so both formats print the same figures.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..methods.base import ItemRecord
from ..methods.error_rate import NO_SPACE_LANGUAGES
from ..model import SCORED_STATUSES, Suite
from ..precision import is_fraction, published_places
from ..stats import median
from ..text.diff import UNITS, diff_against_closest

__all__ = [
    "EXPECTED_FIELDS",
    "FailingItem",
    "GroupTable",
    "MetricGroups",
    "error_items",
    "expected_texts",
    "failing_items",
    "fmt",
    "fmt_interval",
    "fmt_p",
    "fmt_score",
    "group_tables",
    "is_fraction",
    "metric_groups",
    "rule_count_tables",
    "rule_key",
    "shared_cell",
    "summary_metrics",
]


#: Case fields holding the expected output(s) a product's text is diffed against, per
#: method, in order of preference (the first field present wins).
EXPECTED_FIELDS: Mapping[str, tuple[str, ...]] = {
    "error_rate": ("references", "reference"),
    "verbatim": ("verbatim",),
    "rubric": ("expected",),
}
_FALLBACK_FIELDS = ("references", "reference", "expected", "verbatim")

#: Summary figures that are settings or bookkeeping rather than results.
_NOT_RESULTS = frozenset({"items", "threshold", "vwer_threshold", "unit", "passed"})


# -- formatting -------------------------------------------------------------------------

def fmt(value: Any, name: str = "") -> str:
    """One figure as the reports print it: ``-`` for missing, 3 places for fractions,
    1 place for other floats (scores 0-100, milliseconds), integers as they are."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = f"{value:.{published_places(name)}f}"
        return text.lstrip("-") if not text.strip("-0.") else text  # no "-0.0"
    return str(value)


def fmt_p(p: float | None) -> str:
    """A p value: 3 places, ``<0.001`` below that."""
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def fmt_score(entry: Mapping[str, Any]) -> str:
    """A product's suite score, labelled provisional with its count of unjudged
    judgements when some are missing (such a score is never ranked)."""
    text = fmt(entry.get("score"), "score")
    waiting = entry.get("provisional")
    if waiting and entry.get("score") is not None:
        text += f" (provisional: {waiting['unjudged']} unjudged)"
    return text


def score_note(suite: Mapping[str, Any]) -> str:
    """What the leaderboard's two figures are, when the method's headline is not the
    score (``""`` otherwise): the score is a mean over cases, the headline pooled."""
    headline = suite.get("headline") or "score"
    if headline == "score":
        return ""
    metric = (suite.get("ranking") or {}).get("metric") or headline
    return (f"score = the mean of the item scores (every case weighs alike), with its 95% "
            f"bootstrap interval and the paired comparisons; {headline} = the method's "
            f"corpus figure, pooled over all items (an item weighs by its size); ranks "
            f"use {metric}")


def fmt_interval(interval: Mapping[str, Any] | None, name: str = "", *,
                 signed: bool = False) -> str:
    """``low – high`` of an interval (``-`` when there is none)."""
    if not interval or interval.get("low") is None or interval.get("high") is None:
        return "-"
    if signed:
        return f"{interval['low']:+.1f} – {interval['high']:+.1f}"
    return f"{fmt(float(interval['low']), name)} – {fmt(float(interval['high']), name)}"


def shared_cell(c: Mapping[str, Any]) -> str:
    """A comparison's shared case count, with each side's scored cases when the
    comparison covers only part of them: ``5 of 24 / 5``."""
    if c.get("cases_a", c["n"]) == c["n"] == c.get("cases_b", c["n"]):
        return str(c["n"])
    return f"{c['n']} of {c['cases_a']} / {c['cases_b']}"


#: Per-product rule count tables of a method's aggregate: (table key, title).
RULE_COUNT_TABLES = (
    ("rule_failures", "Items failing each rule"),
    ("unjudged", "Items where a rule was left unjudged (no verdict)"),
    ("overturned", "Items where judges or a person overturned the automated score"),
)


def rule_count_tables(suite: Mapping[str, Any], keys: Iterable[str]
                      ) -> list[tuple[str, list[str], dict[str, Mapping[str, int]]]]:
    """``(title, rules in rubric order, {product: {rule: count}})`` for each of ``keys``
    that some product's tables hold, in :data:`RULE_COUNT_TABLES` order."""
    found = []
    for key, title in RULE_COUNT_TABLES:
        if key not in keys:
            continue
        counts = {e["product"]: e["tables"][key] for e in suite["products"]
                  if isinstance(e.get("tables", {}).get(key), Mapping)}
        rules = sorted({r for c in counts.values() for r in c}, key=rule_key)
        if rules:
            found.append((title, rules, dict(sorted(counts.items()))))
    return found


def rule_key(rule: str) -> tuple[str, int, str]:
    """Natural order of rule ids: A2 before A10."""
    match = re.fullmatch(r"([A-Za-z_]*)(\d+)(.*)", rule)
    if match:
        return (match.group(1), int(match.group(2)), match.group(3))
    return (rule, -1, "")


# -- records ----------------------------------------------------------------------------

def expected_texts(suites: Iterable[Suite]) -> dict[str, dict[str, list[str]]]:
    """Per suite id and case id, the expected outputs a failing output is diffed against.

    Pass the result as ``expected`` to the renderers; without it only the rubric's own
    diffs (made by its aggregator) are shown.
    """
    result: dict[str, dict[str, list[str]]] = {}
    for suite in suites:
        fields = EXPECTED_FIELDS.get(suite.method, _FALLBACK_FIELDS)
        per_case: dict[str, list[str]] = {}
        for case in suite.cases:
            for name in fields:
                value = case.get(name)
                if isinstance(value, str):
                    per_case[case.id] = [value]
                    break
                if isinstance(value, list) and value:
                    per_case[case.id] = [str(v) for v in value]
                    break
        result[suite.id] = per_case
    return result


# -- failing items ----------------------------------------------------------------------

@dataclass(frozen=True)
class FailingItem:
    """One failed item: which rules it failed, with evidence, and its character diff."""

    product: str
    case_id: str
    repetition: int
    #: ``(rule, score, evidence)`` of every rule scored below 2, in natural rule order.
    rules: tuple[tuple[str, int, str], ...]
    #: ``[-expected-]{+output+}`` diff against the closest expected output ("" if none).
    diff: str
    message: str = ""


def _failed_rules(rules: Mapping[str, Mapping[str, Any]]) -> tuple[tuple[str, int, str], ...]:
    return tuple((rule, int(v["score"]), str(v.get("evidence") or ""))
                 for rule, v in sorted(rules.items(), key=lambda kv: rule_key(kv[0]))
                 if v.get("score") is not None and v["score"] < 2)


def failing_items(suite: Mapping[str, Any], records: Sequence[ItemRecord],
                  expected: Mapping[str, Sequence[str]] | None = None) -> list[FailingItem]:
    """Every failed item of a suite, by product then case id then repetition.

    The diff comes from the method's own ``failing_items`` table when it has one (the
    rubric's), else from the record's text against the closest of ``expected[case_id]``.
    """
    from_tables: dict[tuple[str, str, int], str] = {}
    for entry in suite.get("products", []):
        for row in entry.get("tables", {}).get("failing_items", []) or []:
            key = (entry["product"], str(row["case_id"]), int(row.get("repetition", 1)))
            from_tables[key] = str(row.get("diff") or "")
    items = []
    for record in records:
        if record.get("status") != "failed":
            continue
        key = (str(record["product"]), str(record["case_id"]), int(record.get("repetition") or 1))
        if key in from_tables:
            diff = from_tables[key]
        else:
            refs = (expected or {}).get(key[1], ())
            diff = diff_against_closest(str(record.get("text") or ""), list(refs),
                                        unit=diff_unit(suite)) if refs else ""
        items.append(FailingItem(product=key[0], case_id=key[1], repetition=key[2],
                                 rules=_failed_rules(record.get("rules") or {}), diff=diff,
                                 message=str(record.get("message") or "")))
    return items


def diff_unit(suite: Mapping[str, Any]) -> str:
    """``word`` or ``char``: the suite's own ``unit`` when its method reports one, else
    words except for languages written without spaces."""
    for entry in suite.get("products", []):
        unit = entry.get("tables", {}).get("summary", {}).get("unit")
        if unit in UNITS:
            return str(unit)
    language = str(suite.get("locale", "")).split("-")[0].lower()
    return "char" if language in NO_SPACE_LANGUAGES else "word"


def error_items(records: Sequence[ItemRecord]) -> list[tuple[str, str, int, str]]:
    """``(product, case id, repetition, message)`` of every item that errored."""
    return [(str(r["product"]), str(r["case_id"]), int(r.get("repetition") or 1),
             str(r.get("message") or "")) for r in records if r.get("status") == "error"]


# -- grouped scores ---------------------------------------------------------------------

@dataclass(frozen=True)
class GroupTable:
    """Mean score and case count per group (genre, source, ...) and product."""

    title: str
    groups: tuple[str, ...]
    products: tuple[str, ...]
    #: ``cells[product][group] = (mean score, items)``.
    cells: Mapping[str, Mapping[str, tuple[float | None, int]]]
    #: Extra figure per cell (rubric: meaning errors), with its heading.
    extra_title: str = ""
    extra: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


def _from_table(title: str, key: str, suite: Mapping[str, Any]) -> GroupTable | None:
    cells: dict[str, dict[str, tuple[float | None, int]]] = {}
    extra: dict[str, dict[str, int]] = {}
    for entry in suite.get("products", []):
        table = entry.get("tables", {}).get(key)
        if not table:
            continue
        cells[entry["product"]] = {g: (row.get("score"), int(row.get("items", 0)))
                                   for g, row in table.items()}
        extra[entry["product"]] = {g: int(row["meaning_errors"]) for g, row in table.items()
                                   if row.get("meaning_errors") is not None}
    if not cells:
        return None
    groups = tuple(sorted({g for per in cells.values() for g in per}))
    has_extra = any(extra.values())
    return GroupTable(title, groups, tuple(sorted(cells)), cells,
                      "meaning errors" if has_extra else "", extra if has_extra else {})


def _genre_from_records(records: Sequence[ItemRecord]) -> GroupTable | None:
    """Per genre: mean over cases of the median score over repetitions (as the suite
    score is computed), and the number of cases scored."""
    scores: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list)))
    for r in records:
        if r.get("status") in SCORED_STATUSES and r.get("score") is not None:
            genre = str((r.get("case") or {}).get("genre") or "-")
            scores[str(r["product"])][genre][str(r["case_id"])].append(float(r["score"]))
    if not scores:
        return None
    cells = {product: {genre: (statistics.fmean(median(v) for v in cases.values()),
                               len(cases))
                       for genre, cases in per.items()}
             for product, per in scores.items()}
    groups = tuple(sorted({g for per in cells.values() for g in per}))
    return GroupTable("by genre", groups, tuple(sorted(cells)), cells)


def group_tables(suite: Mapping[str, Any], records: Sequence[ItemRecord]) -> list[GroupTable]:
    """By-genre scores (the method's ``by_genre`` table, else from the records), plus the
    rubric's ``by_source``, ``by_short`` and ``by_voice`` tables when present."""
    tables = []
    genre = _from_table("by genre", "by_genre", suite) or _genre_from_records(records)
    if genre:
        tables.append(genre)
    for title, key in (("by source", "by_source"), ("by length", "by_short"),
                       ("by voice", "by_voice")):
        table = _from_table(title, key, suite)
        if table:
            tables.append(table)
    return tables


# -- per-layer / per-type figures -------------------------------------------------------

@dataclass(frozen=True)
class MetricGroups:
    """Figures of one kind for every product, drawn as grouped bars."""

    title: str
    axis: str
    categories: tuple[str, ...]
    #: ``values[product]`` in ``categories`` order (``None`` where missing).
    values: Mapping[str, tuple[float | None, ...]]
    #: Upper end of the axis (100 for layer scores, 1 for fractions, ``None``: automatic).
    limit: float | None
    #: Metric name used for formatting the figures.
    unit_name: str = ""


def _summary_groups(suite: Mapping[str, Any], names: Sequence[str],
                    ) -> dict[str, tuple[float | None, ...]]:
    values = {}
    for entry in suite.get("products", []):
        summary = entry.get("tables", {}).get("summary", {})
        if any(summary.get(n) is not None for n in names):
            values[entry["product"]] = tuple(summary.get(n) for n in names)
    return values


def metric_groups(suite: Mapping[str, Any]) -> MetricGroups | None:
    """Rubric: layer scores A-D; verbatim: F1 per disfluency type; error_rate: WER, CER
    and the strict rate. ``None`` for a method without such figures."""
    method = suite.get("method")
    if method == "rubric":
        layers = ("layer_A", "layer_B", "layer_C", "layer_D")
        values = _summary_groups(suite, layers)
        return MetricGroups("Score per layer", "layer score (0-100, higher is better)",
                            tuple(n.removeprefix("layer_") for n in layers), values, 100.0,
                            "score") if values else None
    if method == "verbatim":
        types: list[str] = []
        for entry in suite.get("products", []):
            types += [t for t in entry.get("tables", {}).get("types", {}) if t not in types]
        order = sorted(types, key=lambda t: (t != "disfluency", t))
        values = {}
        for entry in suite.get("products", []):
            table = entry.get("tables", {}).get("types", {})
            if table:
                values[entry["product"]] = tuple(table.get(t, {}).get("f1") for t in order)
        return MetricGroups("F1 per disfluency type", "F1 (0-1, higher is better)",
                            tuple(order), values, 1.0, "f1") if values else None
    if method == "error_rate":
        names = ("wer", "cer", "strict_rate")
        values = _summary_groups(suite, names)
        return MetricGroups("Error rates", "error rate (lower is better)",
                            ("WER", "CER", "strict"), values, None, "wer") if values else None
    return None


def summary_metrics(suite: Mapping[str, Any]) -> list[str]:
    """Numeric summary figures worth a row in the per-suite figures table."""
    names: set[str] = set()
    for entry in suite.get("products", []):
        for name, value in entry.get("tables", {}).get("summary", {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                names.add(name)
    headline = suite.get("headline") or "score"
    return sorted(names - _NOT_RESULTS, key=lambda n: (n != headline, n))


def not_tested_cell(entry: Mapping[str, Any]) -> str:
    """The ``not_tested`` count of a product, with the items whose output said
    ``unsupported`` or ``blank`` named apart (statuses are never merged)."""
    statuses = entry.get("output_statuses", {})
    kinds = [f"{statuses[s]} {s}" for s in ("unsupported", "blank") if statuses.get(s)]
    return f"{entry['not_tested']} ({', '.join(kinds)})" if kinds else str(entry["not_tested"])
