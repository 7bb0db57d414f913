"""The morphological analyser behind Japanese figures is recorded in run-info.json, and
a baseline made with another dictionary or split mode is flagged by the gate (J49)."""

from __future__ import annotations

import json
import shutil

import pytest

from pytest_dictbench.text.japanese import analyser_info

CASES = [{"id": f"j{i}", "reference": text} for i, text in
         enumerate(["今日は晴れです。", "会議は三時からです。", "駅まで歩きました。"])]


@pytest.fixture
def japanese(pytester: pytest.Pytester, write_suite, write_product) -> pytest.Pytester:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    root = write_suite(cases=CASES, params="threshold = 0.5")
    manifest = root / "suite.toml"
    manifest.write_text(manifest.read_text("utf-8").replace('locale = "en-US"',
                                                            'locale = "ja-JP"'), "utf-8")
    write_product(outputs=[{"case_id": c["id"], "text": c["reference"]} for c in CASES])
    return pytester


def test_run_info_names_analyser_dictionary_and_split_mode(japanese: pytest.Pytester) -> None:
    japanese.runpytest("--product=p1").assert_outcomes(passed=3)
    info = json.loads((japanese.path / "reports/run-info.json").read_text("utf-8"))
    assert info["analyser"] == analyser_info()
    assert {"analyser", "analyser_version", "dictionary", "dictionary_version",
            "split_mode"} <= set(info["analyser"])


def test_a_baseline_from_another_dictionary_is_flagged(japanese: pytest.Pytester) -> None:
    japanese.runpytest("--product=p1").assert_outcomes(passed=3)
    shutil.copytree(japanese.path / "reports", japanese.path / "baseline")
    same = japanese.runpytest("--product=p1", "--dictbench-baseline=baseline")
    assert same.ret == 0
    run_info = japanese.path / "baseline/run-info.json"
    info = json.loads(run_info.read_text("utf-8"))
    info["analyser"]["dictionary_version"] = "19990101"
    run_info.write_text(json.dumps(info), "utf-8")
    other = japanese.runpytest("--product=p1", "--dictbench-baseline=baseline")
    assert other.ret == pytest.ExitCode.TESTS_FAILED
    other.stdout.fnmatch_lines(["*dictbench gate FAILED: mini/p1: the baseline was "
                                "analysed with sudachidict_core 19990101*this run with "
                                "sudachidict_core *"])
    report = json.loads((japanese.path / "reports/dictbench.json").read_text("utf-8"))
    assert report["baseline"]["analyser"]["baseline"]["dictionary_version"] == "19990101"
    assert report["baseline"]["analyser"]["same"] is False
