"""``dictbench.html``: one self-contained page (inline CSS and SVG, no script, no URL).

Pure: :func:`render_html` turns the ``dictbench.json`` body and the item records into a
string; the same inputs give the same bytes. Figures need matplotlib (the ``plot``
extra); without it the page shows the same figures as tables and says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import __version__
from ..judge.report import RULE_HEAD, rule_rows
from ..methods.base import ItemRecord
from ..text.visible import visible
from . import plots
from .cohorts import cohort_labels, cohort_text
from .comparison_text import common_set_table
from .html_compare import comparison_parts
from .html_parts import (
    esc,
    failing_table,
    group_table,
    judging_table,
    metric_groups_table,
    table,
)
from .html_parts import plain_table as _plain
from .html_style import CSS
from .method_tables import method_tables
from .observations import observation_tables
from .pipelines import pipeline_tables, scope_note, split_tables
from .rig import rig_notes, rig_tables_text
from .sections import (
    error_items,
    failing_items,
    fmt,
    fmt_interval,
    fmt_score,
    group_tables,
    metric_groups,
    not_tested_cell,
    rule_count_tables,
    score_note,
    suite_records,
    summary_metrics,
)
from .streaming import streaming_groups, streaming_tables
from .terminal import capture_spend_lines, gate_lines, idle_product_lines
from .validity import validity_rows

__all__ = ["render_html"]

#: Failing-item lists up to this long start unfolded; longer ones start folded.
OPEN_LIMIT = 20
#: The most comparisons the forest figure draws (the closest to the best, in a large sweep).
FOREST_ROWS = 50

#: Expected outputs per suite id and case id (see ``sections.expected_texts``).
Expected = Mapping[str, Mapping[str, Sequence[str]]]


def _anchor(suite: Mapping[str, Any]) -> str:
    return "suite-" + "".join(c if c.isalnum() or c in "-_." else "-" for c in suite["id"])


def _statistics_note(report: Mapping[str, Any]) -> str:
    stats = report.get("statistics", {})
    return (
        '<div class="note">'
        "<p><b>Ranks are per suite.</b> Each suite is ranked on its own metric; there is no "
        "overall winner across suites.</p>"
        f"<p>Score: mean over cases of the median over repetitions (0-100). Intervals: "
        f"{esc(stats.get('interval', '-'))} ({esc(stats.get('resamples', '-'))} resamples, "
        f"seed {esc(stats.get('seed', '-'))}). Paired comparisons: McNemar exact test on "
        f"discordant pass/fail items; p values adjusted by "
        f"{esc(stats.get('p_adjustment', '-'))}.</p></div>")


def _overview(suites: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for s in suites:
        ranked = sum(1 for e in s["products"] if e.get("rank") is not None)
        r = s.get("ranking", {})
        direction = "higher" if r.get("higher_is_better", True) else "lower"
        canary = ('<span class="badge ok">ok</span>' if s["canary"]["status"] == "ok"
                  else '<span class="badge bad">missing</span>')
        rows.append([f'<a href="#{_anchor(s)}">{esc(s["title"])}</a>',
                     f"<code>{esc(s['id'])}</code>", esc(s["method"]), esc(s["locale"]),
                     f"{ranked} of {len(s['products'])}",
                     f"{esc(r.get('metric', s.get('headline')))} ({direction} is better)",
                     canary])
    return table(["Suite", "Id", "Method", "Locale", "Ranked products", "Ranked by", "Canary"],
                 rows, full=True)


def _badges(suite: Mapping[str, Any]) -> str:
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


def _leaderboard(suite: Mapping[str, Any]) -> str:
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


def _summary_figures(suite: Mapping[str, Any]) -> str:
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


def _products(suite: Mapping[str, Any]) -> str:
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


def _validity(suite: Mapping[str, Any]) -> str:
    rows = validity_rows(suite)
    if not rows:
        return ""
    body = "".join(f"<tr><td>{esc(p)}</td><td>{esc(check)}</td><td>{esc(finding)}</td></tr>"
                   for p, check, finding in rows)
    return ("<h3>Validity checks</h3><table><thead><tr><th>Product</th><th>Check</th>"
            f"<th>Finding</th></tr></thead><tbody>{body}</tbody></table>")


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
    figs = [_figure(draw.scores_svg(rows, colors, _anchor(suite) + "-scores"), caption)]
    if groups:
        figs.append(_figure(draw.bars_svg(groups, colors, _anchor(suite) + "-groups"),
                            groups.axis))
    return '<div class="figs">' + "".join(figs) + "</div>"


def _rule_tables(suite: Mapping[str, Any]) -> str:
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


def _failing(suite: Mapping[str, Any], records: Sequence[ItemRecord],
             expected: Mapping[str, Sequence[str]]) -> str:
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


def _errors(records: Sequence[ItemRecord]) -> str:
    errors = error_items(records)
    if not errors:
        return ""
    rows = [[esc(p), f"<code>{esc(c)}</code>", str(rep), esc(msg)] for p, c, rep, msg in errors]
    return "<h3>Errors</h3>" + table(["Product", "Case", "Rep.", "Message"], rows, numeric=(2,),
                                     full=True)


def _rig(rig: Mapping[str, Any]) -> str:
    parts = ["<h3>Rig methodology tables</h3>",
             "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in rig_notes(rig)) + "</ul>"]
    for t in rig_tables_text(rig):
        parts += [f"<h4>{esc(t.title)}</h4>",
                  table([esc(h) for h in t.head], ([esc(c) for c in row] for row in t.rows),
                        numeric=t.numeric)]
    return "\n".join(parts)


def _suite(suite: Mapping[str, Any], records: Sequence[ItemRecord],
           expected: Mapping[str, Sequence[str]], colors: Mapping[str, str],
           draw: plots.Drawer | None) -> str:
    r = suite.get("ranking", {})
    direction = "higher" if r.get("higher_is_better", True) else "lower"
    reps = int(suite.get("repetitions") or 1)
    parts = [
        f'<section class="suite" id="{esc(_anchor(suite))}" lang="{esc(suite["locale"])}">',
        f"<h2>{esc(suite['title'])}</h2>",
        f'<p class="meta"><code>{esc(suite["id"])}</code> v{esc(suite["version"])} · method '
        f"<b>{esc(suite['method'])}</b> · locale <b>{esc(suite['locale'])}</b> · {reps} "
        f"repetition{'s' if reps != 1 else ''} · ranked by <b>{esc(r.get('metric'))}</b> "
        f"({direction} is better, compared at {esc(r.get('decimals', '-'))} decimals)</p>",
        _badges(suite),
        *(_plain(common_set_table(suite)) if suite.get("common_set") else []),
        # rig suites rank per metric table (their own section), never on one leaderboard
        *([] if "rig" in suite else ["<h3>Leaderboard</h3>", _leaderboard(suite)]),
        _figures(suite, colors, draw),
        _summary_figures(suite),
        "<h3>Products</h3>", _products(suite),
    ]
    for extra in (*method_tables(suite), *pipeline_tables(suite), *streaming_tables(suite)):
        parts += _plain(extra)
    latency = streaming_groups(suite) if draw is not None else None
    if latency is not None:
        parts.append('<div class="figs">' + _figure(
            draw.bars_svg(latency, colors, _anchor(suite) + "-streaming"),  # type: ignore[union-attr]
            latency.axis) + "</div>")
    groups = metric_groups(suite)
    if groups:
        parts += [f"<h3>{esc(groups.title)}</h3>", metric_groups_table(groups)]
    for group in ([] if "rig" in suite else group_tables(suite, records)):
        parts += [f"<h3>Scores {esc(group.title)}</h3>",
                  group_table(group, group.title.removeprefix("by "))]
    parts.append(_validity(suite))
    if "rig" in suite:
        parts.append(_rig(suite["rig"]))
    parts.append(_rule_tables(suite))
    for extra in observation_tables(suite):
        parts += _plain(extra, 4)
    comparisons = suite.get("comparisons", [])
    drawn = sorted(comparisons, key=lambda c: -c["mean_difference"])[:FOREST_ROWS] \
        if len(comparisons) > FOREST_ROWS else comparisons
    forest = _figure(draw.forest_svg(drawn, _anchor(suite) + "-forest"),
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
    parts += ["<h3>Failing items</h3>", _failing(suite, records, expected), _errors(records),
              "</section>"]
    return "\n".join(p for p in parts if p)


def render_html(report: Mapping[str, Any], records: Sequence[ItemRecord],
                expected: Expected | None = None, *, figures: bool | None = None,
                drawer: plots.Drawer | None = None) -> str:
    """The whole ``dictbench.html`` page.

    :param report: the ``dictbench.json`` body (``aggregate.summarize``).
    :param records: the run's item records (``items.jsonl``).
    :param expected: expected outputs per suite and case, for diffs of failing items
        whose method does not make its own (``sections.expected_texts(suites)``).
    :param figures: draw SVG figures; ``None`` draws them when matplotlib is installed.
    :param drawer: what draws them (by default :mod:`.plots`, in this process; a
        :class:`.html_figures.FigureRequests` has report helpers draw the same SVG, and
        leaves placeholders for its ``fill``).
    """
    use_figures = plots.available() if figures is None else figures
    draw = (drawer or plots) if use_figures else None
    suites = report.get("suites", [])
    products = sorted({e["product"] for s in suites for e in s["products"]})
    colors = plots.product_colors(products)
    body = [
        "<header><h1>Dictation benchmark report</h1>",
        f'<p class="lede">{len(suites)} suite{"s" if len(suites) != 1 else ""} · '
        f'{len(products)} product{"s" if len(products) != 1 else ""}: '
        f"{esc(', '.join(products))}</p>",
        '<nav class="toc">' + "".join(f'<a href="#{esc(_anchor(s))}">{esc(s["title"])}</a>'
                                      for s in suites) + "</nav></header>",
        _statistics_note(report),
    ]
    if not use_figures:
        body.append('<p class="warning">Figures are left out: matplotlib is not installed '
                    "(install the <code>plot</code> extra: "
                    "<code>pip install 'pytest-dictbench[plot]'</code>). "
                    "Every figure is also given as a table.</p>")
    body += [f'<p class="warning">{esc(line)}</p>' for line in idle_product_lines(report)]
    gate = gate_lines(report)
    if gate:  # the verdict first and styled: green when passed, red when failed
        state = "passed" if report["gate"]["passed"] else "failed"
        body.append(f'<section class="gate {state}"><h2>CI gate</h2>'
                    f'<p class="verdict">{esc(gate[0])}</p><ul>'
                    + "".join(f"<li>{esc(line)}</li>" for line in gate[1:]) + "</ul></section>")
    spend = capture_spend_lines(report)
    if spend:
        body.append('<section class="spend"><h2>Captures: estimated and billed</h2><ul>'
                    + "".join(f"<li>{esc(line)}</li>" for line in spend) + "</ul></section>")
    for extra in split_tables(report):
        body.append('<section class="split">' + "".join(_plain(extra, 2)) + "</section>")
    body += [_overview(suites)]
    body += [_suite(s, suite_records(records, s["id"]), (expected or {}).get(s["id"], {}),
                    colors, draw) for s in suites]
    body.append(f"<footer>pytest-dictbench {esc(__version__)} · report schema "
                f"{esc(report.get('schema_version', '-'))}</footer>")
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            "<title>dictbench report</title>\n<style>" + CSS + "</style>\n</head>\n<body>\n"
            "<main>\n" + visible("\n".join(body)) + "\n</main>\n</body>\n</html>\n")
