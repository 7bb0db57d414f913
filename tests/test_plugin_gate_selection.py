"""The gate over a narrowed or empty selection and over a baseline of another suite
version: nothing passes for lack of items."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

import pytest

CASES = [{"id": f"k{i}", "reference": f"the cat sat on mat number {i}"} for i in range(1, 5)]


@pytest.fixture
def gated(pytester: pytest.Pytester, write_suite, write_product) -> pytest.Pytester:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite(cases=CASES, params="threshold = 0.15")
    write_product(outputs=[{"case_id": c["id"], "text": c["reference"]} for c in CASES])
    pytester.runpytest("--product=p1").assert_outcomes(passed=4)
    shutil.copytree(pytester.path / "reports", pytester.path / "base")
    return pytester


def test_a_gated_run_that_selects_nothing_fails_with_a_verdict(gated: pytest.Pytester) -> None:
    result = gated.runpytest("--product=p1", "--dictbench-min-score=80", "-k", "nomatch",
                             "--junitxml=j.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["dictbench gate FAILED: p1: no item of this product ran "
                                 "(the selection is empty)*"])
    cases = list(ET.parse(gated.path / "j.xml").getroot().iter("testcase"))
    assert [c.get("name") for c in cases] == ["dictbench-gate[p1]"]
    assert cases[0].find("failure") is not None


def test_an_ungated_empty_run_keeps_pytests_exit_status(gated: pytest.Pytester) -> None:
    assert gated.runpytest("--product=p1", "-k", "nomatch").ret == \
        pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_selection_narrower_than_the_baseline_fails(gated: pytest.Pytester) -> None:
    result = gated.runpytest("--product=p1", "--dictbench-baseline=base", "-k", "k1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "dictbench gate FAILED: mini/p1: 3 of the baseline's 4 cases are not in this run "
        "(k2, k3, k4)*--dictbench-allow-missing*"])
    allowed = gated.runpytest("--product=p1", "--dictbench-baseline=base", "-k", "k1",
                              "--dictbench-allow-missing")
    assert allowed.ret == pytest.ExitCode.OK


def test_a_named_product_that_never_ran_fails(gated: pytest.Pytester, write_product) -> None:
    write_product("p2", outputs=[{"case_id": c["id"], "text": c["reference"]} for c in CASES])
    result = gated.runpytest("--product=p1", "--product=p2", "--dictbench-min-score=80",
                             "-k", "p1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["dictbench gate FAILED: mini/p2: no item of this product "
                                 "ran*"])
    report = json.loads((gated.path / "reports/dictbench.json").read_text())
    verdicts = {v["product"]: v["passed"] for v in report["gate"]["verdicts"]}
    assert verdicts == {"p1": True, "p2": False}


def test_a_baseline_of_another_suite_version_is_refused(gated: pytest.Pytester) -> None:
    manifest = gated.path / "cases/mini/suite.toml"
    manifest.write_text(manifest.read_text().replace('version = "1.0"', 'version = "1.1"'))
    result = gated.runpytest("--product=p1", "--dictbench-baseline=base")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["dictbench gate FAILED: mini/p1: the baseline is from mini "
                                 "1.0, this run from mini 1.1*"])
    report = json.loads((gated.path / "reports/dictbench.json").read_text())
    assert report["baseline"]["suite_versions"] == {"mini": {"baseline": "1.0", "now": "1.1"}}


def test_unsupported_outputs_are_named_unsupported(gated: pytest.Pytester, write_product
                                                   ) -> None:
    write_product(outputs=[{"case_id": c["id"], "status": "unsupported"} for c in CASES])
    result = gated.runpytest("--product=p1", "--dictbench-min-score=80")
    result.stdout.fnmatch_lines(["dictbench gate FAILED: mini/p1: 4 of 4 items have no "
                                 "output (4 unsupported)*"])
    for name in ("dictbench.md", "dictbench.html"):
        assert "4 (4 unsupported)" in (gated.path / "reports" / name).read_text(), name


def test_an_unresolved_drop_above_max_drop_is_said_to_be_let_through() -> None:
    from pytest_dictbench.report.terminal import baseline_line

    comparison = {"suite": "mini", "product": "p1", "mean_difference": -3.97,
                  "interval": {"low": -11.9, "high": 0.0}, "resolved": False,
                  "only_a_failed": 0, "only_b_failed": 1, "mcnemar_p": 1.0, "n": 24,
                  "cases_a": 24, "cases_b": 24}
    line = baseline_line(comparison, 2.0)
    assert line.endswith("; the drop of 3.97 points is above the allowed 2 but not "
                         "statistically resolved (the interval reaches +0.00), so the gate "
                         "let it through: too few cases changed for the bootstrap to tell")
    assert "let it through" not in baseline_line(comparison, 5.0)
    assert "let it through" not in baseline_line(comparison)
