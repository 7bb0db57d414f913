"""The tables of one suite's section of ``dictbench.html``: badges, leaderboard,
products, validity checks, rules, failing items, errors and rig tables (HTML strings,
pure; :mod:`.html_suite` puts them in order)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..methods.base import ItemRecord
from .cohorts import cohort_labels, cohort_text
from .html_parts import esc, failing_table, table
from .rig import rig_notes, rig_tables_text
from .sections import (
    error_items,
    failing_items,
    fmt,
    fmt_interval,
    fmt_score,
    not_tested_cell,
    rule_count_tables,
    score_note,
    summary_metrics,
)
from .validity import validity_rows

__all__ = ["errors_table", "failing_lists", "leaderboard", "products_table", "rig_section",
           "rule_tables", "suite_badges", "summary_figures", "validity_table"]

#: Failing-item lists up to this long start unfolded; longer ones start folded.
OPEN_LIMIT = 20


def suite_badges(suite: Mapping[str, Any]) -> str:
    """The suite's badges: canary, leaks, redactions, a closed gate, same environment."""
    badges = []
    canary = suite["canary"]
    if canary["status"] == "ok":
        badges.append('<span class="badge ok">canary present in every data file</span>')
    else:
        badges.append('<span class="badge bad">canary missing in '
                      f'{esc(", ".join(canary["missing_in"]))}</span>')
    for entry in suite["products"]:
        if entry.get("canary_leaks"):
            badges.append(f'<span class="badge bad">canary leaked by {esc(entry["product"])}: '
                          f'{esc(", ".join(entry["canary_leaks"]))}</span>')
        if entry.get("redacted"):
            badges.append(f'<span class="badge bad">secret redacted before scoring in '
                          f'{esc(entry["product"])}: {esc(", ".join(entry["redacted"]))}</span>')
    gate = suite.get("ranking", {}).get("execution_gate", {})
    if gate and not gate.get("ready", True):
        blocking = ", ".join(gate.get("blocking_items", [])) or "not ready"
        badges.append(f'<span class="badge warn">execution gate closed: {esc(blocking)}</span>')
    same = suite.get("ranking", {}).get("same_environment", [])
    if same:
        badges.append(f'<span class="badge">same environment: {esc(", ".join(same))}</span>')
    return '<div class="badges">' + "".join(badges) + "</div>"


def leaderboard(suite: Mapping[str, Any]) -> str:
    """The ranked products with score, interval, counts and notes."""
    entries = {e["product"]: e for e in suite["products"]}
    headline = suite.get("headline") or "score"
    head = ["Rank", "Product", *([esc(headline)] if headline != "score" else []), "Score",
            "95% interval", "Passed", "Failed", "Errors", "Not tested", "Note"]
    labels = cohort_labels(suite["products"])
    rows = []
    for row in suite.get("leaderboard", []):
        e = entries[row["product"]]
        rank = (f'<span class="rank">{row["rank"]}</span>' if row.get("rank") is not None
                else '<span class="unranked">not ranked</span>')
        rows.append([rank, f"<b>{esc(row['product'])}</b>",
                     *([fmt(row.get(headline), headline)] if headline != "score" else []),
                     fmt_score(e), fmt_interval(e.get("score_ci")), str(e["passed"]),
                     str(e["failed"]), str(e["errors"]), not_tested_cell(e),
                     _note(e, labels.get(e["product"]))])
    note = score_note(suite)
    return table(head, rows, numeric=range(2, len(head) - 1), full=True) + (
        f'<p class="note">{esc(note[0].upper() + note[1:])}.</p>' if note else "")


def _note(entry: Mapping[str, Any], label: str | None) -> str:
    """The leaderboard's note: the product's environment cohort, then why it is not ranked."""
    cohort = (f'<span class="cohort">cohort {label}: {esc(cohort_text(entry.get("cohort")))}'
              "</span>" if label else "")
    reason = entry.get("reason")
    why = f'<span class="why">{esc(reason)}</span>' if reason else ""
    return cohort + ("<br>" if cohort and why else "") + why


def summary_figures(suite: Mapping[str, Any]) -> str:
    """Every summary figure per product, folded."""
    names = summary_metrics(suite)
    products = [e for e in suite["products"] if e.get("tables", {}).get("summary")]
    if not names or not products:
        return ""
    rows = [[esc(n), *(fmt(e["tables"]["summary"].get(n), n) for e in products)] for n in names]
    inner = table(["Figure", *(esc(e["product"]) for e in products)], rows,
                  numeric=range(1, len(products) + 1))
    return f"<details><summary>All summary figures</summary>{inner}</details>"


def _speed_cells(entry: Mapping[str, Any]) -> list[str]:
    """RTFx alone (audio seconds per processing second); the mean RTF, nearly its
    inverse, stays in dictbench.json and the Markdown report (CF29: one speed figure)."""
    rtfx = (entry.get("speed") or {}).get("rtfx")
    return ["-" if rtfx is None else f"{rtfx:.1f}"]


def _environment_cell(environment: Mapping[str, Any]) -> str:
    """The environment folded: the fields the cohorts compare first (hardware, os) as
    the summary, every field inside (CF29: one long line pushed the table off the page)."""
    if not environment:
        return "-"
    items = sorted(environment.items())
    shown = [str(environment[k]) for k in ("hardware", "os") if environment.get(k)]
    summary = ", ".join(shown) if shown else f"{len(items)} fields"
    listed = "".join(f"<li>{esc(k)}={esc(v)}</li>" for k, v in items)
    return (f'<details class="env"><summary>{esc(summary)}</summary><ul>{listed}</ul>'
            "</details>")


def products_table(suite: Mapping[str, Any]) -> str:
    """Each product's version, adapter, environment, counts, latency and speed."""
    entries = suite["products"]
    pending = any(e.get("pending_adjudications") for e in entries)
    speed = any(e.get("speed") for e in entries)
    labels = cohort_labels(entries)
    rows = []
    for e in entries:
        env = _environment_cell(e.get("environment") or {})
        cohort = cohort_text(e.get("cohort"))
        cohort = f"{labels[e['product']]}: {cohort}" if e["product"] in labels else cohort
        lat = e.get("latency") or {}
        rows.append([f"<b>{esc(e['product'])}</b>",
                     f'<span class="long">{esc(e.get("version") or "-")}</span>',
                     esc(e.get("adapter") or "-"), env, esc(cohort or "-"),
                     str(e["items"]), f"{e.get('cases_scored', '-')} / {e.get('cases', '-')}",
                     str(e.get("empty", 0)), fmt(lat.get("median")), fmt(lat.get("p95")),
                     str(lat.get("n", 0)), *(_speed_cells(e) if speed else []),
                     *([str(e.get("pending_adjudications", 0))] if pending else [])])
    head = ["Product", "Version", "Adapter", "Environment", "Cohort", "Items", "Cases scored",
            "Empty", "median", "p95", "n", *(["RTFx"] if speed else []),
            *(["Pending adjudications"] if pending else [])]
    group_head = ('<tr class="group"><th colspan="8"></th><th colspan="3">Latency (ms)</th>'
                  + ('<th>Speed</th>' if speed else "")
                  + ("<th></th>" if pending else "") + "</tr>")
    return table(head, rows, numeric=range(5, len(head)), group_head=group_head, full=True)


def validity_table(suite: Mapping[str, Any]) -> str:
    """The validity checks' findings per product (empty when there are none)."""
    rows = validity_rows(suite)
    if not rows:
        return ""
    body = "".join(f"<tr><td>{esc(p)}</td><td>{esc(check)}</td><td>{esc(finding)}</td></tr>"
                   for p, check, finding in rows)
    return ("<h3>Validity checks</h3><table><thead><tr><th>Product</th><th>Check</th>"
            f"<th>Finding</th></tr></thead><tbody>{body}</tbody></table>")


def rule_tables(suite: Mapping[str, Any]) -> str:
    """Rubric: per product, how many items failed each rule and how many were unjudged."""
    parts = []
    for title, rules, counts in rule_count_tables(
            suite, ("rule_failures", "unjudged", "overturned")):
        rows = [[f"<b>{esc(p)}</b>", *(str(c.get(r, 0)) for r in rules)]
                for p, c in counts.items()]
        parts.append(f"<h4>{esc(title)}</h4>" + table(
            ["Product", *(f'<span class="rule">{esc(r)}</span>' for r in rules)], rows,
            numeric=range(1, len(rules) + 1)))
    return "<h3>Rules</h3>" + "".join(parts) if parts else ""


def failing_lists(suite: Mapping[str, Any], records: Sequence[ItemRecord],
                  expected: Mapping[str, Sequence[str]]) -> str:
    """The failing items per product, each list folded when longer than OPEN_LIMIT."""
    items = failing_items(suite, records, expected)
    if not items:
        return '<p class="empty">No failing items.</p>'
    parts = []
    for product in sorted({i.product for i in items}):
        mine = [i for i in items if i.product == product]
        inner = failing_table(mine, repetitions=int(suite.get("repetitions") or 1) > 1)
        opened = " open" if len(mine) <= OPEN_LIMIT else ""
        parts.append(f"<details{opened}><summary>{esc(product)} — {len(mine)} failing "
                     f"item{'s' if len(mine) != 1 else ''}</summary>{inner}</details>")
    return "".join(parts)


def errors_table(records: Sequence[ItemRecord]) -> str:
    """The items that ended in an error, with their messages."""
    errors = error_items(records)
    if not errors:
        return ""
    rows = [[esc(p), f"<code>{esc(c)}</code>", str(rep), esc(msg)] for p, c, rep, msg in errors]
    return "<h3>Errors</h3>" + table(["Product", "Case", "Rep.", "Message"], rows, numeric=(2,),
                                     full=True)


def rig_section(rig: Mapping[str, Any]) -> str:
    """A rig suite's notes and methodology tables."""
    parts = ["<h3>Rig methodology tables</h3>",
             "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in rig_notes(rig)) + "</ul>"]
    for t in rig_tables_text(rig):
        parts += [f"<h4>{esc(t.title)}</h4>",
                  table([esc(h) for h in t.head], ([esc(c) for c in row] for row in t.rows),
                        numeric=t.numeric)]
    return "\n".join(parts)
