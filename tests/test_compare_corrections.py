"""A suite's chosen correction applied to score gaps as well as to McNemar (issue 48)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pytest_dictbench import stats
from pytest_dictbench.compare import adjust_pvalues, compare_products, correct_gaps
from pytest_dictbench.report.comparison_text import corrected_table, resolved_head
from pytest_dictbench.schemas import validation_error

ROOT = Path(__file__).resolve().parents[1]


def rec(case: str, score: float) -> dict:
    return {"case_id": case, "repetition": 1, "score": score,
            "status": "failed" if score < 50 else "passed"}


def products() -> dict[str, list[dict]]:
    """``top`` beats ``low`` by far on 12 cases; ``mid`` is between, by little."""
    cases = [f"c{i:02d}" for i in range(12)]
    return {"top": [rec(c, 90 + i % 3) for i, c in enumerate(cases)],
            "mid": [rec(c, 88 + (i * 7) % 5) for i, c in enumerate(cases)],
            "low": [rec(c, 20 + (i * 5) % 11) for i, c in enumerate(cases)]}


def test_bonferroni_draws_every_gap_at_one_minus_alpha_over_m() -> None:
    by = products()
    comparisons = compare_products(by, resamples=2000, seed=4)
    correct_gaps(comparisons, by, "bonferroni", resamples=2000, seed=4)
    raw = [c["mcnemar_p"] for c in comparisons]
    for c, p in zip(comparisons, stats.bonferroni(raw), strict=True):
        adj = c["adjusted"]
        assert adj["confidence"] == pytest.approx(1 - 0.05 / 3)
        assert adj["label"] == "98.33% Bonferroni"
        assert adj["mcnemar_p"] == p
        a = sorted(by[c["a"]], key=lambda r: r["case_id"])
        b = sorted(by[c["b"]], key=lambda r: r["case_id"])
        plain = stats.paired_bootstrap([r["score"] for r in a], [r["score"] for r in b],
                                       2000, 4, 1 - 0.05 / 3)
        assert adj["interval"] == {"low": plain.low, "high": plain.high}
        assert adj["resolved"] == (not plain.contains(0.0))
        # wider than the unadjusted 95% interval
        assert adj["interval"]["low"] <= c["interval"]["low"]
    resolved = {(c["a"], c["b"]): c["adjusted"]["resolved"] for c in comparisons}
    assert resolved[("low", "mid")] and resolved[("low", "top")]


def test_holm_steps_down_in_the_order_of_the_bootstrap_p_and_stops() -> None:
    by = products()
    comparisons = compare_products(by, resamples=2000, seed=4)
    correct_gaps(comparisons, by, "holm", resamples=2000, seed=4)
    levels = {(c["a"], c["b"]): c["adjusted"]["confidence"] for c in comparisons}
    # low-mid and low-top are both far apart (bootstrap p 0): steps 1 and 2 at 1 - .05/3
    # and 1 - .05/2 (their order decided by index on a tie); mid-top last at 1 - .05/1
    assert sorted(levels[k] for k in (("low", "mid"), ("low", "top"))) == pytest.approx(
        [1 - 0.05 / 2, 1 - 0.05 / 3])
    assert levels[("mid", "top")] == pytest.approx(0.95)
    raw = [c["mcnemar_p"] for c in comparisons]
    assert [c["adjusted"]["mcnemar_p"] for c in comparisons] == stats.holm(raw)


def test_holm_keeps_the_stopping_level_and_resolves_nothing_after_it() -> None:
    same = [rec(f"c{i}", 60) for i in range(6)]
    by = {"a": same, "b": [rec(f"c{i}", 60 + (i % 2)) for i in range(6)], "c": same}
    comparisons = compare_products(by, resamples=500, seed=1)
    correct_gaps(comparisons, by, "holm", resamples=500, seed=1)
    # nothing is resolved: the step-down stops at its first step, 1 - .05/3, for all
    assert {round(c["adjusted"]["confidence"], 6) for c in comparisons} == {
        round(1 - 0.05 / 3, 6)}
    assert not any(c["adjusted"]["resolved"] for c in comparisons)


def test_the_reports_name_the_correction_in_the_column_heads() -> None:
    by = products()
    comparisons = compare_products(by, resamples=500, seed=4)
    adjust_pvalues(comparisons)
    suite = {"comparisons": comparisons}
    assert corrected_table(suite) is None and resolved_head(suite) == "resolved"
    correct_gaps(comparisons, by, "holm", resamples=500, seed=4)
    suite["correction"] = {"method": "holm", "family_alpha": 0.05}
    table = corrected_table(suite)
    assert table is not None
    assert table.head[3] == "interval (Holm over 3 pairs, family-wise 95%)"
    assert table.head[5:] == ("resolved (Holm)", "McNemar p (Holm over 3 pairs)")
    assert resolved_head(suite) == "resolved (unadjusted 95%)"


def test_a_suite_chooses_only_a_known_correction() -> None:
    manifest = tomllib.loads((ROOT / "cases/en-dictation/suite.toml").read_text())
    assert validation_error({**manifest, "comparisons": {"correction": "holm"}},
                            "suite.schema.json") is None
    assert validation_error({**manifest, "comparisons": {"correction": "sidak"}},
                            "suite.schema.json") is not None
    with pytest.raises(ValueError, match="unknown correction 'sidak'"):
        correct_gaps([{"a": "x", "b": "y", "mcnemar_p": 1.0}], {}, "sidak", resamples=1,
                     seed=1)
