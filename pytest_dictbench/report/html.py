"""``dictbench.html``: one self-contained page (inline CSS and SVG, no script, no URL).

Pure: :func:`render_html` turns the ``dictbench.json`` body and the item records into a
string; the same inputs give the same bytes. Figures need matplotlib (the ``plot``
extra); without it the page shows the same figures as tables and says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import __version__
from ..methods.base import ItemRecord
from ..text.visible import visible
from . import plots
from .by_suite import SuiteRecords, records_by_suite
from .html_parts import esc, table
from .html_parts import plain_table as _plain
from .html_style import CSS
from .html_suite import anchor, suite_section
from .pipelines import split_tables
from .terminal import capture_spend_lines, gate_lines, idle_product_lines

__all__ = ["render_html"]

#: Expected outputs per suite id and case id (see ``sections.expected_texts``).
Expected = Mapping[str, Mapping[str, Sequence[str]]]


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
        rows.append([f'<a href="#{anchor(s)}">{esc(s["title"])}</a>',
                     f"<code>{esc(s['id'])}</code>", esc(s["method"]), esc(s["locale"]),
                     f"{ranked} of {len(s['products'])}",
                     f"{esc(r.get('metric', s.get('headline')))} ({direction} is better)",
                     canary])
    return table(["Suite", "Id", "Method", "Locale", "Ranked products", "Ranked by", "Canary"],
                 rows, full=True)


def render_html(report: Mapping[str, Any], records: Sequence[ItemRecord],
                expected: Expected | None = None, *, figures: bool | None = None,
                drawer: plots.Drawer | None = None,
                by_suite: Mapping[str, SuiteRecords] | None = None) -> str:
    """The whole ``dictbench.html`` page.

    :param report: the ``dictbench.json`` body (``aggregate.summarize``).
    :param records: the run's item records (``items.jsonl``).
    :param expected: expected outputs per suite and case, for diffs of failing items
        whose method does not make its own (``sections.expected_texts(suites)``).
    :param figures: draw SVG figures; ``None`` draws them when matplotlib is installed.
    :param drawer: what draws them (by default :mod:`.plots`, in this process; a
        :class:`.html_figures.FigureRequests` has report helpers draw the same SVG, and
        leaves placeholders for its ``fill``).
    :param by_suite: ``sections.records_by_suite(report, records)``, when the caller
        has it already (the Markdown page reads the same).
    """
    by_suite = by_suite if by_suite is not None else records_by_suite(report, records)
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
        '<nav class="toc">' + "".join(f'<a href="#{esc(anchor(s))}">{esc(s["title"])}</a>'
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
    body += [suite_section(s, by_suite[s["id"]], (expected or {}).get(s["id"], {}), colors,
                           draw) for s in suites]
    body.append(f"<footer>pytest-dictbench {esc(__version__)} · report schema "
                f"{esc(report.get('schema_version', '-'))}</footer>")
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            "<title>dictbench report</title>\n<style>" + CSS + "</style>\n</head>\n<body>\n"
            "<main>\n" + visible("\n".join(body)) + "\n</main>\n</body>\n</html>\n")
