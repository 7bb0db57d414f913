"""Findings of clarity-and-first-hour.md about the gate, in real pytest runs: the gate names
the cases that regressed (CF17), its gate options need a baseline (CF8), a passing gate
says so (CF18)."""

from __future__ import annotations

import json
import re

import pytest
import test_plugin_gate
from test_plugin_gate import degrade

gated = test_plugin_gate.gated  # the 30-case suite with its baseline (a fixture)
GATE = ("--product=p1", "--dictbench-baseline=baseline", "--dictbench-item-failures=report")


def test_cf17_the_gate_names_the_regressed_and_the_improved_cases(
        gated: pytest.Pytester, write_product) -> None:
    degrade(write_product, wrong_words=3, items=7)  # k00..k06 now fail
    result = gated.runpytest(*GATE, "--dictbench-max-drop=1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "baseline mini/p1: -7.00 points [[]*] (resolved: the interval excludes 0); cases "
        "failed only in the baseline: 0, only now: 7 (k00, k01, k02, k03, k04, +2 more in "
        "dictbench.json); McNemar p=0.016*"])
    report = json.loads((gated.path / "reports" / "dictbench.json").read_text())
    (comparison,) = report["baseline"]["comparisons"]
    assert comparison["cases_only_b_failed"] == [f"k{i:02d}" for i in range(7)]
    assert comparison["cases_only_a_failed"] == []
    markdown = (gated.path / "reports" / "dictbench.md").read_text()
    assert "failed only now: k00, k01, k02, k03, k04, k05, k06" in markdown
    html = (gated.path / "reports" / "dictbench.html").read_text()
    assert "failed only now: k00, k01, k02, k03, k04, k05, k06" in html


def test_cf17_cases_that_pass_again_are_named_too(gated: pytest.Pytester,
                                                  write_product) -> None:
    degrade(write_product, wrong_words=3, items=2)
    gated.runpytest("--product=p1", "--dictbench-item-failures=report",
                    "--dictbench-report=worse")
    degrade(write_product, wrong_words=0, items=0)
    result = gated.runpytest("--product=p1", "--dictbench-baseline=worse",
                             "--dictbench-item-failures=report")
    result.stdout.fnmatch_lines(["*cases failed only in the baseline: 2 (k00, k01), only "
                                 "now: 0;*"])


@pytest.mark.parametrize("option", ["--dictbench-max-drop=2", "--dictbench-max-drop-abs=3"])
def test_cf8_a_drop_limit_without_a_baseline_is_a_usage_error(
        gated: pytest.Pytester, option: str) -> None:
    result = gated.runpytest("--product=p1", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    name = option.split("=")[0]
    result.stderr.fnmatch_lines([f"*{name} needs --dictbench-baseline*"])


def test_cf18_a_passing_gate_says_so_in_one_line(gated: pytest.Pytester) -> None:
    result = gated.runpytest(*GATE, "--dictbench-min-score=80")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["dictbench gate passed: mini/p1 (max drop 0 points, min "
                                 "score 80, missing items fail)"])


def test_cf16_a_named_product_without_items_is_listed_with_the_reason(
        gated: pytest.Pytester, write_product) -> None:
    write_product("p2", outputs=[{"case_id": c["id"], "text": c["reference"]}
                                 for c in test_plugin_gate.CASES])
    result = gated.runpytest("--product=p1", "--product=p2", "-k", "p1",
                             "--dictbench-item-failures=report")
    assert result.ret == pytest.ExitCode.OK
    line = "dictbench: p2: named with --product, but no item of it was selected"
    result.stdout.fnmatch_lines([f"{line}*"])
    report = json.loads((gated.path / "reports" / "dictbench.json").read_text())
    assert report["products_without_items"] == [
        {"product": "p2", "reason": "no item selected"}]
    assert "p2: named with --product" in (gated.path / "reports" / "dictbench.md").read_text()
    assert "p2: named with --product" in (gated.path / "reports" / "dictbench.html").read_text()


@pytest.mark.parametrize("verbosity", [[], ["-v"], ["-n", "2"]], ids=["quiet", "verbose", "xdist"])
def test_cf18_the_gate_result_keeps_the_progress_within_100_percent(
        gated: pytest.Pytester, verbosity: list[str]) -> None:
    """CF18: the gate verdict is a test result reported after the items; it is counted in
    pytest's progress total, so the column never passes 100 % (it read ``[103%]``)."""
    result = gated.runpytest(*GATE, "--dictbench-max-drop=2", *verbosity)
    result.assert_outcomes(passed=31)
    shown = [int(p) for p in re.findall(r"\[\s*(\d+)%\]", result.stdout.str())]
    assert shown and max(shown) == 100, shown
    if verbosity == ["-v"]:
        result.stdout.fnmatch_lines(["*::dictbench-gate[[]p1[]] PASSED*[[]100%[]]"])
