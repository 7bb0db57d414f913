"""Path options written with a space (``--dictbench-report /abs/dir``) or with ``=``."""

from __future__ import annotations

import shutil

import pytest


@pytest.mark.parametrize("spelling", ["space", "equals"])
def test_report_and_baseline_folders_outside_the_project(
        mini: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, spelling: str
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere")
    reports, baseline = outside / "reports", outside / "baseline"
    mini.runpytest("--product=p1")
    shutil.copytree(mini.path / "reports", baseline)

    def option(name: str, value: object) -> list[str]:
        return [name, str(value)] if spelling == "space" else [f"{name}={value}"]

    result = mini.runpytest("--product", "p1", *option("--dictbench-report", reports),
                            *option("--dictbench-baseline", baseline),
                            "--dictbench-allow-missing")
    result.stdout.fnmatch_lines([f"rootdir: {mini.path}", "configfile: tox.ini"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # c3 fails its item; the gate passes
    result.assert_outcomes(passed=3, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["baseline mini/p1: +0.00 points*on 3 shared cases*"])
    assert (reports / "dictbench.json").is_file()


def test_explicit_rootdir_still_finds_the_ini_file(mini: pytest.Pytester,
                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("out")
    result = mini.runpytest("--rootdir", str(mini.path), "--product=p1",
                            "--dictbench-report", str(outside))
    result.stdout.fnmatch_lines([f"rootdir: {mini.path}", "configfile: tox.ini"])
    assert (outside / "items.jsonl").is_file()
