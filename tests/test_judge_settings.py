"""The ``[judge]`` configuration table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_dictbench.errors import JudgeError
from pytest_dictbench.judge import JudgeConfig, RetryPolicy, parse_judge_settings
from pytest_dictbench.judge.adjudications import load_decisions

TABLE = {
    "concurrency": 8,
    "timeout": 30,
    "max_attempts": 5,
    "base_delay": 0.5,
    "seed": 3,
    "judges": [
        {"name": "a", "model": "model-a", "price_in_per_mtok": 3, "price_out_per_mtok": 15},
        {"name": "b", "model": "model-b", "max_tokens": 2048, "temperature": 0.0},
    ],
}


def test_full_table_is_read() -> None:
    settings = parse_judge_settings(TABLE)
    assert settings.judges == (
        JudgeConfig("a", "model-a", price_in_per_mtok=3, price_out_per_mtok=15),
        JudgeConfig("b", "model-b", temperature=0.0, max_tokens=2048),
    )
    assert (settings.concurrency, settings.timeout, settings.base_url) == (8, 30.0, None)
    assert settings.retry == RetryPolicy(max_attempts=5, base_delay=0.5, max_delay=30.0, seed=3)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"judges": []}, "should be non-empty"),
        ({"concurrency": 0}, r"\[judge\]\.concurrency: 0 is less than the minimum"),
        ({"judges": [{"name": "a"}]}, "'model' is a required property"),
        ({"judges": [{"name": "a", "model": "m", "colour": "red"}]}, "Additional properties"),
        ({"judges": [{"name": "a", "model": "m"}, {"name": "a", "model": "n"}]}, "unique"),
        ({"base_url": "ftp://x"}, "does not match"),
    ],
)
def test_bad_tables_are_rejected_with_the_path(change: dict, message: str) -> None:
    with pytest.raises(JudgeError, match=message) as info:
        parse_judge_settings(TABLE | change, path="suite.toml")
    assert str(info.value).startswith("suite.toml: ")


@pytest.mark.parametrize("where", ["top", "judge"])
def test_a_credential_in_the_table_is_refused_without_echoing_it(where: str) -> None:
    table = dict(TABLE)
    if where == "top":
        table["api_key"] = "sk-secret-value"
    else:
        table["judges"] = [{"name": "a", "model": "m", "api_key": "sk-secret-value"}]
    with pytest.raises(JudgeError, match="ANTHROPIC_API_KEY") as info:
        parse_judge_settings(table)
    assert "sk-secret-value" not in str(info.value)


def test_a_trailing_newline_never_passes_an_anchored_pattern(tmp_path: Path) -> None:
    """Judge settings and decision lines use the project's validator, whose ``$`` is the
    end of the text (Python's ``re`` lets ``$`` match before a final newline)."""
    line = {"suite": "s", "case": "c", "product": "p", "output_hash": "a" * 64 + "\n",
            "rule": "A1", "score": 2, "reason": "r", "decided_by": "x"}
    path = tmp_path / "adjudications.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(JudgeError, match=":1:"):
        load_decisions(path)
