"""``dictbench publish``: aggregate-only summaries, built from dictbench.json alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_dictbench.cli import main
from pytest_dictbench.workbench.publish import summarize_report

REPORT = {
    "schema_version": 1,
    "statistics": {"resamples": 10000, "seed": 1},
    "suites": [{
        "id": "s", "title": "Suite", "version": "1", "method": "error_rate",
        "locale": "en-US", "headline": "error_rate", "repetitions": 1,
        "canary": {"status": "ok", "missing_in": []},
        "leaderboard": [{"product": "a", "rank": 1, "score": 90.0, "wer": 0.1}],
        "comparisons": [{"a": "a", "b": "b", "n": 10, "mean_difference": -5.0,
                         "interval": {"low": -9.0, "high": -1.0}, "mcnemar_p": 0.25,
                         "p_holm": 0.25, "resolved": True}],
        "products": [
            {"product": "a", "version": "1", "items": 10, "passed": 9, "failed": 1,
             "errors": 0, "score": 90.0, "score_ci": {"low": 80.0, "high": 95.0},
             "rank": 1, "canary_leaks": ["case-7"],
             "tables": {"summary": {"wer": 0.1}, "failing": [{"case_id": "case-7",
                                                              "diff": "secret words"}]}},
            {"product": "b", "version": "2", "items": 10, "passed": 8, "failed": 1,
             "errors": 1, "score": 85.0, "score_ci": {"low": 70.0, "high": 92.0},
             "rank": None, "reason": "incomplete: 1 of 10 required results missing "
                                     "(case-3: error)"},
        ],
    }],
}


def test_summary_keeps_aggregates_and_drops_items() -> None:
    summary = summarize_report(REPORT)
    suite = summary["suites"][0]
    a, b = suite["products"]
    assert a == {"product": "a", "version": "1", "items": 10, "passed": 9, "failed": 1,
                 "errors": 0, "score": 90.0, "score_ci": {"low": 80.0, "high": 95.0},
                 "rank": 1, "summary": {"wer": 0.1}}
    assert b["reason"] == "incomplete: 1 of 10 required results missing"
    assert suite["comparisons"] == REPORT["suites"][0]["comparisons"]
    assert "case-" not in json.dumps(summary) and "secret" not in json.dumps(summary)


def test_publish_reads_only_dictbench_json(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "dictbench.json").write_text(json.dumps(REPORT), encoding="utf-8")
    # reading the item records would fail on this line and copy its words
    (reports / "items.jsonl").write_text("not json at all: secret words\n")
    assert main(["publish", str(reports), str(tmp_path / "out")]) == 0
    markdown = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    # the ranked metric (error_rate, absent from this leaderboard: -) beside the rank
    assert "| a | 1 | 10 | 9 | 1 | 0 | 90.0 | 80.0 – 95.0 | - | 1 |" in markdown
    assert "not ranked: incomplete: 1 of 10 required results missing |" in markdown
    assert "| a | b | 10 | -5.0 | -9.0 – -1.0 | 0.250 | 0.250 |" in markdown
    first = (tmp_path / "out" / "summary.json").read_bytes()
    main(["publish", str(reports), str(tmp_path / "out")])
    assert (tmp_path / "out" / "summary.json").read_bytes() == first


def test_publish_without_a_report_names_the_file(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["publish", str(tmp_path), str(tmp_path / "out")]) == 2
    assert f"{tmp_path / 'dictbench.json'}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
