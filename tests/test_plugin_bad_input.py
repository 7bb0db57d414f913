"""Bad input: a clear error naming file and line (or id), and no report is corrupted."""

from __future__ import annotations

import json

import pytest
from support import CANARY, MINI_CASES, jsonl, stopped_run, usage_error


def test_malformed_case_line(mini: pytest.Pytester) -> None:
    cases = mini.path / "cases/mini/cases.jsonl"
    lines = cases.read_text().splitlines()
    lines[2] = lines[2][:-1]
    cases.write_text("\n".join(lines) + "\n")
    stopped_run(mini, "*cases/mini/cases.jsonl:3: malformed JSON*")


def test_malformed_output_line_keeps_reports(mini: pytest.Pytester) -> None:
    out = mini.path / "products/p1/mini.jsonl"
    good = out.read_text()
    mini.runpytest("--product=p1")
    out.write_text(good + '{"case_id": "c4", "text": \n')
    result = run_keeps_reports_after_edit(mini)
    result.stdout.fnmatch_lines(["*products/p1/mini.jsonl:4: malformed JSON*"])



def run_keeps_reports_after_edit(mini: pytest.Pytester) -> pytest.RunResult:
    before = {p.name: p.read_bytes() for p in (mini.path / "reports").iterdir()}
    result = mini.runpytest("--product=p1")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert {p.name: p.read_bytes() for p in (mini.path / "reports").iterdir()} == before
    return result


def test_unknown_case_id_in_outputs(mini: pytest.Pytester, write_product) -> None:
    mini.runpytest("--product=p1")
    write_product(outputs=[{"case_id": "c1", "text": "x"}, {"case_id": "nope", "text": "y"}])
    result = run_keeps_reports_after_edit(mini)
    result.stdout.fnmatch_lines(["*products/p1/mini.jsonl:2: unknown case id 'nope'*"])


def test_two_outputs_for_one_case_and_repetition(mini: pytest.Pytester, write_product) -> None:
    write_product(outputs=[{"case_id": "c1", "text": "a"}, {"case_id": "c2", "text": "b"},
                           {"id": "c1", "text": "c", "repetition": 1}])
    result = mini.runpytest("--product=p1")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*mini.jsonl:3: second output for case 'c1' repetition 1 (first at *mini.jsonl:1)*"])


def test_duplicate_case_ids(mini: pytest.Pytester, write_suite) -> None:
    write_suite(cases=[*MINI_CASES, dict(MINI_CASES[1], reference="again")])
    result = mini.runpytest("--product=p1")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*cases/mini/cases.jsonl:5: duplicate case id 'c2' (first on line 2)*"])


def test_invalid_utf8_names_line(mini: pytest.Pytester) -> None:
    cases = mini.path / "cases/mini/cases.jsonl"
    data = cases.read_bytes().splitlines(keepends=True)
    data[1] = data[1].replace(b"invoice", b"inv\xffoice")
    cases.write_bytes(b"".join(data))
    stopped_run(mini, "*cases/mini/cases.jsonl:2: not valid UTF-8 (byte 0xff*")


def test_bom_and_crlf_files_are_accepted(mini: pytest.Pytester, write_product) -> None:
    cases = mini.path / "cases/mini/cases.jsonl"
    cases.write_bytes(b"\xef\xbb\xbf" + cases.read_bytes().replace(b"\n", b"\r\n"))
    out = mini.path / "products/p1/mini.jsonl"
    out.write_bytes(b"\xef\xbb\xbf" + out.read_bytes().replace(b"\n", b"\r\n"))
    toml = mini.path / "cases/mini/suite.toml"
    toml.write_bytes(b"\xef\xbb\xbf" + toml.read_bytes().replace(b"\n", b"\r\n"))
    result = mini.runpytest("--product=p1")
    result.assert_outcomes(passed=2, failed=1, skipped=1)


def test_missing_product_file(mini: pytest.Pytester) -> None:
    result = mini.runpytest("--product=ghost")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*dictbench: *products/ghost.toml: product 'ghost' not found (known: p1)*"])


def test_unknown_adapter_kind(mini: pytest.Pytester, write_product) -> None:
    write_product("odd", toml='name = "odd"\nversion = "1"\nadapter = "telepathy"\n')
    usage_error(mini, "*products/odd.toml: unknown adapter kind 'telepathy'*", "--product=odd")


def test_product_schema_violation(mini: pytest.Pytester, write_product) -> None:
    write_product("bad", toml='name = "bad"\nadapter = "cache"\n')
    usage_error(mini, "*products/bad.toml: 'version' is a required property*", "--product=bad")


def test_suite_schema_violation(mini: pytest.Pytester) -> None:
    toml = mini.path / "cases/mini/suite.toml"
    toml.write_text(toml.read_text().replace('version = "1.0"', "version = 3"))
    stopped_run(mini, "*cases/mini/suite.toml: version: 3 is not of type 'string'*")


def test_malformed_toml(mini: pytest.Pytester) -> None:
    toml = mini.path / "cases/mini/suite.toml"
    toml.write_text(toml.read_text() + "broken = \n")
    result = mini.runpytest("--product=p1")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    # the line named as everywhere else, file:line (CF30)
    result.stdout.fnmatch_lines(["*cases/mini/suite.toml:*: malformed TOML: *"])


def test_case_schema_violation(mini: pytest.Pytester, write_suite) -> None:
    write_suite(cases=[*MINI_CASES[:2], {"id": "c3", "referenze": "typo"}])
    stopped_run(mini, "*cases/mini/cases.jsonl:3: case 'c3': *reference*")


def test_output_schema_violation(mini: pytest.Pytester, write_product) -> None:
    write_product(outputs=[{"case_id": "c1", "text": "x", "status": "maybe"}])
    stopped_run(mini, "*products/p1/mini.jsonl:1: status: 'maybe' is not one of*")


def test_path_leaving_suite_is_refused(mini: pytest.Pytester, write_suite) -> None:
    write_suite(extra='[[files]]\npath = "../../secret.txt"\n')
    stopped_run(mini, "*suite.toml: listed file '../../secret.txt' leaves the suite*")


def test_error_output_is_an_error_never_a_score(mini: pytest.Pytester, write_product) -> None:
    write_product(outputs=[
        {"case_id": "c1", "status": "error", "error": "engine crashed"},
        {"case_id": "c2", "text": ""},
        {"case_id": "c3", "status": "unsupported"},
        {"case_id": "c4", "text": "Buy milk, eggs and bread."},
    ])
    result = mini.runpytest("--product=p1", "-rE")
    result.assert_outcomes(passed=1, failed=1, skipped=1, errors=1)
    result.stdout.fnmatch_lines(["*output error: product 'p1' case 'c1': error: engine crashed*"])
    report = json.loads((mini.path / "reports/dictbench.json").read_text())
    entry = report["suites"][0]["products"][0]
    assert (entry["errors"], entry["empty"], entry["not_tested"]) == (1, 1, 1)
    # c2 (empty, score 0) and c4 (100) are scored; the error is not a zero.
    assert entry["score"] == 50.0


def test_canary_missing_and_leaked(mini: pytest.Pytester, write_suite, write_product) -> None:
    rows = [dict(c, canary=CANARY) for c in MINI_CASES]
    text = jsonl(rows).replace(CANARY, "forgotten", 1)
    write_suite(cases_text=text)
    write_product(outputs=[{"case_id": "c1", "text": f"leak {CANARY}"}])
    result = mini.runpytest("--product=p1")
    result.stdout.fnmatch_lines(["mini/p1: output contains the canary (c1)"])
    report = json.loads((mini.path / "reports/dictbench.json").read_text())
    suite = report["suites"][0]
    # every line but the first still carries it, so the file does contain the canary
    assert suite["canary"] == {"missing_in": [], "status": "ok"}
    assert suite["products"][0]["canary_leaks"] == ["c1"]
    write_suite(cases_text=jsonl(MINI_CASES))
    result = mini.runpytest("--product=p1")
    result.stdout.fnmatch_lines(["mini: canary missing in cases.jsonl"])


def test_nan_in_outputs_names_the_line(mini: pytest.Pytester, write_product) -> None:
    write_product(outputs_text='{"case_id": "c1", "text": "x", "latency_ms": NaN}\n')
    stopped_run(mini, "*products/p1/mini.jsonl:1: NaN is not a number JSON allows*")


def test_outputs_folder_must_stay_in_the_products_folder(mini: pytest.Pytester,
                                                         write_product) -> None:
    write_product("odd", toml='name = "odd"\nversion = "1"\nadapter = "cache"\n'
                              '[settings]\noutputs = "../../elsewhere"\n')
    result = mini.runpytest("--product=odd")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*odd.toml: [[]settings[]] outputs '../../elsewhere' leaves*"])


def test_product_path_that_is_a_folder(mini: pytest.Pytester) -> None:
    (mini.path / "products" / "dir.toml").mkdir()
    usage_error(mini, "*dir.toml: not a regular file (a FIFO, device, socket or folder "
                      "is never read)*", "--product=dir")  # one wording everywhere (CF31)


@pytest.mark.parametrize("option", ["--repetitions=0", "--dictbench-resamples=5",
                                    "--judge-audit=-1"])
def test_numeric_options_are_checked(mini: pytest.Pytester, option: str) -> None:
    usage_error(mini, "*invalid integer >= *", "--product=p1", option)


def test_bad_method_params_are_a_suite_error(mini: pytest.Pytester, write_suite) -> None:
    write_suite(params='threshold = 0.2\nunit = "chars"')
    stopped_run(mini, "*suite.toml: params.unit must be 'word' or 'char'*")


def test_bad_ranking_table_is_a_suite_error(mini: pytest.Pytester, write_suite) -> None:
    write_suite(extra='[ranking]\nhigher_is_better = "false"\n')
    stopped_run(mini, "*suite.toml: ranking/higher_is_better: 'false' is not of type*")
