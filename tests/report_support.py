"""Inputs for the Markdown / HTML report tests.

``sample_run()`` runs the bundled suites against the bundled example products in a
child pytest (once per test process), so the report under test always matches the
current code and data. ``mini_report()`` is a small hand-made report whose figures the
tests check by hand.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_dictbench.report.sections import expected_texts
from pytest_dictbench.suites import load_suite

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_SUITES = ("cases/en-dictation", "cases/en-verbatim", "cases/ja-dictation")
SAMPLE_PRODUCTS = ("example", "example-weak")
#: Fewer resamples than a real run: the figures only need to exist.
SAMPLE_RESAMPLES = 300


def bundled_run(report: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A child ``pytest ARGS`` from the repository root (its bundled suites and products)
    with item failures reported and the report set written to ``report``."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args,
         "--dictbench-item-failures=report", f"--dictbench-report={report}"],
        cwd=ROOT, capture_output=True, text=True, check=False)


def example_products(root: Path, appended: Mapping[str, str]) -> Path:
    """``root/products``: copies of the bundled example and example-weak products,
    ``appended[name]`` added to a product's file. The folder."""
    products = root / "products"
    for name in ("example", "example-weak"):
        shutil.copytree(ROOT / "products" / name, products / name)
        text = (ROOT / "products" / f"{name}.toml").read_text(encoding="utf-8")
        (products / f"{name}.toml").write_text(text + appended.get(name, ""), encoding="utf-8")
    return products


@dataclass(frozen=True)
class Sample:
    report: dict[str, Any]
    records: list[dict[str, Any]]
    expected: dict[str, dict[str, list[str]]]


@functools.cache
def sample_run() -> Sample:
    """The reports of the bundled suites x example products (about 6 s, run once)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    with tempfile.TemporaryDirectory(prefix="dictbench-sample-") as tmp:
        args = [sys.executable, "-m", "pytest", *SAMPLE_SUITES,
                *(f"--product={p}" for p in SAMPLE_PRODUCTS), "-q", "-p", "no:cacheprovider",
                "--dictbench-item-failures=report",
                f"--dictbench-report={tmp}", f"--dictbench-resamples={SAMPLE_RESAMPLES}"]
        run = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=300, check=False)
        report_path = Path(tmp) / "dictbench.json"
        if not report_path.is_file():
            raise AssertionError(f"sample run wrote no report:\n{run.stdout}\n{run.stderr}")
        report = json.loads(report_path.read_text(encoding="utf-8"))
        records = [json.loads(line) for line in
                   (Path(tmp) / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    suites = [load_suite(ROOT / path) for path in SAMPLE_SUITES]
    return Sample(report, records, expected_texts(suites))


def rendered_twice(render: Callable[..., str]) -> tuple[str, str]:
    """``render`` of the sample run, and again of a deep copy of its report with the
    records in reverse order (the page must not depend on either)."""
    sample = sample_run()
    first = render(sample.report, sample.records, sample.expected)
    again = render(copy.deepcopy(sample.report), list(reversed(sample.records)),
                   sample.expected)
    return first, again


def _record(product: str, case_id: str, status: str, score: float | None, *,
            genre: str, text: str | None = "", repetition: int = 1,
            rules: dict[str, Any] | None = None, message: str = "") -> dict[str, Any]:
    return {"suite": "mini", "case_id": case_id, "product": product,
            "repetition": repetition, "status": status, "score": score,
            "rules": rules or {}, "metrics": {}, "message": message, "empty": not text,
            "canary_leak": False, "case": {"genre": genre, "tags": []}, "text": text,
            "latency_ms": None}


def _entry(product: str, **fields: Any) -> dict[str, Any]:
    entry = {"product": product, "version": "1", "adapter": "cache",
             "environment": {"os": "x"}, "items": 4, "passed": 0, "failed": 0, "errors": 0,
             "not_tested": 0, "empty": 0, "cases": 4, "cases_scored": 3, "canary_leaks": [],
             "score": None, "score_ci": None, "tables": {}, "judging": None,
             "pending_adjudications": 0, "cohort": {},
             "latency": {"n": 0, "median": None, "p95": None, "mean": None, "min": None,
                         "max": None},
             "rank": None, "reason": None}
    entry.update(fields)
    return entry


WER_FAIL = {"WER": {"score": 0, "evidence": "WER 0.500 > 0.2 <b>bold</b>", "source": "auto"}}


def mini_records() -> list[dict[str, Any]]:
    """p1: c1 100, c2 50 (failed), c3 80 and 60 (two repetitions), c4 error;
    p2: c1 90, c2 70, c3 40 (failed, text with a script tag), c4 not tested."""
    return [
        _record("p1", "c1", "passed", 100.0, genre="chat", text="Hello Maria"),
        _record("p1", "c2", "failed", 50.0, genre="chat", text="Hello world!",
                rules=copy.deepcopy(WER_FAIL), message="WER 0.500 > 0.2"),
        _record("p1", "c3", "passed", 80.0, genre="email", text="Send it"),
        _record("p1", "c3", "passed", 60.0, genre="email", text="Send it", repetition=2),
        _record("p1", "c4", "error", None, genre="email", text="",
                message="error: capture <timeout>"),
        _record("p2", "c1", "passed", 90.0, genre="chat", text="Hello Maria"),
        _record("p2", "c2", "passed", 70.0, genre="chat", text="Hello world"),
        _record("p2", "c3", "failed", 40.0, genre="email",
                text="<script>alert(1)</script>", rules=copy.deepcopy(WER_FAIL)),
        _record("p2", "c4", "not_tested", None, genre="email", text=None,
                message="no output"),
    ]


def mini_report() -> dict[str, Any]:
    """A one-suite report with a ranked and an unranked product, a missing canary, a
    canary leak, judging figures and one resolved comparison."""
    p1 = _entry("p1", passed=3, failed=1, errors=1, score=70.0,
                score_ci={"low": 50.0, "high": 90.0}, canary_leaks=["c1"],
                reason="<b>incomplete</b>: c4 & c5 missing",
                latency={"n": 3, "median": 612.0, "p95": 1180.5, "mean": 700.0,
                         "min": 300.0, "max": 1200.0},
                speed={"items": 3, "mean_rtf": 0.125, "rtfx": 8.5, "audio_seconds": 30.0},
                tables={"summary": {"wer": 0.25, "cer": 0.125, "strict_rate": 0.3,
                                    "threshold": 0.2, "unit": "word"}})
    p2 = _entry("p2", passed=2, failed=1, not_tested=1, score=66.666667,
                score_ci={"low": 40.0, "high": 90.0}, rank=1, pending_adjudications=1,
                tables={"summary": {"wer": 0.2, "cer": 0.1, "strict_rate": 0.25}},
                judging={"judges": ["judge-a", "judge-b"], "items_judged": 3, "pending": 1,
                         "spend": {}, "cost_usd": 0.0123,
                         "agreement": {"between": ["judge-a", "judge-b"],
                                       "overall": {"n": 10, "agreed": 8, "share": 0.8,
                                                   "kappa": 0.6},
                                       "rules": {}}})
    suite = {
        "id": "mini", "version": "1.0", "title": "Mini suite", "method": "error_rate",
        "headline": "wer", "locale": "en-US", "repetitions": 2,
        "canary": {"status": "missing", "missing_in": ["cases.jsonl"]},
        "ranking": {"metric": "wer", "higher_is_better": False, "decimals": 1,
                    "minimum_products": 2, "same_environment": ["os"],
                    "execution_gate": {"ready": True, "blocking_items": []}},
        "products": [p1, p2],
        "leaderboard": [
            {"product": "p2", "score": 66.666667, "rank": 1, "wer": 0.2, "cer": 0.1},
            {"product": "p1", "score": 70.0, "rank": None, "wer": 0.25, "cer": 0.125},
        ],
        "comparisons": [{
            "a": "p1", "b": "p2", "n": 3, "only_a_failed": 1, "only_b_failed": 1,
            "both_failed": 0, "mcnemar_p": 0.0004, "p_holm": 0.0008, "p_bonferroni": 0.0012,
            "mean_a": 70.0, "mean_b": 66.666667, "mean_difference": -3.333333,
            "interval": {"low": -8.0, "high": -2.0, "estimate": -3.333333}, "resolved": True,
        }],
    }
    return {"schema_version": 1,
            "statistics": {"resamples": 1000, "seed": 7,
                           "interval": "percentile bootstrap, 95%",
                           "p_adjustment": "Holm and Bonferroni across all comparisons"},
            "suites": [suite]}


#: Expected outputs of the mini suite: c2's closest is the second one.
MINI_EXPECTED = {"mini": {"c2": ["Completely different words here", "Hello world"],
                          "c3": ["Send it now"]}}
