"""The report helper's figures: a child process that draws the HTML report's figures
with the same SVG as this process; when it fails, dies or is not there, the figure is
drawn here (its intervals: test_report_helper_intervals.py)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from report_support import sample_run

from pytest_dictbench.child import NICENESS
from pytest_dictbench.plugin import session as session_module
from pytest_dictbench.report import helper as report_helper
from pytest_dictbench.report import plots
from pytest_dictbench.report.helper import ReportHelper
from pytest_dictbench.report.html import render_html
from pytest_dictbench.report.html_figures import FigureRequests

pytest.importorskip("matplotlib")


def _drawn(helper: ReportHelper, name: str, *args: object) -> str:
    """One figure through the page's drawer with ``helper`` alone."""
    figures = FigureRequests([helper])
    return figures.fill(getattr(figures, name)(*args))


def test_the_helper_draws_the_sample_page_byte_for_byte(helper: ReportHelper) -> None:
    sample = sample_run()  # every bundled method: scores, grouped bars and forest plots
    here = render_html(sample.report, sample.records, sample.expected)
    figures = FigureRequests([helper])
    page = render_html(sample.report, sample.records, sample.expected, drawer=figures)
    assert figures.fill(page) == here
    assert helper.drawn == here.count("<svg") > 0  # every figure came from the child


def test_japanese_names_and_dollar_signs_cross_the_pipe(helper: ReportHelper) -> None:
    rows = [{"product": "日本語 $x$", "score": 50.0, "score_ci": {"low": 40.0, "high": 60.0},
             "rank": 1}]
    colors = {"日本語 $x$": "#000000"}
    assert _drawn(helper, "scores_svg", rows, colors, "s") == plots.scores_svg(rows, colors, "s")
    assert helper.drawn == 1


def test_a_dead_helper_means_figures_drawn_here(helper: ReportHelper) -> None:
    assert helper._child is not None
    process = helper._child.process
    process.kill()
    process.wait()
    comparisons = [{"a": "x", "b": "y", "mean_difference": 5.0,
                    "interval": {"low": 2.0, "high": 8.0}, "resolved": True}]
    assert _drawn(helper, "forest_svg", comparisons, "f") == plots.forest_svg(comparisons, "f")
    assert helper._child is None and helper.drawn == 0  # and not asked again


def test_an_error_in_the_helper_is_raised_here_as_itself(helper: ReportHelper) -> None:
    with pytest.raises(KeyError, match="mean_difference"):
        _drawn(helper, "forest_svg", [{"a": "x", "b": "y"}], "f")
    assert helper._child is None


def test_the_child_answers_an_unknown_figure_with_an_error_and_ends_with_its_stdin(
        ) -> None:
    child = subprocess.run([sys.executable, "-m", report_helper.__name__],
                           input=pickle.dumps(("__import__", ("os",))),
                           capture_output=True, timeout=120, check=False)
    assert child.returncode == 0
    assert pickle.loads(child.stdout) == ("error", "ValueError: unknown request '__import__'")


def test_close_ends_the_child(helper: ReportHelper) -> None:
    assert helper._child is not None
    process = helper._child.process
    helper.close()
    assert process.returncode == 0
    helper.close()  # twice is harmless


def test_without_matplotlib_the_helper_still_starts_for_the_intervals(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plots, "available", lambda: False)
    started = ReportHelper.start()
    assert started is not None
    started.prefetch([1.0, 2.0, 4.0], 50, 3)
    assert started.interval([1.0, 2.0, 4.0], 50, 3) is not None
    started.close()


def test_a_large_run_draws_its_figures_in_the_helper_with_the_same_page(
        mini: pytest.Pytester, write_product: Callable[..., Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    write_product("p2")  # two products: a forest plot as well
    started: list[ReportHelper] = []
    start = ReportHelper.start

    def spy() -> ReportHelper | None:
        made = start()
        assert made is not None
        started.append(made)
        return made

    monkeypatch.setattr(ReportHelper, "start", spy)
    monkeypatch.setattr(session_module, "HELPER_ITEMS", 10**9)  # no helper
    mini.runpytest("--product=p1", "--product=p2", "--dictbench-item-failures=report"
                   ).assert_outcomes(passed=7, skipped=1)
    page = (mini.path / "reports" / "dictbench.html").read_text(encoding="utf-8")
    assert started == [] and page.count("<svg") == 3
    monkeypatch.setattr(session_module, "HELPER_ITEMS", 8)  # this run is "large"
    mini.runpytest("--product=p1", "--product=p2", "--dictbench-item-failures=report"
                   ).assert_outcomes(passed=7, skipped=1)
    assert (mini.path / "reports" / "dictbench.html").read_text(encoding="utf-8") == page
    intervals, figures = started  # the second helper only draws, beside the first
    for helper in started:
        assert helper._intervals == {} and helper._figures == {} and not helper._pending
        assert helper._child is None  # closed at the end of the session
    assert intervals.drawn + figures.drawn == 3 and figures.drawn >= 1


def test_two_helpers_draw_the_sample_page_side_by_side_byte_for_byte(
        helper: ReportHelper) -> None:
    second = ReportHelper.start()
    assert second is not None
    try:
        sample = sample_run()
        here = render_html(sample.report, sample.records, sample.expected)
        figures = FigureRequests([helper, second])
        page = render_html(sample.report, sample.records, sample.expected, drawer=figures)
        assert "<svg" not in page  # placeholders only, until filled
        assert figures.fill(page) == here
        assert helper.drawn > 0 and second.drawn > 0
        assert helper.drawn + second.drawn == here.count("<svg")
    finally:
        second.close()


def test_a_helper_that_dies_midway_leaves_its_figures_to_be_drawn_here(
        helper: ReportHelper) -> None:
    second = ReportHelper.start()
    assert second is not None
    sample = sample_run()
    here = render_html(sample.report, sample.records, sample.expected)
    try:
        figures = FigureRequests([helper, second])
        page = render_html(sample.report, sample.records, sample.expected, drawer=figures)
        assert second._child is not None
        second._child.process.kill()  # its figures asked; whatever it had not answered
        assert figures.fill(page) == here  # is drawn here, the page is the same
        assert not second.alive
    finally:
        second.close()


def test_a_figure_error_raises_here_as_itself_when_the_page_is_filled(
        helper: ReportHelper) -> None:
    figures = FigureRequests([helper])
    page = "<p>" + figures.forest_svg([{"a": "x", "b": "y"}], "f") + "</p>"
    with pytest.raises(KeyError, match="mean_difference"):
        figures.fill(page)


def test_a_page_that_lost_a_placeholder_is_an_error_not_a_page_without_the_figure(
        ) -> None:
    figures = FigureRequests([])  # no helper: drawn here
    rows = [{"product": "p", "score": 50.0, "score_ci": {"low": 40.0, "high": 60.0},
             "rank": 1}]
    placeholder = figures.scores_svg(rows, {"p": "#000000"}, "s")
    assert figures.fill(f"<div>{placeholder}</div>") == \
        f"<div>{plots.scores_svg(rows, {'p': '#000000'}, 's')}</div>"
    figures.scores_svg(rows, {"p": "#000000"}, "s")
    with pytest.raises(RuntimeError, match="lost the place"):
        figures.fill("<div></div>")


def test_the_child_yields_the_cpu_to_the_tests(helper: ReportHelper) -> None:
    helper.prefetch([1.0, 2.0], 10, 1)
    assert helper.interval([1.0, 2.0], 10, 1) is not None  # the child is up and answering
    assert helper._child is not None
    process = helper._child.process
    expected = min(os.getpriority(os.PRIO_PROCESS, 0) + NICENESS, 19)
    assert os.getpriority(os.PRIO_PROCESS, process.pid) == expected
