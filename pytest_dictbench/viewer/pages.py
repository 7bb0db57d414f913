"""The viewer's pages as HTML text, from what the store gives. Pure: no server, no store.

Every value from the store is escaped; pages carry no script. A run's own report page is
``report.html.render_html`` of its stored ``dictbench.json`` and items, with a bar on top
that leads back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote, urlencode

from ..store.interface import StoredRun

__all__ = ["item_link", "items_page", "official_note", "page", "run_link", "run_report_page",
           "runs_page", "trend_chart", "trend_page"]

_HEAD = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
         '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
         '<title>{title}</title>\n<link rel="stylesheet" href="/static/viewer.css">\n'
         '</head>\n<body>\n<nav><a href="/">Runs</a> · {where}</nav>\n<main>\n')
_TAIL = "</main>\n</body>\n</html>\n"


def page(title: str, where: str, body: str) -> str:
    return _HEAD.format(title=escape(title), where=where) + body + _TAIL


def _score(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def run_link(run_id: str) -> str:
    return f'<a href="/run/{quote(run_id, safe="")}">{escape(run_id)}</a>'


def item_link(run_id: str, record: Mapping[str, Any], text: str) -> str:
    """A link to one item's page."""
    query = urlencode({"run": run_id, "suite": record.get("suite", ""),
                       "case": record.get("case_id", ""), "product": record.get("product", ""),
                       "rep": record.get("repetition", 1)})
    return f'<a href="/item?{escape(query)}">{escape(text)}</a>'


def _trend_link(suite: str, product: str, text: str | None = None) -> str:
    query = urlencode({"suite": suite, "product": product})
    return f'<a href="/trend?{escape(query)}">{escape(text or product)}</a>'


def runs_page(runs: Sequence[StoredRun], *, suite: str = "", product: str = "",
              location: str = "", more: bool = False) -> str:
    """The stored runs, newest first, and a link to each suite × product series they
    hold; ``more``: older runs were left out (a link lists them all)."""
    rows = []
    series: dict[tuple[str, str], int] = {}
    for run in reversed(runs):
        official = ", ".join(f"{s}/{p}" for s, p in run.official) or ""
        commit = (run.git_commit or "–")[:10] + (" (dirty)" if run.git_dirty else "")
        suites = ", ".join(f"{escape(s)}@{escape(v)}" for s, v in sorted(run.suites.items()))
        state = "complete" if run.complete else f"stopped: {escape(run.stop_reason)}"
        rows.append(
            f"<tr><td>{run_link(run.run_id)}</td><td>{escape(run.finished_utc)}</td>"
            f"<td><code>{escape(commit)}</code></td><td>{suites}</td>"
            f"<td>{escape(', '.join(run.products))}</td><td class=num>{run.items}</td>"
            f"<td>{state}</td><td>{escape(official)}</td></tr>")
        for suite_id in run.suites:
            for name in run.products:
                series[(suite_id, name)] = series.get((suite_id, name), 0) + 1
    filters = " ".join(f"{k} <b>{escape(v)}</b>" for k, v in (("suite", suite),
                                                              ("product", product)) if v)
    shown = f"{len(runs)} run(s)"
    if more:
        every = {"all": "1", **{k: v for k, v in (("suite", suite), ("product", product)) if v}}
        shown = (f'the newest {len(runs)} runs (<a href="/?{escape(urlencode(every))}">list '
                 "every run</a>)")
    body = [f"<h1>Runs</h1>\n<p class=muted>{shown} in "
            f"<code>{escape(location)}</code>{'; ' + filters if filters else ''}</p>"]
    if runs:
        body.append("<table id=runs>\n<thead><tr><th>run</th><th>finished (UTC)</th>"
                    "<th>commit</th><th>suites</th><th>products</th><th>items</th>"
                    "<th>state</th><th>official for</th></tr></thead>\n<tbody>\n"
                    + "\n".join(rows) + "\n</tbody></table>")
        if len(runs) > 1:
            options = "".join(f'<option value="{escape(r.run_id)}">{escape(r.run_id)}</option>'
                              for r in reversed(runs))
            body.append('<h2>Two runs side by side</h2>\n<form id=compare action="/compare" '
                        f'method="get"><label>before <select name="a">{options}</select>'
                        f'</label> <label>after <select name="b">{options}</select></label> '
                        '<button type="submit">Compare</button></form>')
        links = [f"<li>{escape(s)}: {_trend_link(s, p)} ({n} run(s))</li>"
                 for (s, p), n in sorted(series.items())]
        body.append("<h2>Trends</h2>\n<ul id=series>\n" + "\n".join(links) + "\n</ul>")
    else:
        body.append("<p>No run is stored yet: a pytest run that writes reports records "
                    "itself here.</p>")
    return page("dictbench runs", "runs", "\n".join(body) + "\n")


def trend_chart(points: Sequence[Mapping[str, Any]], *, width: int = 720,
                height: int = 220) -> str:
    """An inline SVG: each run's score with its interval, drops in red, a dashed line
    where a new suite version starts the series again."""
    known = [v for p in points for v in (p["score"], p["low"], p["high"]) if v is not None]
    if not known:
        return '<p class=muted>No scored run to draw.</p>'
    low, high = min(known), max(known)
    if high - low < 1:
        low, high = low - 0.5, high + 0.5
    pad, left = 30, 56  # room for the axis labels at the left
    step = (width - left - 24) / max(1, len(points) - 1)

    def y(value: float) -> float:
        return round(height - pad - (value - low) / (high - low) * (height - 2 * pad), 1)

    parts = [f'<svg id=trend xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="score per run">',
             f'<text x="4" y="{y(high) + 4}" font-size="11">{high:.1f}</text>',
             f'<text x="4" y="{y(low) + 4}" font-size="11">{low:.1f}</text>']
    line = []
    for n, point in enumerate(points):
        x = round(left + n * step, 1)
        if point.get("new_version"):
            parts.append(f'<line x1="{x - step / 2}" x2="{x - step / 2}" y1="{pad / 2}" '
                         f'y2="{height - pad / 2}" stroke="#888" stroke-dasharray="4 3"/>')
            line = []
        if point["low"] is not None and point["high"] is not None:
            parts.append(f'<line x1="{x}" x2="{x}" y1="{y(point["low"])}" '
                         f'y2="{y(point["high"])}" stroke="#9ab"/>')
        if point["score"] is None:
            continue
        colour = "#c0392b" if point.get("drop") else "#2c5f8a"
        line.append(f"{x},{y(point['score'])}")
        if len(line) > 1:
            parts.append(f'<polyline points="{" ".join(line[-2:])}" fill="none" '
                         f'stroke="#2c5f8a"/>')
        parts.append(f'<circle cx="{x}" cy="{y(point["score"])}" r="4" fill="{colour}">'
                     f'<title>{escape(point["run_id"])}: {point["score"]:.1f}</title></circle>')
    return "\n".join(parts) + "\n</svg>"


def trend_page(suite: str, product: str, points: Sequence[Mapping[str, Any]]) -> str:
    """A product's score on a suite over runs, with the runs where it dropped."""
    rows = []
    for point in points:
        note = ""
        if point.get("new_version"):
            note = f"suite version {escape(point['suite_version'])}: a new series"
        elif point.get("drop"):
            drop = point["drop"]
            note = (f'<span class=drop>dropped {drop["mean_difference"]:+.2f} '
                    f'[{drop["interval"]["low"]:+.2f}, {drop["interval"]["high"]:+.2f}]'
                    "</span>")
        rows.append(f"<tr><td>{run_link(point['run_id'])}</td>"
                    f"<td>{escape(point['finished_utc'])}</td>"
                    f"<td><code>{escape((point['git_commit'] or '–')[:10])}</code></td>"
                    f"<td>{escape(point['suite_version'])}</td>"
                    f"<td class=num>{_score(point['score'])}</td>"
                    f"<td class=num>[{_score(point['low'])}, {_score(point['high'])}]</td>"
                    f"<td>{note}</td></tr>")
    drops = [p for p in points if p.get("drop")]
    said = (f"Dropped (a resolved paired drop from the run before) in {len(drops)} run(s), "
            f"first {escape(drops[0]['finished_utc'][:10])} ({run_link(drops[0]['run_id'])})."
            if drops else "No resolved drop from one run to the next.")
    body = (f"<h1>{escape(product)} on {escape(suite)}</h1>\n<p>{said}</p>\n"
            f"{trend_chart(points)}\n<table id=points>\n<thead><tr><th>run</th>"
            "<th>finished (UTC)</th><th>commit</th><th>suite version</th><th>score</th>"
            "<th>95% interval</th><th></th></tr></thead>\n<tbody>\n" + "\n".join(rows)
            + "\n</tbody></table>\n")
    return page(f"{product} on {suite}", f"trend of {escape(product)} on {escape(suite)}",
                 body)


def official_note(suite: str, product: str, official: str | None, *,
                  run_id: str | None = None) -> str:
    """Which run is official for ``product`` on ``suite`` (``run_id``: said from that
    run's side)."""
    if official is None:
        return f"no official run of {escape(product)} on {escape(suite)} is declared"
    if official == run_id:
        return f"this is the official run of {escape(product)} on {escape(suite)}"
    return f"the official run of {escape(product)} on {escape(suite)} is {run_link(official)}"


def run_report_page(run_id: str, report_html: str,
                    officials: Mapping[tuple[str, str], str | None] | None = None) -> str:
    """The run's report page with a bar on top leading back to the runs and its items,
    and saying which run is official for each suite and product of the run
    (``officials``: ``{(suite, product): official run id or None}``)."""
    notes = "".join(f"<li>{official_note(suite, product, official, run_id=run_id)}</li>"
                    for (suite, product), official in sorted((officials or {}).items()))
    bar = (f'<nav style="font:14px sans-serif;padding:6px 0"><a href="/">Runs</a> · run '
           f'{escape(run_id)} · <a href="/run/{quote(run_id, safe="")}/items">every item</a>'
           + (f'<ul id=official style="margin:4px 0">{notes}</ul>' if notes else "")
           + "</nav>\n")
    head, marker, tail = report_html.partition("<body>\n")
    return head + marker + bar + tail if marker else bar + report_html


def items_page(run: StoredRun, records: Sequence[Mapping[str, Any]], *, suite: str = "",
               product: str = "", status: str = "") -> str:
    """A run's items, filtered by suite, product and status; private texts stay out."""
    rows = []
    for record in records:
        if status and record.get("status") != status:
            continue
        text = record.get("text")
        shown = "<i>private</i>" if text is None else escape(str(text))
        score = record.get("score")
        rows.append(f"<tr><td>{escape(str(record.get('suite', '')))}</td>"
                    f"<td>{item_link(run.run_id, record, str(record.get('case_id', '')))}</td>"
                    f"<td>{escape(str(record.get('product', '')))}</td>"
                    f"<td class='status {escape(str(record.get('status', '')))}'>"
                    f"{escape(str(record.get('status', '')))}</td>"
                    f"<td class=num>{'–' if score is None else f'{score:.1f}'}</td>"
                    f"<td class=text>{shown}</td></tr>")
    filters = ", ".join(f"{k} {escape(v)}" for k, v in (("suite", suite), ("product", product),
                                                         ("status", status)) if v)
    body = (f"<h1>Items of run {escape(run.run_id)}</h1>\n<p class=muted>{len(rows)} item(s)"
            f"{' (' + filters + ')' if filters else ''}</p>\n<table id=items>\n<thead><tr>"
            "<th>suite</th><th>case</th><th>product</th><th>status</th><th>score</th>"
            "<th>output</th></tr></thead>\n<tbody>\n" + "\n".join(rows)
            + "\n</tbody></table>\n")
    return page(f"items of {run.run_id}", f"{run_link(run.run_id)} · items", body)
