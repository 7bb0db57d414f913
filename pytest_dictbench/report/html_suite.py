"""One suite's section of ``dictbench.html``: its heading, tables and figures in order
(pure; the tables are :mod:`.html_tables`')."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..judge.report import RULE_HEAD, rule_rows
from . import plots
from .by_suite import SuiteRecords
from .comparison_text import common_set_table
from .html_compare import comparison_parts
from .html_parts import esc, group_table, judging_table, metric_groups_table, table
from .html_parts import plain_table as _plain
from .html_tables import (
    errors_table,
    failing_lists,
    leaderboard,
    products_table,
    rig_section,
    rule_tables,
    suite_badges,
    summary_figures,
    validity_table,
)
from .method_tables import method_tables
from .observations import observation_tables
from .pipelines import pipeline_tables, scope_note
from .sections import metric_groups
from .streaming import streaming_groups, streaming_tables

__all__ = ["anchor", "suite_section"]

#: The most comparisons the forest figure draws (the closest to the best, in a large sweep).
FOREST_ROWS = 50


def anchor(suite: Mapping[str, Any]) -> str:
    """The id of a suite's section (its table-of-contents link and figure ids)."""
    return "suite-" + "".join(c if c.isalnum() or c in "-_." else "-" for c in suite["id"])


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


def _figures(suite: Mapping[str, Any], colors: Mapping[str, str],
             draw: plots.Drawer | None) -> str:
    if draw is None:
        return ""
    groups = metric_groups(suite)
    rows = [next(e for e in suite["products"] if e["product"] == row["product"])
            for row in suite.get("leaderboard", [])]
    caption = "Dots: score; bars: 95% bootstrap interval over cases." + (
        " A provisional score still waits for judges' verdicts and is never ranked."
        if any(r.get("provisional") for r in rows) else "")
    figs = [_figure(draw.scores_svg(rows, colors, anchor(suite) + "-scores"), caption)]
    if groups:
        figs.append(_figure(draw.bars_svg(groups, colors, anchor(suite) + "-groups"),
                            groups.axis))
    return '<div class="figs">' + "".join(figs) + "</div>"


def suite_section(suite: Mapping[str, Any], own: SuiteRecords,
                  expected: Mapping[str, Sequence[str]], colors: Mapping[str, str],
                  draw: plots.Drawer | None) -> str:
    """The ``<section>`` of one suite (its ``own`` records, ``expected`` outputs per
    case), figures drawn by ``draw`` in the run's product ``colors`` (none when
    ``None``)."""
    records = own.records
    r = suite.get("ranking", {})
    direction = "higher" if r.get("higher_is_better", True) else "lower"
    reps = int(suite.get("repetitions") or 1)
    parts = [
        f'<section class="suite" id="{esc(anchor(suite))}" lang="{esc(suite["locale"])}">',
        f"<h2>{esc(suite['title'])}</h2>",
        f'<p class="meta"><code>{esc(suite["id"])}</code> v{esc(suite["version"])} · method '
        f"<b>{esc(suite['method'])}</b> · locale <b>{esc(suite['locale'])}</b> · {reps} "
        f"repetition{'s' if reps != 1 else ''} · ranked by <b>{esc(r.get('metric'))}</b> "
        f"({direction} is better, compared at {esc(r.get('decimals', '-'))} decimals)</p>",
        suite_badges(suite),
        *(_plain(common_set_table(suite)) if suite.get("common_set") else []),
        # rig suites rank per metric table (their own section), never on one leaderboard
        *([] if "rig" in suite else ["<h3>Leaderboard</h3>", leaderboard(suite)]),
        _figures(suite, colors, draw),
        summary_figures(suite),
        "<h3>Products</h3>", products_table(suite),
    ]
    for extra in (*method_tables(suite), *pipeline_tables(suite), *streaming_tables(suite)):
        parts += _plain(extra)
    latency = streaming_groups(suite) if draw is not None else None
    if latency is not None:
        parts.append('<div class="figs">' + _figure(
            draw.bars_svg(latency, colors, anchor(suite) + "-streaming"),  # type: ignore[union-attr]
            latency.axis) + "</div>")
    groups = metric_groups(suite)
    if groups:
        parts += [f"<h3>{esc(groups.title)}</h3>", metric_groups_table(groups)]
    for group in own.group_tables(suite):
        parts += [f"<h3>Scores {esc(group.title)}</h3>",
                  group_table(group, group.title.removeprefix("by "))]
    parts.append(validity_table(suite))
    if "rig" in suite:
        parts.append(rig_section(suite["rig"]))
    parts.append(rule_tables(suite))
    for extra in observation_tables(suite):
        parts += _plain(extra, 4)
    comparisons = suite.get("comparisons", [])
    drawn = sorted(comparisons, key=lambda c: -c["mean_difference"])[:FOREST_ROWS] \
        if len(comparisons) > FOREST_ROWS else comparisons
    forest = _figure(draw.forest_svg(drawn, anchor(suite) + "-forest"),
                     "Difference b − a of mean item score over the cases both products "
                     "scored; resolved when the interval excludes 0." + (
                         f" The {FOREST_ROWS} closest of {len(comparisons)} comparisons."
                         if drawn is not comparisons else "")) \
        if draw is not None and comparisons else ""
    parts += comparison_parts(suite, forest, scope_note(suite))
    if any(e.get("judging") for e in suite["products"]):
        parts += ["<h3>Judging</h3>", judging_table(suite["products"])]
        per_rule = rule_rows(suite["products"])
        if per_rule:
            parts += ["<h3>Judging per rule</h3>", table(
                RULE_HEAD, [[esc(c) for c in row] for row in per_rule],
                numeric=(2, 3, 4), full=True)]
    parts += ["<h3>Failing items</h3>", failing_lists(suite, records, expected),
              errors_table(records), "</section>"]
    return "\n".join(p for p in parts if p)
