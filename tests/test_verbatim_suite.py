"""The shipped ``cases/en-verbatim`` suite: well-formed, hashed, canaried, usable gold."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

import pytest

from pytest_dictbench.methods.verbatim import (
    DISFLUENCY_TYPES,
    Verbatim,
    case_problems,
    gold_labels,
)
from pytest_dictbench.model import Output, ScoreContext, Suite
from pytest_dictbench.suites import load_suite

ROOT = Path(__file__).resolve().parents[1] / "cases" / "en-verbatim"
CANARY = "DICTBENCH-CANARY en-verbatim 6f1d2c9e-4b7a-4c35-9e8f-0a2b5d7c1e43"


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(ROOT, lambda m: "case-verbatim.schema.json" if m == "verbatim" else None)


def test_manifest(suite: Suite) -> None:
    assert (suite.id, suite.method, suite.locale, suite.canary) == (
        "en-verbatim", "verbatim", "en-US", CANARY)
    assert suite.params["vwer_threshold"] == 0.25
    assert len(suite.cases) >= 40


def test_listed_digest_matches_the_cases_file(suite: Suite) -> None:
    entry, *audio = suite.files
    assert entry.path == "cases.jsonl"
    assert hashlib.sha256((ROOT / "cases.jsonl").read_bytes()).hexdigest() == entry.sha256
    assert [a.path for a in audio] == [f"audio/{c.id}.flac" for c in suite.cases]


def test_canary_on_every_line(suite: Suite) -> None:
    lines = (ROOT / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(CANARY in line for line in lines)
    assert all(case.get("canary") == CANARY for case in suite.cases)


def test_every_case_is_usable_gold(suite: Suite) -> None:
    # deletions only, no digits, no markers left in the intended text
    assert case_problems(suite.cases) == {}
    assert not any(re.search(r"[0-9]", c.get("verbatim") + c.get("intended"))
                   for c in suite.cases)


def test_suite_is_rich_in_every_type(suite: Suite) -> None:
    found: Counter[str] = Counter()
    for case in suite.cases:
        found.update(gold_labels(case.get("verbatim"), case.get("intended")).labels)
    assert all(found[t] >= 8 for t in DISFLUENCY_TYPES), found


def test_tags_match_the_gold_labels(suite: Suite) -> None:
    for case in suite.cases:
        labels = set(gold_labels(case.get("verbatim"), case.get("intended")).labels)
        assert set(case.tags) == ({t for t in DISFLUENCY_TYPES if t in labels}
                                  or {"fluent_only"}), case.id


def test_verbatim_output_scores_100_and_intended_output_0(suite: Suite) -> None:
    method, ctx = Verbatim(), ScoreContext(suite=suite)
    for case in suite.cases:
        exact = method.score(case, Output(case.id, case.get("verbatim")), ctx)
        assert (exact.passed, exact.score) == (True, 100.0), case.id
        clean = method.score(case, Output(case.id, case.get("intended")), ctx)
        has_gold = clean.metrics["disfluency_fn"] > 0
        assert clean.score == (0.0 if has_gold else 100.0), case.id
