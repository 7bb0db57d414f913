"""A suite's own seeds in ``suite.toml`` (issue 24, "The seeds' own seeds"): the
bootstrap seed of its intervals and comparisons, and ``dictbench synth``'s voice seed."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.cli import main

ROOT = Path(__file__).resolve().parents[1]


def suite_entry(pytester: pytest.Pytester) -> tuple[dict[str, Any], dict[str, Any]]:
    report = json.loads((pytester.path / "reports/dictbench.json").read_text("utf-8"))
    return report, report["suites"][0]


def test_the_suite_bootstrap_seed_is_used_and_the_command_line_wins(
        mini: pytest.Pytester, write_suite) -> None:
    mini.runpytest("--product=p1", "--dictbench-seed=11")
    _, explicit = suite_entry(mini)
    assert "statistics" not in explicit  # no [seeds]: the entry is as it always was
    write_suite(extra="[seeds]\nbootstrap = 11\n")
    mini.runpytest("--product=p1")
    report, own = suite_entry(mini)
    assert own["statistics"] == {"seed": 11, "from": "suite.toml [seeds] bootstrap"}
    assert report["statistics"]["seed"] == 20261129  # the run's own default is unchanged
    # the suite's seed gives the same interval as the same seed given on the command line
    assert own["products"][0]["score_ci"] == explicit["products"][0]["score_ci"]
    mini.runpytest("--product=p1", "--dictbench-seed=12")
    report, overridden = suite_entry(mini)
    assert report["statistics"]["seed"] == 12 and "statistics" not in overridden


@pytest.mark.parametrize("value", ["-1", "1.5", '"7"', "{ x = 1 }"])
def test_a_bad_seed_is_refused_naming_the_manifest(mini: pytest.Pytester, write_suite,
                                                   value: str) -> None:
    write_suite(extra=f"[seeds]\nbootstrap = {value}\n")
    result = mini.runpytest("--product=p1")
    assert result.ret != 0
    assert "suite.toml" in result.stdout.str() + result.stderr.str()
    assert "seeds" in result.stdout.str() + result.stderr.str()


def test_ja_dictation_uses_the_rubric_seeds_bootstrap_seed() -> None:
    manifest = tomllib.loads((ROOT / "cases/ja-dictation/suite.toml").read_text("utf-8"))
    assert manifest["seeds"] == {"bootstrap": 20261104}


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng (CI installs it)")
def test_synth_takes_the_suites_voice_seed(write_suite, capsys) -> None:
    cases = [{"id": "s1", "genre": "chat", "reference": "Call me at noon."}]
    root = write_suite(cases=cases, extra="[seeds]\nvoices = 7\n")
    assert main(["synth", str(root)]) == 0
    assert "(seed 7)" in capsys.readouterr().out
    assert main(["synth", str(root), "--seed", "8"]) == 0  # the option wins
    assert "(seed 8)" in capsys.readouterr().out
