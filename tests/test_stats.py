"""Tests for pytest_dictbench.stats: tests of significance, corrections, agreement,
percentiles, rounding and ranking. Intervals and paired comparisons are in
test_stats_intervals.py.

Every expected value is either worked out by hand in a comment or computed by an
independent implementation (scipy, numpy, or a from-the-definition loop written here).
"""

from __future__ import annotations

import doctest
import importlib
import itertools
import math

import numpy as np
import pytest
from scipy.stats import binomtest

from pytest_dictbench.stats import (
    bonferroni,
    cohen_kappa,
    competition_ranks,
    holm,
    latency_summary,
    mcnemar_exact,
    percentile,
    round_half_away,
)

STATS_MODULES = [
    "_agreement",
    "_descriptive",
    "_intervals",
    "_paired",
    "_ranking",
    "_significance",
    "_student_t",
]


@pytest.mark.parametrize("module_name", STATS_MODULES)
def test_docstring_examples_run_and_hold(module_name: str) -> None:
    module = importlib.import_module(f"pytest_dictbench.stats.{module_name}")
    result = doctest.testmod(module, verbose=False)
    assert result.attempted > 0, "every stats module should show a runnable example"
    assert result.failed == 0


# --------------------------------------------------------------------------------------
# McNemar
# --------------------------------------------------------------------------------------


def test_mcnemar_published_vectors() -> None:
    # 5 vs 7: n = 12, P(X <= 5) = (1 + 12 + 66 + 220 + 495 + 792) / 4096 = 1586 / 4096,
    # doubled: 3172 / 4096 = 0.7744140625 -> 0.774 as published.
    assert mcnemar_exact(5, 7) == 0.7744140625
    assert round(mcnemar_exact(5, 7), 3) == 0.774
    # 2 vs 1: n = 3, P(X <= 1) = (1 + 3) / 8 = 0.5, doubled = 1.0 -> 1.000 as published.
    assert mcnemar_exact(2, 1) == 1.0
    # 6 vs 47 was published as "< 0.001".
    assert mcnemar_exact(6, 47) < 0.001


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (0, 0, 1.0),  # no discordant item: no evidence
        (0, 1, 1.0),  # P(X <= 0) = 1/2, doubled = 1
        (0, 5, 0.0625),  # 2 * 1/32
        (1, 9, 0.021484375),  # P(X <= 1) = (1 + 10) / 1024, doubled = 22 / 1024
        (3, 3, 1.0),  # P(X <= 3) = 42/64 > 1/2, doubled and capped at 1
        (0, 20, 2.0 / 2**20),
    ],
)
def test_mcnemar_hand_values(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == expected
    assert mcnemar_exact(c, b) == expected


def test_mcnemar_matches_scipy_binomtest_on_a_grid() -> None:
    pairs = [(b, c) for b in range(31) for c in range(31) if b + c > 0]
    pairs += [(120, 170), (480, 520), (700, 640), (1, 2000)]
    for b, c in pairs:
        reference = binomtest(b, b + c, 0.5, alternative="two-sided").pvalue
        assert mcnemar_exact(b, c) == pytest.approx(reference, rel=1e-11, abs=1e-300), (b, c)


def test_mcnemar_rejects_bad_counts() -> None:
    with pytest.raises(ValueError, match="b=-1"):
        mcnemar_exact(-1, 3)
    with pytest.raises(TypeError):
        mcnemar_exact(1.5, 3)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# Holm and Bonferroni
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pvalues", "expected_holm", "expected_bonferroni"),
    [
        # Sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04,
        # raised to the running max 0.06). Bonferroni: each x4.
        ([0.01, 0.04, 0.03, 0.005], [0.03, 0.06, 0.06, 0.02], [0.04, 0.16, 0.12, 0.02]),
        # Sorted: 0.01 (x3 = 0.03), 0.2 (x2 = 0.4), 0.6 (x1 = 0.6). Bonferroni caps 1.8.
        ([0.2, 0.6, 0.01], [0.4, 0.6, 0.03], [0.6, 1.0, 0.03]),
        # Monotonicity: 0.03 x2 = 0.06, then 0.04 x1 = 0.04 is raised to 0.06.
        ([0.04, 0.03], [0.06, 0.06], [0.08, 0.06]),
        # Ties: 0.01 x3 = 0.03, 0.01 x2 = 0.02 -> 0.03, 0.5 x1 = 0.5.
        ([0.01, 0.01, 0.5], [0.03, 0.03, 0.5], [0.03, 0.03, 1.0]),
        # The textbook vector (statsmodels multipletests gives the same): 0.01 x5 = 0.05,
        # 0.02 x4 = 0.08, 0.03 x3 = 0.09, 0.04 x2 = 0.08 -> 0.09, 0.05 x1 -> 0.09.
        (
            [0.01, 0.02, 0.03, 0.04, 0.05],
            [0.05, 0.08, 0.09, 0.09, 0.09],
            [0.05, 0.1, 0.15, 0.2, 0.25],
        ),
        ([0.3], [0.3], [0.3]),
        ([], [], []),
        ([0.0, 1.0], [0.0, 1.0], [0.0, 1.0]),
    ],
)
def test_holm_and_bonferroni_hand_vectors(
    pvalues: list[float], expected_holm: list[float], expected_bonferroni: list[float]
) -> None:
    assert holm(pvalues) == pytest.approx(expected_holm, abs=1e-15)
    assert bonferroni(pvalues) == pytest.approx(expected_bonferroni, abs=1e-15)


def _holm_rejections(pvalues: list[float], alpha: float) -> set[int]:
    """Holm's step-down procedure as written in textbooks: walk the p-values upwards and
    reject while the k-th smallest (k from 1) is at most alpha / (m - k + 1)."""
    m = len(pvalues)
    rejected: set[int] = set()
    for k, index in enumerate(sorted(range(m), key=lambda i: pvalues[i]), start=1):
        if pvalues[index] > alpha / (m - k + 1):
            break
        rejected.add(index)
    return rejected


def test_holm_adjusted_values_reproduce_the_step_down_procedure() -> None:
    # Independent definition: H_i is rejected at level alpha by the step-down procedure
    # exactly when its adjusted p-value is <= alpha.
    rng = np.random.default_rng(7)
    for trial in range(300):
        m = int(rng.integers(1, 12))
        pvalues = list(rng.uniform(0, 0.2, size=m) ** (1 + trial % 3))
        adjusted = holm(pvalues)
        for alpha in (0.001, 0.01, 0.05, 0.1, 0.2):
            if any(abs(a - alpha) < 1e-12 for a in adjusted):
                continue  # boundary: multiplication and division may round apart
            expected = _holm_rejections(pvalues, alpha)
            assert {i for i, a in enumerate(adjusted) if a <= alpha} == expected
        assert all(a >= p for a, p in zip(adjusted, pvalues, strict=True))
        assert all(h <= b for h, b in zip(adjusted, bonferroni(pvalues), strict=True))


@pytest.mark.parametrize("bad", [1.5, -0.1, math.nan])
def test_corrections_reject_invalid_pvalues(bad: float) -> None:
    with pytest.raises(ValueError, match="#1"):
        holm([0.1, bad])
    with pytest.raises(ValueError, match="#1"):
        bonferroni([0.1, bad])


# --------------------------------------------------------------------------------------
# Cohen's kappa
# --------------------------------------------------------------------------------------


def _from_table(table: list[list[int]], labels: list[object]) -> tuple[list[object], list[object]]:
    """Rater label lists whose cross-tabulation (rows: a, columns: b) is ``table``."""
    a: list[object] = []
    b: list[object] = []
    for row_label, row in zip(labels, table, strict=True):
        for column_label, count in zip(labels, row, strict=True):
            a += [row_label] * count
            b += [column_label] * count
    return a, b


def test_kappa_two_by_two_table() -> None:
    # [[20, 5], [10, 15]], n = 50: p_o = 35/50 = 0.7; rows 25, 25; columns 30, 20;
    # p_e = (25*30 + 25*20) / 2500 = 0.5; kappa = (0.7 - 0.5) / 0.5 = 0.4.
    a, b = _from_table([[20, 5], [10, 15]], ["pass", "fail"])
    assert cohen_kappa(a, b) == pytest.approx(0.4, abs=1e-15)
    assert cohen_kappa(b, a) == pytest.approx(0.4, abs=1e-15)


def test_kappa_three_by_three_table_of_rule_scores() -> None:
    # [[10, 2, 0], [3, 8, 1], [0, 2, 14]], n = 40: agreed 32, p_o = 0.8;
    # rows 12, 12, 16; columns 13, 12, 15; p_e = (156 + 144 + 240) / 1600 = 0.3375;
    # kappa = 0.4625 / 0.6625 = 37/53.
    a, b = _from_table([[10, 2, 0], [3, 8, 1], [0, 2, 14]], [0, 1, 2])
    assert cohen_kappa(a, b) == 37 / 53
    assert cohen_kappa(a, b, labels=[0, 1, 2]) == 37 / 53
    # Shuffling the items together changes nothing.
    order = np.random.default_rng(1).permutation(len(a))
    assert cohen_kappa([a[i] for i in order], [b[i] for i in order]) == 37 / 53


def test_kappa_edge_values() -> None:
    # Total disagreement on a balanced 2x2: p_o = 0, p_e = 0.5 -> kappa = -1.
    assert cohen_kappa([0, 1], [1, 0]) == -1.0
    # Agreement exactly at chance: [[1, 1], [1, 1]] -> p_o = 0.5 = p_e -> 0.
    a, b = _from_table([[1, 1], [1, 1]], [0, 1])
    assert cohen_kappa(a, b) == 0.0
    # Perfect agreement, several categories and a single category: 1.0 by decision.
    assert cohen_kappa([0, 1, 2, 2], [0, 1, 2, 2]) == 1.0
    assert cohen_kappa([2, 2, 2], [2, 2, 2]) == 1.0
    # One rater constant, the other not: p_o = 2/3, rows {2: 3}, columns {2: 2, 1: 1},
    # p_e = 3*2 / 9 = 2/3 -> kappa = 0.
    assert cohen_kappa([2, 2, 2], [2, 2, 1]) == 0.0


def test_kappa_matches_a_confusion_matrix_implementation() -> None:
    rng = np.random.default_rng(11)
    for _ in range(50):
        n = int(rng.integers(2, 60))
        a = list(rng.integers(0, 3, size=n))
        b = [x if rng.random() < 0.6 else int(rng.integers(0, 3)) for x in a]
        matrix = np.zeros((3, 3))
        for x, y in zip(a, b, strict=True):
            matrix[x, y] += 1
        matrix /= n
        observed = np.trace(matrix)
        expected = float(matrix.sum(axis=1) @ matrix.sum(axis=0))
        reference = 1.0 if observed == 1.0 else (observed - expected) / (1 - expected)
        assert cohen_kappa(a, b) == pytest.approx(reference, rel=1e-12, abs=1e-12)


def test_kappa_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="3 and 2"):
        cohen_kappa([0, 1, 2], [0, 1])
    with pytest.raises(ValueError, match="at least one"):
        cohen_kappa([], [])
    with pytest.raises(ValueError, match=r"b\[1\] is 3"):
        cohen_kappa([0, 1], [0, 3], labels=[0, 1, 2])


# --------------------------------------------------------------------------------------
# Percentiles and latency
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        (0, 10.0),
        (25, 20.0),  # h = 4 * 0.25 = 1 -> x[1]
        (50, 30.0),
        (95, 48.0),  # h = 3.8 -> 40 + 0.8 * 10
        (99, 49.6),  # h = 3.96 -> 40 + 0.96 * 10
        (100, 50.0),
    ],
)
def test_percentile_hand_values(q: float, expected: float) -> None:
    assert percentile([50, 10, 40, 20, 30], q) == pytest.approx(expected, abs=1e-12)


def test_percentile_matches_numpy_linear() -> None:
    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 7, 20, 101):
        values = rng.lognormal(6, 1, size=n)
        for q in (0, 1, 5, 25, 50, 66.6, 90, 95, 99, 100):
            expected = float(np.percentile(values, q))  # default method "linear"
            assert percentile(list(values), q) == pytest.approx(expected, rel=1e-12)


def test_percentile_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="empty"):
        percentile([], 50)
    with pytest.raises(ValueError, match=r"\[0, 100\]"):
        percentile([1.0], 101)
    with pytest.raises(ValueError, match="finite"):
        percentile([1.0, math.inf], 50)


def test_latency_summary_hand_values() -> None:
    # Sorted 100, 200, 300, 400: median h = 1.5 -> 250; p95 h = 2.85 -> 300 + 85 = 385.
    summary = latency_summary([400, 100, 300, 200])
    assert summary == {
        "n": 4,
        "median": 250.0,
        "p95": pytest.approx(385.0, abs=1e-12),
        "mean": 250.0,
        "min": 100.0,
        "max": 400.0,
    }
    assert latency_summary([934.0]) == {
        "n": 1,
        "median": 934.0,
        "p95": 934.0,
        "mean": 934.0,
        "min": 934.0,
        "max": 934.0,
    }


def test_latency_summary_matches_numpy() -> None:
    values = list(np.random.default_rng(5).gamma(2.0, 500.0, size=57))
    summary = latency_summary(values)
    assert summary["n"] == 57
    assert summary["median"] == pytest.approx(float(np.median(values)), rel=1e-12)
    assert summary["p95"] == pytest.approx(float(np.percentile(values, 95)), rel=1e-12)
    assert summary["mean"] == pytest.approx(float(np.mean(values)), rel=1e-12)
    assert (summary["min"], summary["max"]) == (min(values), max(values))


def test_latency_summary_empty_and_invalid() -> None:
    assert latency_summary([]) == {
        "n": 0,
        "median": None,
        "p95": None,
        "mean": None,
        "min": None,
        "max": None,
    }
    with pytest.raises(ValueError, match="negative"):
        latency_summary([10.0, -1.0])
    with pytest.raises(ValueError, match="finite"):
        latency_summary([math.nan])


# --------------------------------------------------------------------------------------
# Rounding and ranking
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "decimals", "expected"),
    [
        (2.675, 2, 2.68),  # round() gives 2.67: the double is just below 2.675
        (0.5, 0, 1.0),  # round() gives 0 (half to even)
        (1.5, 0, 2.0),
        (2.5, 0, 3.0),  # round() gives 2
        (-2.5, 0, -3.0),
        (0.125, 2, 0.13),  # exactly representable half; round() gives 0.12
        (-0.125, 2, -0.13),
        (1.0000005, 6, 1.000001),
        (0.1234565, 6, 0.123457),
        (0.30000000000000004, 6, 0.3),
        (123.456, 0, 123.0),
        (1e20, 10, 1e20),
        (5e-324, 2, 0.0),
    ],
)
def test_round_half_away_hand_values(x: float, decimals: int, expected: float) -> None:
    assert round_half_away(x, decimals) == expected


def test_round_half_away_on_exact_halves() -> None:
    # k + 0.5 is exact in binary; away from zero means k + 1 for k >= 0 and k for k < 0.
    for k in range(-50, 50):
        assert round_half_away(k + 0.5, 0) == (k + 1 if k >= 0 else k)


def test_round_half_away_zero_sign_and_non_finite() -> None:
    result = round_half_away(-0.0001, 2)
    assert result == 0.0 and math.copysign(1.0, result) == 1.0
    assert math.isnan(round_half_away(math.nan, 2))
    assert round_half_away(-math.inf, 2) == -math.inf
    with pytest.raises(ValueError, match="decimals"):
        round_half_away(1.0, -1)


def test_competition_ranks_hand_example() -> None:
    # Rounded to 3 places: a 0.1235 -> 0.124, b 0.1234999 -> 0.123, c 0.2 -> 0.2.
    values = {"a": 0.1235, "b": 0.1234999, "c": 0.2}
    assert competition_ranks(values, higher_is_better=True, decimals=3) == {
        "c": 1,
        "a": 2,
        "b": 3,
    }
    assert competition_ranks(values, higher_is_better=False, decimals=3) == {
        "b": 1,
        "a": 2,
        "c": 3,
    }


def test_competition_ranks_ties_on_reported_values_not_raw_floats() -> None:
    # 0.1 + 0.2 != 0.3 as floats but both print 0.300000; 0.3000005 rounds up to 0.300001.
    values = {"sum": 0.1 + 0.2, "plain": 0.3, "up": 0.3000005, "low": 0.1}
    assert competition_ranks(values, True, 6) == {"up": 1, "plain": 2, "sum": 2, "low": 4}
    assert competition_ranks(values, False, 6) == {"low": 1, "plain": 2, "sum": 2, "up": 4}
    # At 5 places all three near 0.3 tie, so the next rank is 4 (1, 1, 1, 4).
    assert competition_ranks(values, True, 5) == {"plain": 1, "sum": 1, "up": 1, "low": 4}


def test_competition_ranks_do_not_depend_on_input_order() -> None:
    values = {"p": 71.7, "q": 75.1, "r": 66.3, "s": 66.25, "t": 48.0}
    # At one place: q 75.1 (1), p 71.7 (2), r 66.3 and s 66.25 -> 66.3 (3, 3), t 48.0 (5).
    expected = [("q", 1), ("p", 2), ("r", 3), ("s", 3), ("t", 5)]
    for permutation in itertools.permutations(values):
        shuffled = {name: values[name] for name in permutation}
        assert list(competition_ranks(shuffled, True, 1).items()) == expected


def test_competition_ranks_edge_cases() -> None:
    assert competition_ranks({}, True, 2) == {}
    assert competition_ranks({"only": 3.0}, False, 2) == {"only": 1}
    with pytest.raises(ValueError, match="'x'"):
        competition_ranks({"x": math.nan}, True, 2)
