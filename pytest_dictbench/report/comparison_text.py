"""The per-component comparisons of a suite as a table and as plain sentences. Pure.

From each comparison's ``components`` and ``relative`` entries (``components.py``):
:func:`component_table` lists, per pair, every component's two figures, the difference
``b - a`` with its paired bootstrap interval and which way it moved for B, then the
relative change of ASR cost per item and of median and p95 latency. :func:`pair_sentences`
says the same per pair in one paragraph: the overall gap with its interval, the components
that moved (in opposite directions, when they did), and the relative spend and latency.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .method_tables import PlainTable
from .sections import fmt, fmt_p

__all__ = ["common_set_table", "component_table", "corrected_table", "pair_sentences",
           "resolved_head"]

_CORRECTION_NAMES = {"bonferroni": "Bonferroni", "holm": "Holm"}


def resolved_head(suite: Mapping[str, Any]) -> str:
    """The head of the comparisons table's resolved column: ``resolved``, or ``resolved
    (unadjusted 95%)`` when the suite chose a correction (shown in its own table)."""
    return "resolved (unadjusted 95%)" if suite.get("correction") else "resolved"


def corrected_table(suite: Mapping[str, Any]) -> PlainTable | None:
    """The score gaps and McNemar p under the suite's chosen correction (``None`` when
    it chose none), the correction named in every column it changes."""
    chosen = (suite.get("correction") or {}).get("method")
    comparisons = [c for c in suite.get("comparisons", []) if c.get("adjusted")]
    if not chosen or not comparisons:
        return None
    name, m = _CORRECTION_NAMES.get(chosen, chosen), len(comparisons)
    family = f"{name} over {m} pair{'s' if m != 1 else ''}"
    rows = []
    for c in comparisons:
        adj = c["adjusted"]
        iv = adj["interval"]
        rows.append((f"{c['b']} − {c['a']}", str(c["n"]),
                     _signed(c["mean_difference"], "score"),
                     f"{_signed(iv['low'], 'score')} to {_signed(iv['high'], 'score')}",
                     adj["label"].split(" ")[0], "yes" if adj["resolved"] else "no",
                     fmt_p(adj["mcnemar_p"])))
    return PlainTable(
        f"Score gaps, {family}", ("b − a", "shared cases", "difference",
                                  f"interval ({family}, family-wise 95%)",
                                  "confidence", f"resolved ({name})",
                                  f"McNemar p ({family})"),
        tuple(rows), (1, 2, 4, 6),
        f"The suite chose the {name} correction ([comparisons] correction): each gap's "
        f"interval is drawn at the confidence that keeps the family-wise error at 5% over "
        f"its {m} comparison(s)" + (
            "; Holm steps down in the order of the gaps' bootstrap p and stops at the "
            "first unresolved one." if chosen == "holm" else "."))



def _figure(value: Any, unit: str) -> str:
    return fmt(value, "score" if unit == "score" else "f1")


def _signed(value: float, unit: str) -> str:
    places = 1 if unit == "score" else 3
    text = f"{value:+.{places}f}"
    return text if text.strip("+-0.") else text[1:]


def _interval(row: Mapping[str, Any], unit: str) -> str:
    iv = row.get("interval")
    if not iv:
        return "-"
    return f"{_signed(iv['low'], unit)} to {_signed(iv['high'], unit)}"


def _percent(value: float) -> str:
    text = f"{100 * value:+.0f}%"
    return text if text.strip("+-0%") else "0%"


def _relative_interval(row: Mapping[str, Any]) -> str:
    iv = row.get("interval")
    return f"{_percent(iv['low'])} to {_percent(iv['high'])}" if iv else "-"


def _moved(row: Mapping[str, Any]) -> str:
    return {"better": "better for b", "worse": "worse for b"}.get(row.get("moved", "-"),
                                                                    "no resolved change")


def component_table(suite: Mapping[str, Any]) -> PlainTable | None:
    """Every pair's components and relative figures, or ``None`` when no comparison has
    any."""
    rows = []
    for c in suite.get("comparisons", []):
        pair = f"{c['b']} − {c['a']}"
        for row in c.get("components", ()):
            unit = row.get("unit", "fraction")
            rows.append((pair, row["label"], str(row["n"]), _figure(row["a"], unit),
                         _figure(row["b"], unit),
                         "-" if row["difference"] is None else _signed(row["difference"],
                                                                        unit),
                         _interval(row, unit), _moved(row)))
        for row in c.get("relative", ()):
            change = "-" if row["change"] is None else _percent(row["change"])
            rows.append((pair, row["label"], str(row["n"]), _plain_value(row),
                         _plain_value(row, "b"), change, _relative_interval(row),
                         _moved(row)))
    if not rows:
        return None
    return PlainTable(
        "Paired comparisons by component", ("b − a", "Component", "Cases", "a", "b",
                                            "Difference", "95% interval", "Moved"),
        tuple(rows), (2, 3, 4, 5),
        "Each component recomputed on the cases both products scored; difference b − a "
        "with its paired bootstrap interval (the same resampled cases on both sides). "
        "Cost and latency rows give the relative change b / a − 1 (lower is better).")


def _plain_value(row: Mapping[str, Any], side: str = "a") -> str:
    value = row[side]
    if row["figure"] == "cost_per_item":
        return "-" if value is None else f"${value:,.6f}"
    return fmt(value)


def _component_phrase(row: Mapping[str, Any]) -> str:
    unit = row.get("unit", "fraction")
    return (f"{row['label']} {_figure(row['b'], unit)} against {_figure(row['a'], unit)} "
            f"({_signed(row['difference'], unit)}, interval {_interval(row, unit)})")


def _components_sentence(c: Mapping[str, Any]) -> str:
    rows = [r for r in c.get("components", ()) if r.get("difference") is not None]
    better = [_component_phrase(r) for r in rows if r["moved"] == "better"]
    worse = [_component_phrase(r) for r in rows if r["moved"] == "worse"]
    same = [f"{r['label']} {_figure(r['a'], r.get('unit', 'fraction'))}" for r in rows
            if r["moved"] == "-" and r["a"] == r["b"]]
    unresolved = [_component_phrase(r) for r in rows if r["moved"] == "-" and r["a"] != r["b"]]
    parts = []
    if better and worse:
        parts.append(f"The components move in opposite directions: {c['b']} is better on "
                     f"{'; '.join(better)}, and worse on {'; '.join(worse)}.")
    elif better or worse:
        parts.append(f"{c['b']} is {'better' if better else 'worse'} on "
                     f"{'; '.join(better or worse)}.")
    if unresolved:
        parts.append(f"Not resolved: {'; '.join(unresolved)}.")
    if same:
        parts.append(f"The same on both: {'; '.join(same)}.")
    return " ".join(parts)


def _relative_sentence(c: Mapping[str, Any]) -> str:
    phrases = []
    for row in c.get("relative", ()):
        if row["change"] is None:
            continue
        resolved = "" if row["moved"] != "-" else ", not resolved"
        phrases.append(f"{row['label']} {_percent(row['change'])} "
                       f"(interval {_relative_interval(row)}{resolved})")
    return f"Against {c['a']}: {'; '.join(phrases)}." if phrases else ""


def _trade_off_sentence(c: Mapping[str, Any]) -> str:
    """Accuracy one way, spend or speed the other: say what each side buys."""
    moved = {row["moved"] for row in c.get("components", ())} - {"-"}
    priced = [row for row in c.get("relative", ()) if row["moved"] in ("better", "worse")]
    if len(moved) != 1 or not priced or {row["moved"] for row in priced} == moved:
        return ""
    figures = ", ".join(f"{row['label']} {_percent(row['change'])}" for row in priced)
    accuracy = "worse" if moved == {"worse"} else "better"
    return (f"Accuracy and price or speed move in opposite directions: {c['b']} is "
            f"{accuracy} on its components above, at {figures}.")


def _gap_sentence(c: Mapping[str, Any], adjusted: Mapping[str, Any] | None) -> str:
    iv = adjusted["interval"] if adjusted else c.get("interval") or {}
    level = adjusted["label"] if adjusted else "95%"
    resolved = adjusted["resolved"] if adjusted else c.get("resolved")
    return (f"{c['b']} against {c['a']} on {c['n']} shared cases: score "
            f"{fmt(c['mean_b'], 'score')} against {fmt(c['mean_a'], 'score')}, "
            f"{_signed(c['mean_difference'], 'score')} points ({level} interval "
            f"{_signed(iv['low'], 'score')} to {_signed(iv['high'], 'score')}, "
            f"{'resolved' if resolved else 'not distinguishable'}).")


def pair_sentences(suite: Mapping[str, Any]) -> Sequence[str]:
    """One paragraph per pair that has components or relative figures."""
    paragraphs = []
    for c in suite.get("comparisons", []):
        if not c.get("components") and not c.get("relative"):
            continue
        text = " ".join(p for p in (_gap_sentence(c, c.get("adjusted")),
                                    _components_sentence(c), _relative_sentence(c),
                                    _trade_off_sentence(c)) if p)
        paragraphs.append(text)
    return paragraphs


def common_set_table(suite: Mapping[str, Any]) -> PlainTable | None:
    """The cases left out of the suite's common set, for whom and why (``None`` when
    the suite and its products set no limit)."""
    common = suite.get("common_set")
    if not common:
        return None
    lost = "; ".join(f"{name} {n}" for name, n in common.get("lost", {}).items())
    rows = tuple((row["case_id"], fmt(row["audio_s"]), ", ".join(row["for"]), row["reason"])
                 for row in common.get("left_out", ()))
    note = (f"Compared and ranked on the {common['cases']} of {common['of']} cases every "
            f"product could take; {len(rows)} left out" +
            (f" (cases each product could not take: {lost})." if lost else "."))
    return PlainTable("Common set", ("Case", "Audio (s)", "Left out for", "Why"), rows,
                      (1,), note)
