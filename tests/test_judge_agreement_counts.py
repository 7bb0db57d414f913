"""Kappa over verdict codes only; insertion counts compared on their own (J1, J3)."""

from __future__ import annotations

import pytest

from pytest_dictbench.judge.audit import COUNT_RULES, agreement_table, count_agreement
from pytest_dictbench.judge.report import judges_table
from pytest_dictbench.methods.keypoints.guide import INSERTIONS_RULE


def test_the_keypoints_insertions_rule_is_a_count_rule() -> None:
    assert INSERTIONS_RULE in COUNT_RULES


def test_an_insertions_pair_does_not_change_the_pooled_kappa() -> None:
    # Two key-point pairs: p_o = 1/2, both judges' labels: a = {2: 2}, b = {1: 1, 2: 1}
    # -> p_e = (2*1)/4 = 1/2 -> kappa 0. Adding "0 insertions each" must not move it.
    table = agreement_table({"k1": [(2, 1), (2, 2)], "insertions": [(0, 0)]})
    assert table.overall.n == 2 and table.overall.kappa == 0.0
    assert "insertions" not in table.by_rule
    counts = table.counts["insertions"]
    assert (counts.n, counts.exact, counts.mean_abs_diff) == (1, 1, 0.0)


def test_counts_above_two_are_compared_without_error() -> None:
    # |3-3| = 0, |4-2| = 2 -> one exact match of two, mean absolute difference 1.0
    result = count_agreement([(3, 3), (4, 2)])
    assert result.to_json() == {"n": 2, "exact": 1, "share": 0.5, "mean_abs_diff": 1.0}
    assert count_agreement([]).to_json() == {"n": 0, "exact": 0, "share": None,
                                             "mean_abs_diff": None}


def test_judges_table_with_four_insertions_each() -> None:
    records = [{"judges": {"a": {"k1": 2, "k2": 2, "insertions": 4},
                           "b": {"k1": 2, "k2": 1, "insertions": 4}}},
               {"judges": {"a": {"k1": 0, "k2": 2, "insertions": 3},
                           "b": {"k1": 0, "k2": 2, "insertions": 5}}}]
    table = judges_table(records)
    assert table is not None
    agree = table["agreement"]
    # key points only: 4 pairs, 3 agree; a = {2: 3, 0: 1}, b = {2: 2, 1: 1, 0: 1}
    # p_e = (3*2 + 1*1)/16 = 7/16 -> kappa = (12 - 7)/(16 - 7) = 5/9
    assert agree["overall"]["n"] == 4
    assert agree["overall"]["kappa"] == pytest.approx(5 / 9, abs=1e-6)
    assert set(agree["rules"]) == {"k1", "k2"}
    assert agree["counts"]["insertions"] == {"n": 2, "exact": 1, "share": 0.5,
                                             "mean_abs_diff": 1.0}


def test_human_decision_on_insertions_is_a_count() -> None:
    records = [{"judges": {"a": {"k1": 2, "insertions": 3}, "b": {"k1": 2, "insertions": 3}},
                "rules": {"k1": {"score": 2, "source": "human"},
                          "insertions": {"score": 4, "source": "human"}}}]
    table = judges_table(records)
    assert table is not None
    assert table["human_agreement"]["a"]["n"] == 1  # k1 only
    assert table["human_agreement_counts"]["a"]["insertions"]["mean_abs_diff"] == 1.0
