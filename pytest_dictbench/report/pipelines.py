"""The report tables of refine pipelines and of the dev/test split. Pure.

:func:`pipeline_tables` gives a suite's pipeline products (recogniser, which text was
scored, the score, refine cost) and their refine steps (calls, cache hits, errors,
empty rewrites, latency, cost), from each product entry's ``pipeline`` summary
(:func:`pytest_dictbench.adapters.pipeline.summary.pipeline_summary`).
:func:`split_tables` gives the half a report covers and, per suite, the cases it ran
and their strata, from the report's ``split`` entry (``--dictbench-split``). Cells are
plain text; the Markdown and HTML renderers escape and lay them out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .method_tables import PlainTable
from .sections import fmt

__all__ = ["pipeline_tables", "scope_note", "split_tables"]


def _usd(value: Any) -> str:
    return "-" if value is None else f"${float(value):,.6f}"


def pipeline_tables(suite: Mapping[str, Any]) -> Sequence[PlainTable]:
    """The suite's pipeline tables (none when no product of it is a pipeline)."""
    entries = [e for e in suite.get("products", []) if isinstance(e.get("pipeline"), Mapping)]
    if not entries:
        return ()
    products, steps = [], []
    for e in sorted(entries, key=lambda e: str(e["product"])):
        p = e["pipeline"]
        products.append((str(e["product"]), ", ".join(p.get("asr", [])),
                         ", ".join(p.get("scored", [])), fmt(e.get("score"), "score"),
                         fmt(p.get("items")), fmt(p.get("refined_empty")),
                         fmt(p.get("refined_unchanged")), _usd(p.get("asr_cost_usd")),
                         _usd(p.get("cost_usd")), _usd(p.get("total_cost_usd")),
                         _usd(p.get("spent_usd"))))
        for name, s in p.get("steps", {}).items():
            latency = s.get("latency") or {}
            steps.append((str(e["product"]), str(name), str(s.get("model")), fmt(s.get("items")),
                          fmt(s.get("calls")), fmt(s.get("cached")), fmt(s.get("errors")),
                          fmt(s.get("empty")), fmt(s.get("unchanged")),
                          f"{fmt(latency.get('median'))} / {fmt(latency.get('p95'))}",
                          _usd(s.get("cost_usd"))))
    return (
        PlainTable("Refine pipelines", ("Product", "Recogniser", "Scored text", "Score",
                                        "Items", "Empty rewrites", "Unchanged",
                                        "Recogniser cost", "Refine cost", "Total cost",
                                        "Spent this run"),
                   tuple(products), (3, 4, 5, 6, 7, 8, 9, 10),
                   "The recogniser's text is captured once and shared by every pipeline "
                   "over it; 'Scored text' says whether the score is of the raw or the "
                   "refined text. 'Unchanged' counts rewrites equal to the recogniser's "
                   "text. Recogniser cost is its captures' own cost, else its list price "
                   "times the audio length ('-' when unknown); refine cost is the list "
                   "price of the rewrites the items use (cache hits included); total is "
                   "the two; spent counts only this run's refine calls."),
        PlainTable("Refine steps", ("Product", "Step", "Model", "Items", "Calls", "Cached",
                                    "Errors", "Empty", "Unchanged",
                                    "Latency median / p95 (ms)", "Cost"),
                   tuple(steps), (3, 4, 5, 6, 7, 8, 9, 10),
                   "A step that failed makes its item an error that keeps the raw text; "
                   "an empty rewrite is scored as an empty text; an unchanged one "
                   "returned its input as it was."),
    )


def split_tables(report: Mapping[str, Any]) -> Sequence[PlainTable]:
    """The split this report ran (none without ``--dictbench-split``)."""
    split = report.get("split")
    if not isinstance(split, Mapping):
        return ()
    rows = []
    for suite_id, s in sorted((split.get("suites") or {}).items()):
        strata = "; ".join(f"{name}: dev {n.get('dev', 0)}, test {n.get('test', 0)}"
                           for name, n in (s.get("strata") or {}).items())
        rows.append((str(suite_id), fmt(s.get("cases")), fmt(s.get("of")), strata or "-",
                     str(s.get("cases_sha256", ""))[:12] or "-"))
    return (PlainTable(
        "Dev/test split", ("Suite", "Cases run", "Of", "Strata (dev / test)", "Cases digest"),
        tuple(rows), (1, 2),
        f"This report covers the {split.get('half')} half only (seed {split.get('seed')}; "
        "each case's half follows from the seed and its own id). Choose a configuration "
        "on the dev half and report it on the test half: dictbench select DEV_REPORTS "
        "TEST_REPORTS."),)


def scope_note(suite: Mapping[str, Any]) -> str:
    """Which paired comparisons a suite made, when not every pair (a large sweep); ``""``
    when all pairs were compared."""
    scope = suite.get("comparison_scope")
    if not isinstance(scope, Mapping) or scope.get("mode") != "each_against_best":
        return ""
    return (f"{scope['products']} products, more than {scope['all_pairs_up_to']}: each is "
            f"compared with the best, {scope['reference']} (highest mean case score), not "
            f"with every other ({scope['products'] - 1} comparisons instead of "
            f"{scope['products'] * (scope['products'] - 1) // 2:,}).")
