"""Where each competitor wins, and vendor claims kept apart. Pure.

:func:`win_sentences` names, for every product of a suite, each figure on which another
product is better by a resolved difference, in plain sentences, from the suite's paired
comparisons: the overall score (its interval excludes 0: the suite's corrected interval
when it chose a correction), each component that moved (its paired interval excludes 0),
and the relative cost and latency. In a rig suite, which ranks per metric table and has
no comparisons, a category is a metric table (``dictation wer (en-US)``) where another
product of the same cohort holds a better competition rank. A product no other beats
says so; a rig product ranked in no table says that instead.

:func:`claims_table` lists the products' documented capabilities (``[[claims]]`` of a
product file, each with its source and the date it was read). They are not measurements:
the reports show them in a table of their own, after the measured results, and no rank,
score or sentence above reads them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from .method_tables import PlainTable

__all__ = ["claims_table", "win_sentences", "wins_basis", "wins_by_product"]


def wins_basis(suite: Mapping[str, Any]) -> str:
    """What a win rests on in this suite, for the section's heading."""
    return ("a better rank in a metric table" if "rig" in suite
            else "resolved differences only")


def _score_winner(c: Mapping[str, Any]) -> str | None:
    adjusted = c.get("adjusted")
    resolved = adjusted["resolved"] if adjusted else c.get("resolved")
    if not resolved or not c.get("mean_difference"):
        return None
    return c["b"] if c["mean_difference"] > 0 else c["a"]


def wins_by_product(suite: Mapping[str, Any]) -> dict[str, dict[str, list[str]]]:
    """``{loser: {winner: [figure, ...]}}`` over the suite's comparisons, figures in the
    order the comparison lists them (overall score, components, cost and latency)."""
    lost: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for c in suite.get("comparisons", []):
        winner = _score_winner(c)
        if winner is not None:
            loser = c["a"] if winner == c["b"] else c["b"]
            lost[loser][winner].append("the overall score")
        for row in (*c.get("components", ()), *c.get("relative", ())):
            if row.get("moved") in ("better", "worse"):
                winner = c["b"] if row["moved"] == "better" else c["a"]
                loser = c["a"] if winner == c["b"] else c["b"]
                lost[loser][winner].append(row["label"])
    for table in (suite.get("rig") or {}).get("tables", ()):
        category = _rig_category(table)
        for cohort in table.get("cohorts", ()):
            for entry in cohort.get("entries", ()):
                for other in cohort["entries"]:
                    if other["rank"] < entry["rank"]:
                        lost[entry["app_id"]][other["app_id"]].append(category)
    return {loser: dict(sorted(by.items())) for loser, by in sorted(lost.items())}


def _rig_category(table: Mapping[str, Any]) -> str:
    """A rig metric table's name: ``dictation wer (en-US)``, its profile when not the
    default one."""
    name = f"{table.get('workflow', '-')} {table.get('metric', '-')}"
    if table.get("locale"):
        name += f" ({table['locale']})"
    if table.get("test_profile") not in (None, "default"):
        name += f" [{table['test_profile']}]"
    return name


def _ranked_in_rig(suite: Mapping[str, Any]) -> set[str]:
    return {entry["app_id"] for table in (suite.get("rig") or {}).get("tables", ())
            for cohort in table.get("cohorts", ()) for entry in cohort.get("entries", ())}


def win_sentences(suite: Mapping[str, Any]) -> Sequence[str]:
    """One sentence per product of the suite (in name order); none without comparisons."""
    rig = "rig" in suite
    if not suite.get("comparisons") and not rig:
        return ()
    lost = wins_by_product(suite)
    ranked = _ranked_in_rig(suite) if rig else set()
    sentences = []
    for product in sorted(e["product"] for e in suite.get("products", [])):
        others = lost.get(product)
        if rig and product not in ranked:
            sentences.append(f"{product}: ranked in no metric table (see why above), so no "
                             "category is won or lost.")
            continue
        if not others:
            sentences.append(f"{product}: no other product is better on any compared figure "
                             "by a resolved difference.")
            continue
        parts = [f"{winner} is better on {', '.join(figures)}"
                 for winner, figures in others.items()]
        sentences.append(f"{product} loses where {'; '.join(parts)}.")
    return sentences


def claims_table(suite: Mapping[str, Any]) -> PlainTable | None:
    """The products' documented capabilities, or ``None`` when none declares any."""
    rows = tuple((str(e["product"]), str(claim.get("claim", "")),
                  str(claim.get("source_url", "-")), str(claim.get("checked", "-")))
                 for e in suite.get("products", []) for claim in e.get("claims", ()))
    if not rows:
        return None
    return PlainTable("Vendor claims (documented, not measured; never ranked)",
                      ("Product", "Claim", "Source", "Read on"), rows, (),
                      "What each vendor documents about its product, with the source and "
                      "the date it was read. Not a benchmark result: no score, rank or "
                      "comparison above uses it.")
