"""Suite scores: median over repetitions, then mean over cases; errors never count."""

from __future__ import annotations

import pytest

from pytest_dictbench.aggregate import case_scores, record_sort_key


def rec(case: str, rep: int, score: float | None, status: str = "passed") -> dict:
    return {"suite": "s", "product": "p", "case_id": case, "repetition": rep,
            "score": score, "status": status}


def test_median_of_repetitions_then_mean_of_cases() -> None:
    records = [rec("c1", 1, 90), rec("c1", 2, 60), rec("c1", 3, 80),  # median 80
               rec("c2", 1, 0, "failed"), rec("c2", 2, 100),           # median 50
               rec("c3", 1, None, "error"), rec("c4", 1, None, "not_tested")]
    assert case_scores(records) == [80, 50]
    assert sum(case_scores(records)) / 2 == pytest.approx(65.0)


def test_record_order_is_suite_product_case_repetition() -> None:
    records = [rec("c2", 1, 1), rec("c1", 2, 1), rec("c1", 1, 1)]
    assert [(r["case_id"], r["repetition"]) for r in sorted(records, key=record_sort_key)] \
        == [("c1", 1), ("c1", 2), ("c2", 1)]
