"""The report helper's figures: a child process that draws the HTML report's figures
with the same SVG as this process; when it fails, dies or is not there, the figure is
drawn here (its intervals: test_report_helper_intervals.py)."""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from report_support import sample_run

from pytest_dictbench.plugin import session as session_module
from pytest_dictbench.report import helper as report_helper
from pytest_dictbench.report import plots
from pytest_dictbench.report.helper import ReportHelper
from pytest_dictbench.report.html import render_html

pytest.importorskip("matplotlib")


def test_the_helper_draws_the_sample_page_byte_for_byte(helper: ReportHelper) -> None:
    sample = sample_run()  # every bundled method: scores, grouped bars and forest plots
    here = render_html(sample.report, sample.records, sample.expected)
    assert render_html(sample.report, sample.records, sample.expected, drawer=helper) == here
    assert helper.drawn == here.count("<svg") > 0  # every figure came from the child


def test_japanese_names_and_dollar_signs_cross_the_pipe(helper: ReportHelper) -> None:
    rows = [{"product": "日本語 $x$", "score": 50.0, "score_ci": {"low": 40.0, "high": 60.0},
             "rank": 1}]
    colors = {"日本語 $x$": "#000000"}
    assert helper.scores_svg(rows, colors, "s") == plots.scores_svg(rows, colors, "s")


def test_a_dead_helper_means_figures_drawn_here(helper: ReportHelper) -> None:
    process = helper._process
    assert process is not None
    process.kill()
    process.wait()
    comparisons = [{"a": "x", "b": "y", "mean_difference": 5.0,
                    "interval": {"low": 2.0, "high": 8.0}, "resolved": True}]
    assert helper.forest_svg(comparisons, "f") == plots.forest_svg(comparisons, "f")
    assert helper._process is None and helper.drawn == 0  # and not asked again


def test_an_error_in_the_helper_is_raised_here_as_itself(helper: ReportHelper) -> None:
    with pytest.raises(KeyError, match="mean_difference"):
        helper.forest_svg([{"a": "x", "b": "y"}], "f")
    assert helper._process is None


def test_the_child_answers_an_unknown_figure_with_an_error_and_ends_with_its_stdin(
        ) -> None:
    child = subprocess.run([sys.executable, "-m", report_helper.__name__],
                           input=pickle.dumps(("__import__", ("os",))),
                           capture_output=True, timeout=120, check=False)
    assert child.returncode == 0
    assert pickle.loads(child.stdout) == ("error", "ValueError: unknown request '__import__'")


def test_close_ends_the_child(helper: ReportHelper) -> None:
    process = helper._process
    assert process is not None
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
    [helper] = started
    assert helper._intervals == {} and not helper._pending  # each interval asked, taken
    assert helper.drawn == 3
    assert helper._process is None  # closed at the end of the session
