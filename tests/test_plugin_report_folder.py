"""The report folder holds the report set and nothing else: no lock file and no
temporary file (an empty pending list: tests/test_plugin_judge.py)."""

from __future__ import annotations

import pytest


def test_a_run_leaves_only_its_report_files(mini: pytest.Pytester) -> None:
    mini.runpytest("--product=p1")
    assert sorted(p.name for p in (mini.path / "reports").iterdir()) == [
        "dictbench.html", "dictbench.json", "dictbench.md", "items.jsonl", "run-info.json"]
