"""Findings of clarity-and-first-hour.md about live runs, in real pytest runs: the progress
line counts failed captures apart (CF4)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from adapter_support import live_project

CASES = [{"id": f"c{i}", "reference": "hello there"} for i in range(1, 5)]
CONFTEST = '''
def pytest_dictbench_transcriber(product):
    def transcribe(request):
        if product.name == "broken":
            raise RuntimeError("the engine is not there")
        return "hello there"
    return transcribe
'''


@pytest.fixture
def live(pytester: pytest.Pytester, write_suite: Callable[..., Path]) -> pytest.Pytester:
    return live_project(pytester, write_suite, CASES, CONFTEST, ("ok", "broken"))


def test_cf4_failed_captures_are_errors_not_cached(live: pytest.Pytester) -> None:
    result = live.runpytest("--product=broken", "--product=ok", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, errors=4)
    lines = [line for line in result.outlines if line.startswith("dictbench capture ")]
    assert "dictbench capture broken: 4/4 items (0 captured, 0 cached, 4 without output), " \
           "0.0 s audio, done" in lines
    again = live.runpytest("--product=ok", "-p", "no:cacheprovider")
    assert [x for x in again.outlines if x.startswith("dictbench capture ")] == [
        "dictbench capture ok: 4/4 items (0 captured, 4 cached), 0.0 s audio, done"]


def _openai_products(pytester: pytest.Pytester, names: list[str]) -> None:
    for name in names:
        (pytester.path / "products" / f"{name}.toml").write_text(
            f'name = "{name}"\nversion = "1"\nadapter = "openai"\n[settings]\n'
            f'model = "m"\napi_key_env = "DICTBENCH_UNSET_KEY_{name.upper()}"\n'
            'base_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_cf24_a_missing_key_is_one_usage_error_per_product(
        live: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]) -> None:
    """CF24: one usage error naming each variable and its products, before any item
    runs; under ``-n 2`` too (the controller checks the workers' collection)."""
    _openai_products(live, ["cloud1", "cloud2"])
    for name in ("CLOUD1", "CLOUD2"):
        monkeypatch.delenv(f"DICTBENCH_UNSET_KEY_{name}", raising=False)
    result = live.runpytest("--product=cloud1", "--product=cloud2", "--product=ok",
                            "-p", "no:cacheprovider", *workers)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "ERROR: dictbench: environment variable DICTBENCH_UNSET_KEY_CLOUD1 (api_key_env) is "
        "not set: product cloud1 needs it to capture 4 items; export it, or leave the "
        "product out",
        "dictbench: environment variable DICTBENCH_UNSET_KEY_CLOUD2 (api_key_env) is not "
        "set: product cloud2 needs it to capture 4 items; export it, or leave the product "
        "out"])
    assert result.stderr.str().count("DICTBENCH_UNSET_KEY_CLOUD1") == 1
    assert "capture error" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*= no tests ran in *"])


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_cf24_cached_outputs_need_no_key(live: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                         workers: list[str]) -> None:
    _openai_products(live, ["cloud1"])
    monkeypatch.delenv("DICTBENCH_UNSET_KEY_CLOUD1", raising=False)
    (live.path / "products" / "cloud1").mkdir()
    (live.path / "products" / "cloud1" / "mini.jsonl").write_text("".join(
        f'{{"case_id": "{c["id"]}", "text": "hello there"}}\n' for c in CASES))
    result = live.runpytest("--product=cloud1", "-p", "no:cacheprovider", *workers)
    result.assert_outcomes(passed=4)


@pytest.mark.parametrize("option", ["--dictbench-seed=١٢", "--dictbench-resamples=１０００",
                                    "--dictbench-max-drop=٢", "--dictbench-min-score=８０",
                                    "--dictbench-progress=５"])
def test_cf10_numeric_options_take_ascii_digits_only(live: pytest.Pytester,
                                                     option: str) -> None:
    result = live.runpytest("--product=ok", "--dictbench-baseline=nowhere", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*argument {option.split('=')[0]}: invalid*ASCII*"])


def test_cf10_the_cli_takes_ascii_digits_only(capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_dictbench.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["synth", "nowhere", "--seed=١٢"])
    assert stop.value.code == 2
    assert "'١٢' is not a whole number (ASCII digits)" in capsys.readouterr().err
