"""Building blocks of ``dictbench.html``: tables, diffs, rule lists, comparison and
judging tables. Every text taken from the data goes through :func:`esc`."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .method_tables import PlainTable
from .sections import (
    FailingItem,
    GroupTable,
    MetricGroups,
    fmt,
    fmt_interval,
    fmt_p,
    shared_cell,
)

__all__ = ["comparisons_table", "diff_html", "esc", "failing_table", "fmt_p",
           "group_table", "judging_table", "metric_groups_table", "table"]

_DIFF_TOKEN = re.compile(r"\[-(.*?)-\]|\{\+(.*?)\+\}", re.S)


def esc(value: Any) -> str:
    """``value`` as text safe inside HTML elements and quoted attributes."""
    return html.escape(str(value), quote=True)


def table(head: Sequence[str], rows: Iterable[Sequence[str]], *, numeric: Iterable[int] = (),
          group_head: str = "", empty: str = "nothing to show", full: bool = False) -> str:
    """A table from pre-escaped cells; columns in ``numeric`` are right-aligned and a
    ``full`` table spans the page width (others are as wide as their content)."""
    num = set(numeric)

    def cls(i: int) -> str:
        return ' class="num"' if i in num else ""

    body = ["<tr>" + "".join(f"<td{cls(i)}>{c}</td>" for i, c in enumerate(row)) + "</tr>"
            for row in rows]
    if not body:
        return f'<p class="empty">{esc(empty)}</p>'
    header = "<tr>" + "".join(f"<th{cls(i)}>{h}</th>" for i, h in enumerate(head)) + "</tr>"
    tag = '<table class="full">' if full else "<table>"
    return ('<div class="scroll">' + tag + "<thead>" + group_head + header + "</thead><tbody>"
            + "".join(body) + "</tbody></table></div>")


def diff_html(diff: str) -> str:
    """A ``[-removed-]{+added+}`` diff as ``<del>`` / ``<ins>`` spans."""
    if not diff:
        return '<span class="empty">no expected output to compare with</span>'
    parts, last = [], 0
    for match in _DIFF_TOKEN.finditer(diff):
        parts.append(esc(diff[last:match.start()]))
        removed, added = match.group(1), match.group(2)
        parts.append(f"<del>{esc(removed)}</del>" if removed is not None
                     else f"<ins>{esc(added)}</ins>")
        last = match.end()
    parts.append(esc(diff[last:]))
    return '<span class="diff">' + "".join(parts) + "</span>"


def _rules_html(item: FailingItem) -> str:
    if not item.rules:
        return esc(item.message) if item.message else '<span class="empty">-</span>'
    lines = [f'<li><span class="rule">{esc(rule)}</span><span class="s s{score}">{score}'
             f"</span>{esc(evidence)}</li>" for rule, score, evidence in item.rules]
    return '<ul class="rules">' + "".join(lines) + "</ul>"


def failing_table(items: Sequence[FailingItem], *, repetitions: bool) -> str:
    """Case, failed rules with score and evidence, and the character diff."""
    head = ["Case", *(["Rep."] if repetitions else []), "Failed rules (score, evidence)",
            "Diff against the closest expected output"]
    rows = [[f"<code>{esc(i.case_id)}</code>", *([str(i.repetition)] if repetitions else []),
             _rules_html(i), diff_html(i.diff)] for i in items]
    return table(head, rows, numeric=(1,) if repetitions else (), full=True)


def group_table(group: GroupTable, label: str) -> str:
    """Groups as rows; per product its mean score, cases and (rubric) meaning errors."""
    per = 3 if group.extra_title else 2
    top = "".join(f'<th colspan="{per}">{esc(p)}</th>' for p in group.products)
    group_head = f'<tr class="group"><th></th>{top}</tr>'
    head = [esc(label)]
    for _ in group.products:
        head += ["score", "cases"] + ([esc(group.extra_title)] if group.extra_title else [])
    rows = []
    for name in group.groups:
        row = [esc(name)]
        for product in group.products:
            score, n = group.cells.get(product, {}).get(name, (None, 0))
            row += [fmt(score), str(n) if n else "-"]
            if group.extra_title:
                row.append(fmt(group.extra.get(product, {}).get(name)))
        rows.append(row)
    return table(head, rows, numeric=range(1, 1 + per * len(group.products)),
                 group_head=group_head)


def metric_groups_table(groups: MetricGroups) -> str:
    """The figures behind the grouped bars: categories as rows, products as columns."""
    products = sorted(groups.values)
    rows = [[esc(cat), *(fmt(groups.values[p][i], groups.unit_name) for p in products)]
            for i, cat in enumerate(groups.categories)]
    return table(["", *(esc(p) for p in products)], rows, numeric=range(1, len(products) + 1))


def comparisons_table(comparisons: Sequence[Mapping[str, Any]],
                      resolved: str = "resolved") -> str:
    """Discordant counts, McNemar p (raw, Holm, Bonferroni), difference and interval;
    ``resolved`` heads the last column."""
    head = ["b − a", "shared cases", "only a failed", "only b failed", "both failed", "McNemar p",
            "Holm p", "Bonferroni p", "mean a", "mean b", "difference", "95% interval",
            esc(resolved)]
    rows = []
    for c in comparisons:
        resolved = c.get("resolved")
        rows.append([
            f"<b>{esc(c['b'])}</b> − <b>{esc(c['a'])}</b>", shared_cell(c), str(c["only_a_failed"]),
            str(c["only_b_failed"]), str(c["both_failed"]), esc(fmt_p(c.get("mcnemar_p"))),
            esc(fmt_p(c.get("p_holm"))), esc(fmt_p(c.get("p_bonferroni"))), fmt(c.get("mean_a")),
            fmt(c.get("mean_b")), f"{c['mean_difference']:+.1f}",
            esc(fmt_interval(c.get("interval"), signed=True)),
            '<span class="yes">yes</span>' if resolved else '<span class="no">no</span>',
        ])
    return table(head, rows, numeric=range(1, 12), full=True)


def _kappa(agreement: Mapping[str, Any] | None) -> str:
    if not agreement:
        return "-"
    overall = agreement.get("overall", agreement)
    kappa = overall.get("kappa")
    return f"{fmt(kappa, 'kappa')} (n {overall.get('n', 0)})"


def judging_table(entries: Sequence[Mapping[str, Any]]) -> str:
    """Per product: judges, items judged, pending adjudications, cost and agreement."""
    rows = []
    for entry in entries:
        j = entry.get("judging")
        if not j:
            continue
        human = j.get("human_agreement") or {}
        consistency = j.get("self_consistency") or {}
        rows.append([
            esc(entry["product"]), esc(", ".join(j.get("judges", []))),
            str(j.get("items_judged", 0)), str(entry.get("pending_adjudications", 0)),
            f"{float(j.get('cost_usd') or 0.0):.4f}", esc(_kappa(j.get("agreement"))),
            esc("; ".join(f"{n}: {_kappa(a)}" for n, a in sorted(human.items())) or "-"),
            esc("; ".join(f"{n}: {_kappa(a)}" for n, a in sorted(consistency.items())) or "-"),
        ])
    return table(["Product", "Judges", "Items judged", "Pending", "Cost (USD)",
                  "Judge agreement κ", "Agreement with humans κ", "Self-consistency κ"],
                 rows, numeric=(2, 3, 4), full=True)


def plain_table(extra: PlainTable, level: int = 3) -> list[str]:
    """A :class:`PlainTable` as a heading, its note and the table."""
    return [f"<h{level}>{esc(extra.title)}</h{level}>",
            f'<p class="meta">{esc(extra.note)}</p>' if extra.note else "",
            table([esc(h) for h in extra.head], [[esc(c) for c in row] for row in extra.rows],
                  numeric=extra.numeric)]
