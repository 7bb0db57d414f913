"""The vendor-CI gate: baseline comparison and minimum score, in real pytest runs."""

from __future__ import annotations

import shutil

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
        "baseline mini/p1: -20.00 points [[]*] (resolved); cases failed only in the "
        "baseline: 0, only now: 20; McNemar p=<0.001, n=30",
        "dictbench gate FAILED: mini/p1: score dropped 20.00 points against the baseline*"
        "more than the allowed 5",
    ])


def test_small_or_unresolved_change_passes(gated: pytest.Pytester, write_product) -> None:
    degrade(write_product, wrong_words=1, items=2)  # 2 items lose 10 points: -0.67 mean
    result = gated.runpytest("--product=p1", "--dictbench-baseline=baseline",
                             "--dictbench-max-drop=1")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["baseline mini/p1: -0.67 points*n=30"])
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
