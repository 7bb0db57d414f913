"""The gate on a drop the bootstrap cannot resolve: the verdict says it was accepted, and
``--dictbench-max-drop-abs`` fails it whatever the interval. Real pytest runs."""

from __future__ import annotations

import json

import pytest
import test_plugin_gate
from test_plugin_gate import degrade

gated = test_plugin_gate.gated  # the 30-case suite with its baseline (a fixture)
#: A gated run against the baseline; items below their threshold are only reported.
GATE = ("--product=p1", "--dictbench-baseline=baseline", "--dictbench-item-failures=report")

#: One item of 30 loses 5 of its 10 words: a drop of 50 / 30 = 1.67 points that the
#: bootstrap cannot resolve (a resample without that item, about e^-1 of them, shows 0).
ONE_ITEM = {"wrong_words": 5, "items": 1}


def test_an_unresolved_drop_above_max_drop_is_named_in_the_verdict(
        gated: pytest.Pytester, write_product) -> None:
    degrade(write_product, **ONE_ITEM)
    result = gated.runpytest(*GATE, "--dictbench-max-drop=1")
    assert result.ret == pytest.ExitCode.OK
    note = ("mini/p1: a drop of 1.67 points, above the allowed 1, was accepted as not "
            "statistically resolved (interval high +0.00); --dictbench-max-drop-abs "
            "fails it regardless")
    result.stdout.fnmatch_lines([f"dictbench gate note: {note}"])
    report = json.loads((gated.path / "reports" / "dictbench.json").read_text())
    (verdict,) = report["gate"]["verdicts"]
    assert verdict["passed"] and verdict["accepted"] == [note.split(": ", 1)[1]]
    assert f"CI gate: passed (max drop 1 points, missing items fail); accepted: {note}" in (
        gated.path / "reports" / "dictbench.md").read_text()


def test_max_drop_abs_fails_an_unresolved_drop(gated: pytest.Pytester,
                                               write_product) -> None:
    degrade(write_product, **ONE_ITEM)
    result = gated.runpytest(*GATE, "--dictbench-max-drop=1", "--dictbench-max-drop-abs=1.5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "dictbench gate FAILED: mini/p1: score dropped 1.67 points against the baseline on 30 "
        "shared cases, more than the absolute limit 1.5 (--dictbench-max-drop-abs, "
        "resolved or not; 95% interval of the change -5.00 to +0.00)"])
    result.stdout.no_fnmatch_line("*accepted as not statistically resolved*")
    report = json.loads((gated.path / "reports" / "dictbench.json").read_text())
    assert report["gate"]["max_drop_abs"] == 1.5
    assert report["gate"]["settings"] == ("max drop 1 points, max drop abs 1.5 points, "
                                          "missing items fail")


def test_a_drop_within_max_drop_abs_passes(gated: pytest.Pytester,
                                           write_product) -> None:
    degrade(write_product, **ONE_ITEM)
    result = gated.runpytest(*GATE, "--dictbench-max-drop-abs=2")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("*gate FAILED*")


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "two"])
def test_max_drop_abs_must_be_a_finite_number_of_points(gated: pytest.Pytester,
                                                        value: str) -> None:
    result = gated.runpytest(*GATE, f"--dictbench-max-drop-abs={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dictbench-max-drop-abs*"])
