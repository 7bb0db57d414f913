"""Settings are plain, finite values: TOML dates and times in a product file, and
``inf`` / ``nan`` anywhere in a suite or product file, are refused naming file and key."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("line", "key", "kind"), [
    ('os_build = 10:30:00', "environment.os_build", "time"),
    ('tested = 2026-11-30', "environment.tested", "date"),
    ('at = 2026-11-30T10:00:00', "environment.at", "datetime"),
])
def test_a_toml_date_or_time_in_a_product_file_is_refused(
        mini: pytest.Pytester, write_product, line: str, key: str, kind: str) -> None:
    write_product("dated", toml=f'name = "dated"\nversion = "1"\nadapter = "cache"\n'
                                f'[environment]\nos = "x"\n{line}\n')
    result = mini.runpytest("--product=dated")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*products/dated.toml: {key} is a TOML {kind} (*); write "
                                 "it as a string*"])


@pytest.mark.parametrize("value", ["inf", "nan", "-inf"])
def test_a_non_finite_product_setting_is_refused(mini: pytest.Pytester, write_product,
                                                 value: str) -> None:
    write_product("hang", toml='name = "hang"\nversion = "1"\nadapter = "command"\n'
                               f'[settings]\ncommand = ["sleep", "1000"]\ntimeout_s = {value}\n')
    result = mini.runpytest("--product=hang")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*products/hang.toml: settings.timeout_s is {value}: every "
                                 "number must be finite*"])


@pytest.mark.parametrize(("old", "new", "key"), [
    ("threshold = 0.2", "threshold = inf", "params.threshold"),
    ("threshold = 0.2", "threshold = nan", "params.threshold"),
    ("threshold = 0.2", "threshold = 0.2\nweights = [1.0, inf]", "params.weights[[]1[]]"),
])
def test_a_non_finite_suite_setting_is_refused(mini: pytest.Pytester, old: str, new: str,
                                               key: str) -> None:
    toml = mini.path / "cases/mini/suite.toml"
    toml.write_text(toml.read_text().replace(old, new))
    result = mini.runpytest("--product=p1")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([f"*cases/mini/suite.toml: {key} is *: every number must be "
                                 "finite*"])


def test_an_integral_float_repetitions_counts_as_the_integer(mini: pytest.Pytester) -> None:
    toml = mini.path / "cases/mini/suite.toml"
    toml.write_text(toml.read_text().replace('locale = "en-US"',
                                             'locale = "en-US"\nrepetitions = 2.0'))
    result = mini.runpytest("--product=p1", "--co", "-q")
    result.stdout.no_fnmatch_line("*TypeError*")
    result.stdout.fnmatch_lines(["*c1?p1-r2?*", "8 tests collected*"])


def test_a_crlf_checkout_is_named_and_not_blessed(mini: pytest.Pytester) -> None:
    import subprocess
    import sys

    root = mini.path / "cases/mini"
    subprocess.run([sys.executable, "-m", "pytest_dictbench.cli", "hash", str(root)],
                   check=True, capture_output=True, timeout=60)
    cases = root / "cases.jsonl"
    cases.write_bytes(cases.read_bytes().replace(b"\n", b"\r\n"))
    result = mini.runpytest("--product=p1")
    result.stdout.fnmatch_lines(["*cases.jsonl: the file has CRLF line ends, and with LF "
                                 "line ends it matches*core.autocrlf*do not run 'dictbench "
                                 "hash'*"])
