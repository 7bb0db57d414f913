"""The bundled ja-journal suite: its data, its example products, and the offline run."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.methods.keypoints.casedata import case_problem
from pytest_dictbench.suites import load_suite

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "cases" / "ja-journal"


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    return tomllib.loads((SUITE / "suite.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in
            (SUITE / "cases.jsonl").read_text(encoding="utf-8").splitlines()]


def test_suite_loads_with_twenty_cases_and_the_canary(cases: list[dict[str, Any]],
                                                      manifest: dict[str, Any]) -> None:
    suite = load_suite(SUITE, lambda m: "case-keypoints.schema.json")
    assert suite.method == "keypoints" and len(suite.cases) == len(cases) >= 20
    assert all(c["canary"] == manifest["canary"] for c in cases)
    assert all(case_problem(c) is None for c in suite.cases)
    assert {c["genre"] for c in cases} == {"daily", "work", "health", "travel"}


def test_files_are_hashed(manifest: dict[str, Any]) -> None:
    for entry in manifest["files"]:
        digest = hashlib.sha256((SUITE / entry["path"]).read_bytes()).hexdigest()
        assert digest == entry["sha256"], entry["path"]


def test_lengths_and_key_points_scale(cases: list[dict[str, Any]],
                                      manifest: dict[str, Any]) -> None:
    durations = {f["case_id"]: f["duration"] for f in manifest["files"] if "case_id" in f}
    for case in cases:
        duration = durations[case["id"]]
        assert case["duration_s"] == pytest.approx(duration, abs=0.001)
        assert 30 <= duration <= 120, case["id"]
        # about one key point per 15 s, at least 3
        assert max(3, round(duration / 15)) <= len(case["key_points"]) <= round(
            duration / 15) + 3, case["id"]
        assert case["audio"] == f"audio/{case['id']}.flac"
    severities = [p["severity"] for c in cases for p in c["key_points"]]
    assert severities.count("critical") >= 20 and severities.count("minor") >= 20


def test_example_outputs_and_their_example_decisions(cases: list[dict[str, Any]]) -> None:
    decisions = [json.loads(line) for line in
                 (REPO / "judges/adjudications.jsonl").read_text(encoding="utf-8").splitlines()]
    mine = [d for d in decisions if d["suite"] == "ja-journal"]
    assert all(d["decided_by"] == "EXAMPLE DATA" and d["reason"].startswith("EXAMPLE DATA")
               for d in mine)
    for product in ("example", "example-weak"):
        path = REPO / "products" / product / "ja-journal.jsonl"
        outputs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert [o["case_id"] for o in outputs] == [c["id"] for c in cases]
        for output, case in zip(outputs, cases, strict=True):
            if not output["text"]:
                continue  # an empty transcript needs no verdict
            digest = hashlib.sha256(output["text"].encode("utf-8")).hexdigest()
            rules = {d["rule"] for d in mine if d["product"] == product
                     and d["case"] == case["id"] and d["output_hash"] == digest}
            assert rules == {p["id"] for p in case["key_points"]} | {"insertions"}, (
                product, case["id"])


def test_bundled_run_prints_and_writes_leaderboard_and_comparison(tmp_path: Path) -> None:
    """``pytest cases/ja-journal --product=example --product=example-weak``, offline."""
    before = sorted(p.name for p in (REPO / "judges").iterdir() if not p.name.endswith(".lock"))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "cases/ja-journal", "--product=example",
         "--product=example-weak", "-p", "no:cacheprovider", "-q",
         "--dictbench-item-failures=report", f"--dictbench-report={tmp_path}",
         f"--junitxml={tmp_path / 'junit.xml'}"],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    out = result.stdout
    assert ("product       rank  cohort  score  fbeta  latency_median_ms  latency_p95_ms  "
            "mean_rtf  names_f1  precision  recall  total_cost_usd") in out
    assert "ja-journal: example-weak - example: " in out and "McNemar" in out
    report = json.loads((tmp_path / "dictbench.json").read_text(encoding="utf-8"))
    [suite] = report["suites"]
    board = {row["product"]: row for row in suite["leaderboard"]}
    assert board["example"]["rank"] == 1 and board["example-weak"]["rank"] == 2
    for row in board.values():
        for column in ("score", "names_f1", "fbeta", "recall", "precision",
                       "latency_median_ms", "latency_p95_ms", "total_cost_usd"):
            assert column in row
    assert board["example"]["total_cost_usd"] > 0 and board["example-weak"][
        "total_cost_usd"] is None  # no [pricing]: named as missing, not guessed
    weak = next(e for e in suite["products"] if e["product"] == "example-weak")
    assert weak["empty"] == 1 and weak["cost"]["missing"]
    assert [(c["a"], c["b"]) for c in suite["comparisons"]] == [("example", "example-weak")]
    markdown = (tmp_path / "dictbench.md").read_text(encoding="utf-8")
    html = (tmp_path / "dictbench.html").read_text(encoding="utf-8")
    for text in (markdown, html):
        for needle in ("Leaderboard figures", "Names F1", "F-beta", "Recall", "Precision",
                       "Latency median / p95", "Total cost", "Paired comparisons",
                       "Names, numbers and coined words per item", "12400円"):
            assert needle in text, needle
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert "dictbench.score" in junit and "jr-20" in junit
    items = (tmp_path / "items.jsonl").read_text(encoding="utf-8")
    assert items.count('"suite": "ja-journal"') + items.count('"suite":"ja-journal"') == 40
    # nothing new besides the (git-ignored) lock file of the verdict cache
    assert sorted(p.name for p in (REPO / "judges").iterdir()
                  if not p.name.endswith(".lock")) == before
