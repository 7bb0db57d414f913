"""The gate against a baseline of another split half (PL1, gate part): it says plainly
that the halves are not comparable, in real pytest runs."""

from __future__ import annotations

import shutil

import pytest

CASES = [{"id": f"k{i:02d}", "genre": "notes", "reference": f"river stone maple {i}"}
         for i in range(12)]


@pytest.fixture
def halves(pytester: pytest.Pytester, write_suite, write_product) -> pytest.Pytester:
    """Suite ``mini`` (12 cases), product ``p1``, and the dev half's reports in ``dev``."""
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite(cases=CASES)
    write_product(outputs=[{"case_id": c["id"], "text": c["reference"]} for c in CASES])
    result = pytester.runpytest("--product=p1", "--dictbench-split=dev",
                                "--dictbench-report=dev")
    assert result.ret == pytest.ExitCode.OK
    return pytester


def test_a_test_half_gated_on_a_dev_half_is_refused_as_another_half(
        halves: pytest.Pytester) -> None:
    result = halves.runpytest("--product=p1", "--dictbench-split=test",
                              "--dictbench-baseline=dev", "--dictbench-max-drop=1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*dictbench gate FAILED: mini/p1: the baseline is the dev half of suite mini "
        "(seed 20261201), this run the test half: these hold different cases and are not "
        "compared (gate on a baseline run of the same --dictbench-split half and seed)"])


def test_a_half_gated_on_a_whole_run_and_a_whole_run_on_a_half_are_refused(
        halves: pytest.Pytester) -> None:
    whole = halves.runpytest("--product=p1", "--dictbench-baseline=dev",
                             "--dictbench-allow-missing")
    assert whole.ret == pytest.ExitCode.TESTS_FAILED
    whole.stdout.fnmatch_lines([
        "*mini/p1: the baseline is the dev half of suite mini (seed 20261201), this run "
        "every case: *not compared*"])
    shutil.copytree(halves.path / "reports", halves.path / "all")
    half = halves.runpytest("--product=p1", "--dictbench-split=dev",
                            "--dictbench-baseline=all", "--dictbench-allow-missing")
    assert half.ret == pytest.ExitCode.TESTS_FAILED
    half.stdout.fnmatch_lines([
        "*mini/p1: the baseline is every case of suite mini, this run the dev half "
        "(seed 20261201): *not compared*"])


def test_the_same_half_of_another_seed_is_refused_and_the_same_half_passes(
        halves: pytest.Pytester) -> None:
    same = halves.runpytest("--product=p1", "--dictbench-split=dev",
                            "--dictbench-baseline=dev", "--dictbench-max-drop=1")
    assert same.ret == pytest.ExitCode.OK, same.stdout.str()
    seed = halves.runpytest("--product=p1", "--dictbench-split=dev",
                            "--dictbench-split-seed=7", "--dictbench-baseline=dev",
                            "--dictbench-allow-missing")
    assert seed.ret == pytest.ExitCode.TESTS_FAILED
    seed.stdout.fnmatch_lines([
        "*mini/p1: the baseline is the dev half of suite mini (seed 20261201), this run "
        "the dev half (seed 7): *not compared*"])


def test_the_same_half_of_another_case_list_is_refused_and_no_split_passes() -> None:
    from pytest_dictbench.gate import split_failure

    def split(digest: str, of: int) -> dict:
        return {"half": "dev", "seed": 1, "suites": {
            "mini": {"of": of, "suite_cases_sha256": digest}}}

    assert split_failure("mini", None, None) == []
    assert split_failure("mini", split("a", 24), split("a", 24)) == []
    assert split_failure("mini", split("a", 24), split("b", 25)) == [
        "the baseline is the dev half of another case list of suite mini (24 cases), this "
        "run's of 25 cases: halves of different case lists are not compared (make a new "
        "baseline)"]


def test_a_half_gated_on_a_stored_run_is_not_refused_for_its_unknown_split(
        halves: pytest.Pytester) -> None:
    """A stored run keeps no split record: the gate compares its figures as before."""
    result = halves.runpytest("--product=p1", "--dictbench-split=dev",
                              "--dictbench-baseline=store:latest", "--dictbench-max-drop=1")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
