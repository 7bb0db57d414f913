"""Plain tables a method's results add to the Markdown and HTML reports. Pure.

Today: the keypoints method's leaderboard figures (scores beside latency, RTF and
cost), its cost table, and the names / numbers / coined words extracted per item; the
verbatim method's typed inventory of its dataset. Each
table is plain text cells; the renderers escape and lay them out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .sections import fmt

__all__ = ["PlainTable", "method_tables"]


@dataclass(frozen=True)
class PlainTable:
    """A titled table of text cells; ``numeric`` columns are right-aligned."""

    title: str
    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[int, ...] = ()
    note: str = ""


_FIGURES = (("names_f1", "Names F1"), ("fbeta", "F-beta"), ("recall", "Recall"),
            ("precision", "Precision"), ("weighted_fbeta", "Weighted F-beta"),
            ("critical_missing", "Critical missed"),
            ("critical_contradicted", "Critical contradicted"), ("insertions", "Insertions"),
            ("empty", "Empty"), ("provisional", "Provisional"))


def _usd(value: Any) -> str:
    return "-" if value is None else f"${value:,.4f}"


def _leaderboard(suite: Mapping[str, Any]) -> PlainTable:
    entries = {e["product"]: e for e in suite["products"]}
    head = ("Product", "Rank", "Overall", *(label for _, label in _FIGURES),
            "Latency median / p95 (ms)", "Mean RTF", "Total cost")
    rows = []
    for row in suite.get("leaderboard", []):
        e = entries[row["product"]]
        summary = e.get("tables", {}).get("summary", {})
        latency = e.get("latency") or {}
        rows.append((row["product"], fmt(row.get("rank")), fmt(e.get("score")),
                     *(fmt(summary.get(key), key) for key, _ in _FIGURES),
                     f"{fmt(latency.get('median'))} / {fmt(latency.get('p95'))}",
                     fmt((e.get("speed") or {}).get("mean_rtf"), "rate"),
                     _usd((e.get("cost") or {}).get("total_cost_usd"))))
    return PlainTable("Leaderboard figures", head, tuple(rows), tuple(range(1, len(head))),
                      "Overall = 100 x (0.3 x names F1 + 0.7 x F-beta), or F-beta alone when "
                      "neither side has names; provisional items (verdicts missing) have no "
                      "overall and keep their product unranked.")


def _cost(suite: Mapping[str, Any]) -> PlainTable:
    rows = []
    for e in suite["products"]:
        c = e.get("cost") or {}
        price = "-" if c.get("price_snapshot_date") is None else (
            f"{'captures at the price' if c.get('asr_cost_basis') == 'captures' else 'list price'}"
            f" of {c['price_snapshot_date']}")
        rows.append((e["product"], f"{c.get('audio_seconds', 0) / 60:.1f}",
                     _usd(c.get("asr_cost_usd")), _usd(c.get("judge_cost_usd")),
                     _usd(c.get("total_cost_usd")), _usd(c.get("usd_per_audio_hour")), price,
                     "; ".join(c.get("missing", ())) or "-"))
    return PlainTable("Cost", ("Product", "Audio (min)", "ASR", "Judges", "Total",
                               "Per audio hour", "Price", "Missing"), tuple(rows),
                      (1, 2, 3, 4, 5), "Descriptive only: no price enters a score or a rank.")


def _names_cell(item: Mapping[str, Any], key: str) -> str:
    """The extracted items, or (a private suite's row) only how many there were."""
    if key not in item:
        return f"{item.get(key + '_count', 0)} (private)"
    return " ".join(item[key]) or "-"


def _names(suite: Mapping[str, Any]) -> PlainTable:
    rows = []
    for e in suite["products"]:
        for item in e.get("tables", {}).get("items", []):
            rows.append((e["product"], item["case_id"], fmt(item.get("names_f1"), "f1"),
                         *(_names_cell(item, k) for k in (
                             "names_reference", "names_hypothesis", "names_missed",
                             "names_extra"))))
    return PlainTable("Names, numbers and coined words per item",
                      ("Product", "Case", "F1", "Reference", "Transcript", "Missed", "Extra"),
                      tuple(rows), (2,))


_INVENTORY = ("utterances", "tokens", "fluent", "filler", "repetition", "cutoff", "sound",
              "other", "disfluencies")


def _inventory(suite: Mapping[str, Any]) -> PlainTable | None:
    rows = tuple((e["product"], *(fmt(e["tables"]["inventory"].get(k)) for k in _INVENTORY))
                 for e in suite["products"] if e.get("tables", {}).get("inventory"))
    if not rows:
        return None
    return PlainTable("Typed inventory of the dataset", ("Cases scored for", "Utterances",
                                                         "Gold tokens", "Fluent", "Filler",
                                                         "Repetition", "Cut-off", "Sound",
                                                         "Other", "Disfluencies"),
                      rows, tuple(range(1, len(_INVENTORY) + 1)),
                      "Gold labels of the cases each product was scored on, derived by "
                      "aligning the verbatim and intended transcripts.")


def method_tables(suite: Mapping[str, Any]) -> Sequence[PlainTable]:
    """The extra tables of ``suite``: the verbatim method's typed inventory, the keypoints
    method's, and for any other method the cost of the products whose captures know
    theirs (cloud providers, PV16)."""
    inventory = _inventory(suite) if suite.get("method") == "verbatim" else None
    first = (inventory,) if inventory else ()
    if suite.get("method") != "keypoints":
        costed = [e for e in suite["products"] if e.get("cost")]
        return (*first, _cost({**suite, "products": costed})) if costed else first
    return (_leaderboard(suite), _cost(suite), _names(suite))
