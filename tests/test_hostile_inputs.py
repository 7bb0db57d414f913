"""Hostile and broken input files: refused at load with file:line, never a crash or a
silent wrong result."""

from __future__ import annotations

import json

import pytest
from support import MINI_CASES, jsonl

INTERRUPTED = pytest.ExitCode.INTERRUPTED


@pytest.mark.parametrize(("line", "message"), [
    ('{"case_id": "c1", "text": "x", "rtf": "fast"}', "rtf: 'fast' is not of type*"),
    ('{"case_id": "c1", "text": "x", "latency_ms": 1e308}',
     "latency_ms: 1e+308 is greater than the maximum*"),
    ('{"case_id": "c1", "text": "x", "latency_ms": 1e999}', "1e999 is too large*"),
    ('{"case_id": "c1", "text": "x", "audio_duration_s": -1}', "audio_duration_s: -1 is less*"),
    ('{"case_id": "c1", "text": "x", "engine": 3}', "engine: 3 is not of type*"),
    ('{"case_id": "c1", "text": "x", "settings": ' + "[" * 50000 + "]" * 50000 + "}",
     "JSON nested too deeply to read (more than 64 levels)"),
])
def test_bad_known_fields_of_output_lines_are_refused_at_load(
        mini: pytest.Pytester, write_product, line: str, message: str) -> None:
    write_product(outputs_text=line + "\n")
    result = mini.runpytest("--product=p1")
    assert result.ret == INTERRUPTED
    result.stdout.fnmatch_lines([f"*products/p1/mini.jsonl:1: {message}"])
    assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize(("case", "message"), [
    ({"id": "c1\n", "reference": "x"}, "id: 'c1\\n' does not match*"),
    ({"id": "c1", "genre": "chat\n", "reference": "x"}, "genre: 'chat\\n' does not match*"),
    ({"id": "c1", "tags": ["list\n"], "reference": "x"}, "tags/0: 'list\\n' does not match*"),
])
def test_ids_genres_and_tags_ending_in_a_newline_are_refused(
        mini: pytest.Pytester, write_suite, case: dict, message: str) -> None:
    write_suite(cases=[case, *MINI_CASES[1:]])
    result = mini.runpytest("--product=p1")
    assert result.ret == INTERRUPTED
    result.stdout.fnmatch_lines([f"*cases/mini/cases.jsonl:1: {message}"])


def test_a_suite_id_ending_in_a_newline_is_refused(mini: pytest.Pytester) -> None:
    manifest = mini.path / "cases/mini/suite.toml"
    manifest.write_text(manifest.read_text().replace('id = "mini"', 'id = "mini\\n"'))
    result = mini.runpytest("--product=p1")
    assert result.ret == INTERRUPTED
    result.stdout.fnmatch_lines(["*cases/mini/suite.toml: id: 'mini\\n' does not match*"])


def test_deeply_nested_toml_names_the_file(mini: pytest.Pytester) -> None:
    manifest = mini.path / "cases/mini/suite.toml"
    manifest.write_text(manifest.read_text() + "deep = " + "[" * 50000 + "]" * 50000 + "\n")
    result = mini.runpytest("--product=p1")
    assert result.ret == INTERRUPTED
    result.stdout.fnmatch_lines(["*cases/mini/suite.toml: TOML nested too deeply to read*"])


def test_an_output_for_a_repetition_the_run_does_not_have_is_refused(
        mini: pytest.Pytester, write_product) -> None:
    write_product(outputs=[{"case_id": "c1", "text": "x"},
                           {"case_id": "c1", "text": "y", "repetition": 2}])
    result = mini.runpytest("--product=p1")
    assert result.ret == INTERRUPTED
    result.stdout.fnmatch_lines(["*products/p1/mini.jsonl:2: case 'c1': repetition 2, but "
                                 "suite 'mini' is run with 1 (see --repetitions)*"])
    mini.runpytest("--product=p1", "--repetitions=2").assert_outcomes(failed=2, skipped=6)


def test_an_outputs_file_that_is_a_symlink_out_of_products_is_refused(
        mini: pytest.Pytester) -> None:
    outside = mini.path / "elsewhere.jsonl"
    outside.write_text(jsonl([{"case_id": "c1", "text": "Hello Maria, see you at noon."}]))
    link = mini.path / "products/p1/mini.jsonl"
    link.unlink()
    link.symlink_to(outside)
    result = mini.runpytest("--product=p1")
    assert result.ret == INTERRUPTED
    result.stdout.fnmatch_lines(["*products/p1/mini.jsonl: the outputs file leads out of the "
                                 "products folder*"])


def test_a_suite_reached_twice_through_a_symlink_is_collected_once(
        mini: pytest.Pytester) -> None:
    (mini.path / "cases/alias").symlink_to(mini.path / "cases/mini", target_is_directory=True)
    result = mini.runpytest("--product=p1", "cases", "--collect-only", "-q")
    lines = [x for x in result.stdout.lines if "suite.toml::" in x]
    assert len(lines) == 4, result.stdout.str()
    result = mini.runpytest("--product=p1", "cases")
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    report = json.loads((mini.path / "reports/dictbench.json").read_text())
    assert len(report["suites"]) == 1


def test_a_text_over_the_size_limit_is_refused_naming_file_and_line(
        mini: pytest.Pytester, write_product, write_suite) -> None:
    write_product(outputs=[{"case_id": "c1", "text": "x"},
                           {"case_id": "c2", "text": "word " * 50_000}])
    result = mini.runpytest("--product=p1")
    result.assert_outcomes(failed=1, errors=1, skipped=2)  # only that item is an error
    result.stdout.fnmatch_lines(["*products/p1/mini.jsonl:2: case 'c2': text has 250,000 "
                                 "characters, more than the limit of 200,000 "
                                 "(--dictbench-max-text-chars)*"])
    # the limit is configurable, on the command line or in the ini file
    result = mini.runpytest("--product=p1", "--dictbench-max-text-chars=300000")
    result.assert_outcomes(failed=2, skipped=2)
    write_suite(cases=[*MINI_CASES[:2], dict(MINI_CASES[2], reference="long " * 20)])
    mini.makeini("[pytest]\ndictbench_suites = cases/mini\ndictbench_max_text_chars = 80\n")
    result = mini.runpytest("--product=p1", "--dictbench-max-text-chars=300000")
    result.assert_outcomes(failed=2, skipped=1)
    result = mini.runpytest("--product=p1")
    assert result.ret == INTERRUPTED
    result.stdout.fnmatch_lines(["*cases/mini/cases.jsonl:3: case 'c3': reference has 100 "
                                 "characters, more than the limit of 80*"])


def test_a_bad_size_limit_in_the_ini_file_is_a_usage_error(mini: pytest.Pytester) -> None:
    mini.makeini("[pytest]\ndictbench_suites = cases/mini\ndictbench_max_text_chars = lots\n")
    result = mini.runpytest("--product=p1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*dictbench_max_text_chars must be an integer >= 1*"])


def test_a_cases_file_that_no_longer_matches_its_listed_digest_stops_the_run(
        mini: pytest.Pytester) -> None:
    from pytest_dictbench.cli import main

    assert main(["hash", str(mini.path / "cases/mini")]) == 0
    mini.runpytest("--product=p1").assert_outcomes(passed=2, failed=1, skipped=1)
    cases = mini.path / "cases/mini/cases.jsonl"
    cases.write_text(cases.read_text().replace("room four", "room five"))
    result = mini.runpytest("--product=p1")
    assert result.ret == INTERRUPTED
    result.stdout.fnmatch_lines(["*cases/mini/cases.jsonl: sha256 is *, but suite.toml lists "
                                 "*: the suite was changed after it was hashed (run "
                                 "'dictbench hash' if the change is intended)*"])
    assert main(["hash", str(mini.path / "cases/mini")]) == 0
    mini.runpytest("--product=p1").assert_outcomes(passed=2, failed=1, skipped=1)


def test_an_output_error_names_its_cache_line_relative_to_the_rootdir(
        mini: pytest.Pytester, write_product) -> None:
    # reports do not depend on where the project is checked out
    write_product(outputs_text='{"case_id": "c1", "status": "error", "error": "timeout"}\n')
    mini.runpytest("--product=p1")
    records = [json.loads(line) for line in
               (mini.path / "reports" / "items.jsonl").read_text().splitlines()]
    message = next(r["message"] for r in records if r["case_id"] == "c1")
    assert message == "error: timeout (products/p1/mini.jsonl:1)"
    assert str(mini.path) not in (mini.path / "reports" / "dictbench.md").read_text()
