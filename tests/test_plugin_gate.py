"""The vendor-CI gate: baseline comparison and minimum score, in real pytest runs."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

import pytest

WORDS = ["river", "stone", "maple", "cloud", "amber", "delta", "forest", "harbor", "lantern",
         "meadow", "orbit", "pepper", "quartz", "saddle", "timber", "velvet"]
CASES = [{"id": f"k{i:02d}", "genre": "notes",
          "reference": " ".join(WORDS[(i + j) % len(WORDS)] for j in range(10))}
         for i in range(30)]


@pytest.fixture
def gated(pytester: pytest.Pytester, write_suite, write_product) -> pytest.Pytester:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite(cases=CASES, params="threshold = 0.15")
    write_product(outputs=[{"case_id": c["id"], "text": c["reference"]} for c in CASES])
    result = pytester.runpytest("--product=p1")
    result.assert_outcomes(passed=30)
    shutil.copytree(pytester.path / "reports", pytester.path / "baseline")
    return pytester


def degrade(write_product, wrong_words: int, items: int) -> None:
    outputs = []
    for i, case in enumerate(CASES):
        words = case["reference"].split()
        if i < items:
            words[:wrong_words] = ["noise"] * wrong_words
        outputs.append({"case_id": case["id"], "text": " ".join(words)})
    write_product(outputs=outputs)


def test_planted_regression_fails_the_run(gated: pytest.Pytester, write_product) -> None:
    degrade(write_product, wrong_words=3, items=20)  # 20 items lose 30 points each
    result = gated.runpytest("--product=p1", "--dictbench-baseline=baseline",
                             "--dictbench-item-failures=report", "--dictbench-max-drop=5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # mean change: 20 x -30 / 30 = -20 points; McNemar: 20 newly failed, 0 fixed
    result.stdout.fnmatch_lines([
        "baseline mini/p1: -20.00 points [[]*] (resolved: the interval excludes 0); cases "
        "failed only in the baseline: 0, only now: 20 (k00, k01, k02, k03, k04, +15 more in "
        "dictbench.json); McNemar p=<0.001; on 30 shared cases (scored: "
        "baseline 30, now 30)",
        "dictbench gate FAILED: mini/p1: score dropped 20.00 points against the baseline on "
        "30 shared cases*McNemar p=<0.001), more than the allowed 5",
    ])


def test_small_or_unresolved_change_passes(gated: pytest.Pytester, write_product) -> None:
    degrade(write_product, wrong_words=1, items=2)  # 2 items lose 10 points: -0.67 mean
    result = gated.runpytest("--product=p1", "--dictbench-baseline=baseline",
                             "--dictbench-max-drop=1")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["baseline mini/p1: -0.67 points*on 30 shared cases*"])
    result.stdout.no_fnmatch_line("*gate FAILED*")


def test_min_score(gated: pytest.Pytester, write_product) -> None:
    degrade(write_product, wrong_words=1, items=30)  # every item scores 90
    ok = gated.runpytest("--product=p1", "--dictbench-min-score=85")
    assert ok.ret == pytest.ExitCode.OK
    low = gated.runpytest("--product=p1", "--dictbench-min-score=95")
    assert low.ret == pytest.ExitCode.TESTS_FAILED
    low.stdout.fnmatch_lines(
        ["dictbench gate FAILED: mini/p1: suite score 90.00 is below the minimum 95"])


def test_missing_baseline_is_a_usage_error(gated: pytest.Pytester) -> None:
    result = gated.runpytest("--product=p1", "--dictbench-baseline=nowhere")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*nowhere*a baseline needs dictbench.json and items.jsonl*"])


def test_product_missing_from_the_baseline_fails(gated: pytest.Pytester, write_product
                                                 ) -> None:
    write_product("p2", outputs=[{"case_id": c["id"], "text": c["reference"]} for c in CASES])
    result = gated.runpytest("--product=p1", "--product=p2", "--dictbench-baseline=baseline")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["dictbench gate FAILED: mini/p2: not in the baseline run*"])
    markdown = (gated.path / "reports/dictbench.md").read_text()
    assert "CI gate: FAILED" in markdown and "mini/p2: not in the baseline run" in markdown


def partial(write_product, items: int) -> None:
    """Outputs for the first ``items`` cases only (the others are not_tested)."""
    write_product(outputs=[{"case_id": c["id"], "text": c["reference"]} for c in CASES[:items]])


# --dictbench-max-drop alone is a usage error (CF8: tests/test_first_hour_gate.py)
@pytest.mark.parametrize("option", ["--dictbench-baseline=baseline", "--dictbench-min-score=10"])
def test_missing_items_fail_a_gated_run(gated: pytest.Pytester, write_product,
                                        option: str) -> None:
    partial(write_product, 5)
    result = gated.runpytest("--product=p1", option, "--dictbench-item-failures=report")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "dictbench gate FAILED: mini/p1: 25 of 30 items have no output (25 not_tested); a gated "
        "run needs every item (--dictbench-allow-missing gates on those that ran)"])
    allowed = gated.runpytest("--product=p1", option, "--dictbench-allow-missing")
    assert allowed.ret == pytest.ExitCode.OK
    if option.startswith("--dictbench-baseline"):  # compared on what both runs scored
        allowed.stdout.fnmatch_lines(["baseline mini/p1: +0.00 points*; on 5 shared cases "
                                      "(scored: baseline 30, now 5)"])


def test_all_missing_items_fail_even_when_allowed(gated: pytest.Pytester, write_product
                                                  ) -> None:
    # a misnamed outputs file: every item is not_tested, nothing can be compared
    (gated.path / "products/p1/mini.jsonl").rename(gated.path / "products/p1/mini-v2.jsonl")
    result = gated.runpytest("--product=p1", "--dictbench-baseline=baseline",
                             "--dictbench-allow-missing")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["dictbench gate FAILED: mini/p1: no case was scored in both "
                                 "this run and the baseline, so it could not be compared"])
    result = gated.runpytest("--product=p1", "--dictbench-min-score=80")
    result.stdout.fnmatch_lines([
        "dictbench gate FAILED: mini/p1: 30 of 30 items have no output*",
        "dictbench gate FAILED: mini/p1: no suite score (no item was scored), so the "
        "minimum 80 is not met"])
    result.stdout.no_fnmatch_line("*no score is below*")


def test_pairwise_comparisons_say_how_many_cases_they_share(gated: pytest.Pytester,
                                                            write_product) -> None:
    write_product("p2", outputs=[{"case_id": c["id"], "text": c["reference"]}
                                 for c in CASES[:4]])
    result = gated.runpytest("--product=p1", "--product=p2")
    result.stdout.fnmatch_lines(["mini: p2 - p1: +0.00*; on 4 shared cases (scored: p1 30, "
                                 "p2 4)"])
    markdown = (gated.path / "reports/dictbench.md").read_text()
    assert "| shared cases |" in markdown.replace("  ", " ") or "shared cases" in markdown
    assert "4 of 30 / 4" in markdown


def test_the_gate_is_a_result_of_its_own(gated: pytest.Pytester, write_product) -> None:
    degrade(write_product, wrong_words=1, items=30)  # every item scores 90
    result = gated.runpytest("--product=p1", "--dictbench-min-score=95",
                             "--dictbench-item-failures=report", "--junitxml=junit.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=30, failed=1)
    result.stdout.fnmatch_lines(["suite score 90.00 is below the minimum 95",
                                 "FAILED cases/mini/suite.toml::dictbench-gate[[]p1[]]*",
                                 "*= 1 failed, 30 passed*in *"])  # warnings may be counted
    suite = ET.parse(gated.path / "junit.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1" and suite.get("tests") == "31"
    gate = [c for c in suite.iter("testcase") if c.get("name") == "dictbench-gate[p1]"]
    assert len(gate) == 1
    failure = gate[0].find("failure")
    assert failure is not None and "below the minimum 95" in (failure.text or "") + str(
        failure.get("message"))
    passing = gated.runpytest("--product=p1", "--dictbench-min-score=85",
                              "--dictbench-item-failures=report", "--junitxml=junit.xml")
    passing.assert_outcomes(passed=31)
    markdown = (gated.path / "reports/dictbench.md").read_text()
    assert "CI gate: passed (min score 85, missing items fail)" in markdown
    assert "None" not in markdown


def test_ungated_run_has_no_gate_result(gated: pytest.Pytester) -> None:
    result = gated.runpytest("--product=p1")
    result.assert_outcomes(passed=30)
    assert "gate" not in json.loads((gated.path / "reports/dictbench.json").read_text())


def test_product_given_as_a_file_path(gated: pytest.Pytester) -> None:
    result = gated.runpytest("--product=products/p1.toml", "--dictbench-min-score=50")
    result.assert_outcomes(passed=31)
    missing = gated.runpytest("--product=products/acme.toml")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*products/acme.toml: product 'acme' not found (known: p1)"])
    missing.stderr.no_fnmatch_line("*acme.toml.toml*")


def test_baseline_record_of_the_wrong_type_is_named(gated: pytest.Pytester) -> None:
    items = gated.path / "baseline/items.jsonl"
    lines = items.read_text().splitlines()
    record = json.loads(lines[2])
    record["score"] = "high"
    lines[2] = json.dumps(record)
    items.write_text("\n".join(lines) + "\n")
    result = gated.runpytest("--product=p1", "--dictbench-baseline=baseline",
                             "--junitxml=junit.xml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*baseline/items.jsonl:3: not an item record of a dictbench "
                                 "run: score: 'high' is not of type 'number', 'null'"])
    result.stderr.no_fnmatch_line("*Traceback*")


def test_a_failure_at_session_end_keeps_junit_and_items(gated: pytest.Pytester) -> None:
    gated.makeconftest("""
        def pytest_dictbench_update_report(config, report):
            report["suites"].clear()
            raise RuntimeError("plugin broke")
    """)
    (gated.path / "reports/dictbench.md").write_text("old")
    result = gated.runpytest("--product=p1", "--junitxml=junit.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=30, failed=1)
    result.stdout.fnmatch_lines(["*dictbench ERROR: pytest_dictbench_update_report of plugin "
                                 "*conftest.py failed (RuntimeError: plugin broke); the "
                                 "reports were written without its changes"])
    result.stdout.no_fnmatch_line("*Traceback*")
    assert len((gated.path / "reports/items.jsonl").read_text().splitlines()) == 30
    assert "mini" in (gated.path / "reports/dictbench.md").read_text()  # its change undone
    suite = ET.parse(gated.path / "junit.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"


@pytest.mark.parametrize("body", ["raise RuntimeError('boom')", "return ['not', 'a report']"])
def test_a_broken_generate_report_hook_keeps_the_built_in_report(
        gated: pytest.Pytester, body: str) -> None:
    gated.makeconftest(f"""
        def pytest_dictbench_generate_report(config, records):
            {body}
    """)
    result = gated.runpytest("--product=p1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*dictbench ERROR: pytest_dictbench_generate_report of "
                                 "plugin *conftest.py * the built-in report was used"])
    result.stdout.no_fnmatch_line("*Traceback*")
    for name in ("dictbench.json", "dictbench.md", "dictbench.html"):
        assert (gated.path / "reports" / name).is_file(), name
