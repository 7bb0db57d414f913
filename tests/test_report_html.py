"""dictbench.html: escaping, well-formed markup, self-containment, figures (and the
fallback without matplotlib), hand-checked tables, byte-identical output."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from report_support import MINI_EXPECTED, mini_records, mini_report, rendered_twice, sample_run

from pytest_dictbench.report import plots
from pytest_dictbench.report.html import render_html
from pytest_dictbench.report.html_parts import diff_html
from pytest_dictbench.report.sections import fmt, metric_groups

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class TagChecker(HTMLParser):
    """Records nesting errors and every id."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [v for k, v in attrs if k == "id" and v]
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [v for k, v in attrs if k == "id" and v]

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()


def check_markup(page: str) -> TagChecker:
    checker = TagChecker()
    checker.feed(page)
    checker.close()
    assert checker.errors == []
    assert checker.stack == []
    duplicates = sorted({i for i in checker.ids if checker.ids.count(i) > 1})
    assert duplicates == []
    return checker


def rows(page: str) -> list[list[str]]:
    """Text of every table row's cells (tags stripped)."""
    found = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", page, flags=re.S):
        found.append([re.sub(r"<[^>]+>", "", c) for c in
                      re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, flags=re.S)])
    return found


@pytest.fixture
def mini_html() -> str:
    return render_html(mini_report(), mini_records(), MINI_EXPECTED, figures=False)


# -- escaping ---------------------------------------------------------------------------

def test_diff_markup_is_parsed_and_escaped() -> None:
    assert diff_html("[-<script>-]{+</b>+}x<y") == (
        '<span class="diff"><del>&lt;script&gt;</del><ins>&lt;/b&gt;</ins>x&lt;y</span>')
    assert "no expected output" in diff_html("")


def test_hostile_names_and_texts_are_escaped() -> None:
    hostile = "<script>alert(1)</script>"
    report = mini_report()
    report["suites"][0]["title"] = '<img src=x onerror="alert(2)">'
    text = json.dumps(report).replace('"p2"', json.dumps(hostile))
    records = json.loads(json.dumps(mini_records()).replace('"p2"', json.dumps(hostile)))
    for figures in (False, True):
        page = render_html(json.loads(text), records, MINI_EXPECTED, figures=figures)
        assert "<script" not in page
        assert "<img" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in page
        assert "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold</b>" not in page
        check_markup(page)


# -- content of the mini report ---------------------------------------------------------

def test_statement_and_leaderboard(mini_html: str) -> None:
    assert "there is no overall winner across suites" in mini_html
    table = rows(mini_html)
    assert ["1", "p2", "0.200", "66.7", "40.0 – 90.0", "2", "1", "0", "1", ""] in table
    assert ["not ranked", "p1", "0.250", "70.0", "50.0 – 90.0", "3", "1", "1", "0",
            "&lt;b&gt;incomplete&lt;/b&gt;: c4 &amp; c5 missing"] in table


def test_genre_table_from_records(mini_html: str) -> None:
    # p1 chat: (100 + 50) / 2 = 75.0 over 2 cases; email: median(80, 60) = 70.0 (c4
    # errored, not counted); p2 chat: (90 + 70) / 2 = 80.0; email: 40.0.
    table = rows(mini_html)
    assert ["chat", "75.0", "2", "80.0", "2"] in table
    assert ["email", "70.0", "1", "40.0", "1"] in table


def test_comparison_products_latency_and_judging(mini_html: str) -> None:
    table = rows(mini_html)
    assert ["p2 − p1", "3", "1", "1", "0", "&lt;0.001", "&lt;0.001", "0.001", "70.0", "66.7",
            "-3.3", "-8.0 – -2.0", "yes"] in table
    # the environment folded (summary "x", then os=x); one speed figure, RTFx (CF29)
    assert ["p1", "1", "cache", "xos=x", "-", "4", "3 / 4", "0", "612.0", "1180.5", "3",
            "8.5", "0"] in table
    assert ["p2", "1", "cache", "xos=x", "-", "4", "3 / 4", "0", "-", "-", "0", "-",
            "1"] in table
    assert ["p2", "judge-a, judge-b", "3", "1", "0.0123", "0.600 (n 10)", "-", "-"] in table


def test_canary_badges_and_errors(mini_html: str) -> None:
    assert "canary missing in cases.jsonl" in mini_html
    assert "canary leaked by p1: c1" in mini_html
    assert ["p1", "c4", "1", "error: capture &lt;timeout&gt;"] in rows(mini_html)


def test_failing_item_shows_rules_and_closest_diff(mini_html: str) -> None:
    # "Hello world!" against "Hello world" (closer than the other expected output), in
    # words as the suite counts them
    assert '<span class="diff">Hello <del>world</del><ins>world!</ins></span>' in mini_html
    assert ('<span class="rule">WER</span><span class="s s0">0</span>WER 0.500 &gt; 0.2 '
            "&lt;b&gt;bold&lt;/b&gt;") in mini_html
    # two repetitions in the suite: the repetition column is shown
    assert "<th class=\"num\">Rep.</th>" in mini_html


def test_without_matplotlib_tables_and_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plots, "available", lambda: False)
    page = render_html(mini_report(), mini_records(), MINI_EXPECTED)
    assert "<svg" not in page
    assert "matplotlib is not installed" in page
    assert ["WER", "0.250", "0.200"] in rows(page)
    check_markup(page)


# -- the bundled sample run -------------------------------------------------------------

def expected_figures(report: dict) -> int:
    """Per suite: scores, grouped bars when the method has them, forest when compared."""
    return sum(1 + (metric_groups(s) is not None) + bool(s["comparisons"])
               for s in report["suites"])


def test_sample_page_is_self_contained_and_well_formed() -> None:
    sample = sample_run()
    page = render_html(sample.report, sample.records, sample.expected)
    check_markup(page)
    assert page.count("<svg") == expected_figures(sample.report)
    assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", page)
    assert not re.search(r'\b(?:src|href)="(?!#)', page)
    assert "<link" not in page and "@import" not in page and "<script" not in page
    assert re.findall(r"url\((?!#)", page) == []
    assert 'lang="ja-JP"' in page


def test_sample_page_content() -> None:
    sample = sample_run()
    page = render_html(sample.report, sample.records, sample.expected)
    for suite in sample.report["suites"]:
        assert f"<h2>{suite['title']}</h2>" in page
        for entry in suite["products"]:
            if entry.get("reason"):
                assert entry["reason"].replace("'", "&#x27;") in page
    rubric = next(s for s in sample.report["suites"] if s["method"] == "rubric")
    section = page[page.index(f'id="suite-{rubric["id"]}"'):]
    section = section[section.index("<h3>Scores by genre</h3>"):]
    for genre, row in rubric["products"][0]["tables"]["by_genre"].items():
        assert [genre, fmt(row["score"]), str(row["items"])] == \
            next(r for r in rows(section) if r and r[0] == genre)[:3]
    failed = [r for r in sample.records if r["status"] == "failed"]
    assert page.count('<span class="diff">') == len(failed)


def test_sample_page_is_byte_identical() -> None:
    first, again = rendered_twice(render_html)
    assert first == again


# -- figures ----------------------------------------------------------------------------

COMPARISONS = [
    {"a": "x", "b": "y", "mean_difference": 5.0, "interval": {"low": 2.0, "high": 8.0},
     "resolved": True},
    {"a": "x", "b": "z", "mean_difference": -3.0, "interval": {"low": -9.0, "high": 3.0},
     "resolved": False},
]


def test_forest_plot_marks_resolved_comparisons() -> None:
    svg = plots.forest_svg(COMPARISONS, "t")
    assert svg.startswith("<svg") and "<?xml" not in svg and "metadata" not in svg
    for text in ("y − x", "z − x", "+5.0", "-3.0"):
        assert f">{text}<" in svg
    # resolved: filled in the accent colour; not resolved: white fill, grey edge
    assert re.search(r'style="fill: #0072b2; stroke: #0072b2', svg)
    assert re.search(r'style="fill: #ffffff; stroke: #6b7280', svg)
    assert plots.forest_svg(COMPARISONS, "t") == svg
    assert all(i.startswith("t-") for i in re.findall(r'id="([^"]+)"', svg))


def test_svg_keeps_text_as_text_and_ignores_dollar_signs() -> None:
    rows_ = [{"product": "日本語 $x$", "score": 50.0, "score_ci": {"low": 40.0, "high": 60.0},
              "rank": 1}]
    svg = plots.scores_svg(rows_, {"日本語 $x$": "#000000"}, "s")
    assert ">日本語 $x$<" in svg


def test_a_provisional_score_is_labelled_in_the_plot() -> None:
    rows_ = [{"product": "p1", "score": 50.0, "score_ci": None, "rank": None,
              "provisional": {"unjudged": 2, "items": 4}},
             {"product": "p2", "score": 60.0, "score_ci": None, "rank": 1, "provisional": None}]
    svg = plots.scores_svg(rows_, {"p1": "#000000", "p2": "#111111"}, "s")
    assert ">p1 (provisional)<" in svg and ">p2<" in svg
