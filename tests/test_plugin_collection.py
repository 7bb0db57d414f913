"""Collection, selection and options, through real pytest runs (pytester)."""

from __future__ import annotations

import json

import pytest
from support import ECHO_ADAPTER


def test_inert_without_product(mini: pytest.Pytester) -> None:
    mini.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = mini.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*dictbench summary*")
    result.stdout.no_fnmatch_line("dictbench: *")
    assert not (mini.path / "reports").exists()


def test_inert_run_collects_no_suite_even_when_named(mini: pytest.Pytester) -> None:
    result = mini.runpytest("cases/mini")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines([
        "collected 0 items",
        "dictbench: cases/mini/suite.toml is a benchmark suite, collected only with "
        "--product=NAME (or checked with --dictbench-verify)"])
    result = mini.runpytest("cases/mini/suite.toml", "-q")
    result.stdout.fnmatch_lines(["dictbench: cases/mini/suite.toml is a benchmark suite*"])


def test_other_suite_toml_files_and_unnamed_suites_stay_silent(mini: pytest.Pytester) -> None:
    other = mini.mkdir("other")
    (other / "suite.toml").write_text('name = "not ours"\n', encoding="utf-8")
    for args in (["other"], [], ["."]):
        result = mini.runpytest(*args)
        result.stdout.no_fnmatch_line("dictbench: *")


def test_node_ids_and_outcomes(mini: pytest.Pytester) -> None:
    result = mini.runpytest("--product=p1", "--collect-only", "-q")
    result.stdout.fnmatch_lines([
        "cases/mini/suite.toml::c1[[]p1[]]",
        "cases/mini/suite.toml::c2[[]p1[]]",
        "cases/mini/suite.toml::c3[[]p1[]]",
        "cases/mini/suite.toml::c4[[]p1[]]",
    ])
    result = mini.runpytest("--product=p1", "-rfs")
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "*c3[[]p1[]]*",
        "score 66.67: WER 0.333 > 0.2",
        "  WER = 0: WER 0.333 > 0.2 (S=1 D=0 I=1 over 6 words)*",
        "*dictbench summary*",
        "mini*p1*4*2*1*0*1*0*",
        "SKIPPED [[]1[]] cases/mini/cases.jsonl:4: not_tested: no output for c4 from p1",
    ])


def test_collect_only_writes_no_reports_and_keeps_the_last_run_s(mini: pytest.Pytester
                                                                 ) -> None:
    mini.runpytest("--product=p1", "--dictbench-item-failures=report").assert_outcomes(
        passed=3, skipped=1)
    reports = mini.path / "reports"
    before = {f.name: f.read_bytes() for f in reports.iterdir()}
    result = mini.runpytest("--product=p1", "--collect-only", "-q")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["4 tests collected*"])
    result.stdout.no_fnmatch_line("*dictbench: wrote*")
    result.stdout.no_fnmatch_line("*not_tested*")
    assert {f.name: f.read_bytes() for f in reports.iterdir()} == before


def test_explicit_suite_path_and_repeated_product(mini: pytest.Pytester, write_product) -> None:
    write_product("p2")
    result = mini.runpytest("cases/mini", "--product=p1", "--product=p2", "--collect-only",
                            "-q")
    result.stdout.fnmatch_lines(["*c1[[]p1[]]", "*c1[[]p2[]]"])
    result.stdout.fnmatch_lines(["8 tests collected*"])


def test_repetitions_in_node_ids(mini: pytest.Pytester) -> None:
    result = mini.runpytest("--product=p1", "--repetitions=2", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*c1[[]p1-r1[]]", "*c1[[]p1-r2[]]", "8 tests collected*"])


def test_keyword_marker_and_strict_markers(mini: pytest.Pytester) -> None:
    result = mini.runpytest("--product=p1", "--strict-markers", "-m", "chat", "-q")
    result.assert_outcomes(passed=1, failed=1)
    result = mini.runpytest("--product=p1", "--strict-markers", "-m", "list", "-q")
    result.assert_outcomes(skipped=1)
    result = mini.runpytest("--product=p1", "-k", "c2", "-q")
    result.assert_outcomes(passed=1)


def test_last_failed_and_exitfirst(mini: pytest.Pytester) -> None:
    mini.runpytest("--product=p1")
    result = mini.runpytest("--product=p1", "--lf", "-q")
    result.assert_outcomes(failed=1)
    result = mini.runpytest("--product=p1", "-x", "-q", "-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=1, skipped=1)  # c4, not run, is reported


def test_failed_first_stepwise_and_keyword_on_item_ids(mini: pytest.Pytester) -> None:
    """``--ff`` and ``--sw`` find stored ids again (pytest 9 stores ``c3[p1]`` as name
    ``c3`` with parameter id ``p1``); ``-k`` matches the product inside the bracket."""
    mini.runpytest("--product=p1")
    result = mini.runpytest("--product=p1", "--ff", "-v")
    result.stdout.fnmatch_lines(["*rerun previous 1 failure first*",
                                 "*suite.toml::c3?p1? FAILED*", "*::c1?p1? PASSED*"])
    result = mini.runpytest("--product=p1", "--sw", "-q")
    result.assert_outcomes(passed=2, failed=1)
    result = mini.runpytest("--product=p1", "--sw", "-v")
    result.stdout.fnmatch_lines(["*stepwise: skipping 2 already passed items*"])
    result.assert_outcomes(failed=1, deselected=2)
    result = mini.runpytest("--product=p1", "-k", "p1 and not c3", "-q")
    result.assert_outcomes(passed=2, skipped=1)


def test_item_failures_report_mode(mini: pytest.Pytester) -> None:
    result = mini.runpytest("--product=p1", "--dictbench-item-failures=report")
    result.assert_outcomes(passed=3, skipped=1)
    records = [json.loads(line) for line in
               (mini.path / "reports" / "items.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["passed", "passed", "failed", "not_tested"]


def test_ini_suites_used_without_paths_and_tests_folder_ignored(mini: pytest.Pytester) -> None:
    mini.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = mini.runpytest("--product=p1", "--collect-only", "-q")
    result.stdout.no_fnmatch_line("*test_plain*")
    result.stdout.fnmatch_lines(["4 tests collected*"])


def test_hooks_register_method_and_adapter(mini: pytest.Pytester, write_product) -> None:
    mini.makeconftest(ECHO_ADAPTER + '''
from pytest_dictbench.model import ItemResult

class Exact:
    name = "exact"
    case_schema = None
    def score(self, case, output, ctx):
        ok = output.text == case.get("reference")
        return ItemResult(passed=ok, score=100.0 if ok else 0.0, message="differs")
    def aggregate(self, records, suite):
        return {"summary": {"exact": sum(r["status"] == "passed" for r in records)}}

def pytest_dictbench_methods():
    return [Exact()]

def pytest_dictbench_update_report(report):
    report["lab"] = "rig-3"
''')
    mini.path.joinpath("cases/mini/suite.toml").write_text(
        mini.path.joinpath("cases/mini/suite.toml").read_text().replace("error_rate", "exact"))
    write_product("echo", toml='name = "echo"\nversion = "1"\nadapter = "echo"\n')
    result = mini.runpytest("--product=echo")
    result.assert_outcomes(passed=4)
    report = json.loads((mini.path / "reports" / "dictbench.json").read_text())
    assert report["lab"] == "rig-3"
    assert report["suites"][0]["products"][0]["tables"] == {"summary": {"exact": 4}}


def test_a_serial_run_of_suites_loads_neither_xdist_s_schedulers_nor_the_rig(
        mini: pytest.Pytester) -> None:
    """The xdist scheduling hooks load on an xdist controller only, the rig collector
    when a rig package is collected: a plain serial run imports neither (a subprocess,
    so that no other test's imports count)."""
    mini.makeconftest("""
import sys

def pytest_unconfigure(config):
    names = ("pytest_dictbench.plugin.scheduler", "pytest_dictbench.plugin.rig",
             "xdist.scheduler")
    print("LOADED", [name for name in names if name in sys.modules])
""")
    result = mini.runpytest_subprocess("--product=p1", "--dictbench-item-failures=report",
                                       "-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines(["LOADED []"])
    under_xdist = mini.runpytest_subprocess("--product=p1", "--dictbench-item-failures=report",
                                            "-s", "-n", "1", "-p", "no:cacheprovider")
    under_xdist.assert_outcomes(passed=3, skipped=1)
    under_xdist.stdout.fnmatch_lines(["LOADED ['pytest_dictbench.plugin.scheduler', "
                                      "'xdist.scheduler']"])
