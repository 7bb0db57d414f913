"""Tests for pytest_dictbench.stats: Student t quantiles, bootstrap and t intervals, and
paired comparisons.

Independent references: closed forms of the t quantile, scipy.stats (t, bootstrap), and
a pure-Python bootstrap loop that takes the same generator draws one at a time.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

import pytest_dictbench.stats._intervals as intervals_module
from pytest_dictbench.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    compare_paired,
    mean_ci,
    paired_bootstrap,
    student_t_quantile,
)


def _scores(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two aligned score vectors on a 0-100 scale, B a little better than A."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 101, size=n).astype(float)
    b = np.clip(a + rng.normal(2.0, 12.0, size=n), 0, 100)
    return a, b


def _loop_bootstrap(
    values: list[float], resamples: int, seed: int, confidence: float
) -> tuple[float, float]:
    """Straightforward percentile bootstrap: one scalar draw per picked item, means with
    math.fsum, type-7 percentiles from the sorted means written out by hand."""
    rng = np.random.default_rng(seed)
    n = len(values)
    means = []
    for _ in range(resamples):
        picks = [values[int(rng.integers(0, n))] for _ in range(n)]
        means.append(math.fsum(picks) / n)
    means.sort()

    def at(q: float) -> float:
        position = (resamples - 1) * q
        below = math.floor(position)
        above = min(below + 1, resamples - 1)
        return means[below] + (position - below) * (means[above] - means[below])

    alpha = (1 - confidence) / 2
    return at(alpha), at(1 - alpha)


# --------------------------------------------------------------------------------------
# Student t quantile
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.51, 0.6, 0.75, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9995])
def test_t_quantile_closed_forms(p: float) -> None:
    # df = 1 (Cauchy): tan(pi (p - 1/2)).
    assert student_t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-12)
    # df = 2: (2p - 1) / sqrt(2 p (1 - p)).
    closed_two = (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    assert student_t_quantile(p, 2) == pytest.approx(closed_two, rel=1e-12)
    # df = 4: with a = 4 p (1 - p) and theta = arccos(sqrt(a)),
    # t = 2 sqrt(cos(theta / 3) / sqrt(a) - 1) for p > 1/2.
    a = 4 * p * (1 - p)
    closed_four = 2 * math.sqrt(math.cos(math.acos(math.sqrt(a)) / 3) / math.sqrt(a) - 1)
    assert student_t_quantile(p, 4) == pytest.approx(closed_four, rel=1e-11)


def test_t_quantile_matches_scipy() -> None:
    for df in (1, 1.5, 2, 3, 5, 9, 10, 29, 30, 99, 130, 1000, 10_000, 100_000):
        for p in (0.55, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9999):
            reference = float(scipy_stats.t.ppf(p, df))
            assert student_t_quantile(p, df) == pytest.approx(reference, rel=1e-8), (df, p)
            assert student_t_quantile(1 - p, df) == pytest.approx(-reference, rel=1e-8)


def test_t_quantile_table_values_and_errors() -> None:
    # Printed tables: t(0.975, 10) = 2.228, t(0.995, 30) = 2.750, t(0.95, 1) = 6.314.
    assert round(student_t_quantile(0.975, 10), 3) == 2.228
    assert round(student_t_quantile(0.995, 30), 3) == 2.750
    assert round(student_t_quantile(0.95, 1), 3) == 6.314
    assert student_t_quantile(0.5, 7) == 0.0
    for p, df in ((0.0, 3), (1.0, 3), (0.9, 0), (0.9, math.inf), (math.nan, 3)):
        with pytest.raises(ValueError):
            student_t_quantile(p, df)


# --------------------------------------------------------------------------------------
# Paired bootstrap
# --------------------------------------------------------------------------------------


def test_paired_bootstrap_is_deterministic_and_records_its_settings() -> None:
    a, b = _scores(1, 131)
    first = paired_bootstrap(a, b)
    assert first == paired_bootstrap(list(a), list(b))
    assert (first.resamples, first.seed) == (DEFAULT_RESAMPLES, DEFAULT_SEED) == (10_000, 20261129)
    assert (first.confidence, first.method) == (0.95, "bootstrap")
    other = paired_bootstrap(a, b, seed=DEFAULT_SEED + 1)
    assert (other.low, other.high) != (first.low, first.high)
    assert other.estimate == first.estimate


def test_paired_bootstrap_estimate_and_containment() -> None:
    a, b = _scores(2, 131)
    interval = paired_bootstrap(a, b)
    assert interval.estimate == pytest.approx(math.fsum(b - a) / 131, rel=1e-12)
    assert interval.low < interval.estimate < interval.high
    assert interval.contains(interval.estimate)
    narrower = paired_bootstrap(a, b, confidence=0.5)
    assert interval.low < narrower.low < narrower.high < interval.high


def test_paired_bootstrap_matches_a_pure_python_loop_with_the_same_draws() -> None:
    a, b = _scores(3, 15)
    differences = list(b - a)
    for confidence in (0.95, 0.8):
        interval = paired_bootstrap(a, b, resamples=1500, seed=99, confidence=confidence)
        low, high = _loop_bootstrap(differences, 1500, 99, confidence)
        assert interval.low == pytest.approx(low, rel=1e-12, abs=1e-12)
        assert interval.high == pytest.approx(high, rel=1e-12, abs=1e-12)


def test_paired_bootstrap_matches_scipy_bootstrap() -> None:
    # scipy.stats.bootstrap, paired, percentile method, draws from the same generator.
    a, b = _scores(4, 131)
    result = scipy_stats.bootstrap(
        (a, b),
        lambda x, y, axis: np.mean(y - x, axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=10_000,
        method="percentile",
        rng=np.random.default_rng(DEFAULT_SEED),
    )
    interval = paired_bootstrap(a, b)
    assert interval.low == pytest.approx(result.confidence_interval.low, rel=1e-12)
    assert interval.high == pytest.approx(result.confidence_interval.high, rel=1e-12)


@pytest.mark.parametrize("block_entries", [1, 7, 1000, 1 << 24])
def test_paired_bootstrap_does_not_depend_on_block_size(
    monkeypatch: pytest.MonkeyPatch, block_entries: int
) -> None:
    a, b = _scores(5, 40)
    reference = paired_bootstrap(a, b, resamples=3001)
    monkeypatch.setattr(intervals_module, "_BLOCK_ENTRIES", block_entries)
    assert paired_bootstrap(a, b, resamples=3001) == reference


def test_paired_bootstrap_degenerate_inputs() -> None:
    same = [10.0, 55.0, 100.0, 0.0]
    assert paired_bootstrap(same, same) == Interval(0.0, 0.0, 0.0, 10_000, 20261129)
    shifted = paired_bootstrap([50.0], [62.5], resamples=50)  # one item: every resample
    assert (shifted.low, shifted.high, shifted.estimate) == (12.5, 12.5, 12.5)
    with pytest.raises(ValueError, match="no items"):
        paired_bootstrap([], [])
    with pytest.raises(ValueError, match="3 values in a and 2 in b"):
        paired_bootstrap([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match=r"b\[1\]"):
        paired_bootstrap([1, 2], [1, math.nan])
    for resamples in (0, -5, 2.5, True):
        with pytest.raises(ValueError, match="resamples"):
            paired_bootstrap([1, 2], [2, 3], resamples=resamples)  # type: ignore[arg-type]
    for confidence in (0.0, 1.0, 95):
        with pytest.raises(ValueError, match="confidence"):
            paired_bootstrap([1, 2], [2, 3], confidence=confidence)


# --------------------------------------------------------------------------------------
# Mean confidence interval
# --------------------------------------------------------------------------------------


def test_mean_ci_t_hand_value() -> None:
    # [1, 2, 3]: mean 2, s = 1, se = 1/sqrt(3); t(0.975, 2) = 0.95 / sqrt(2 * 0.975 * 0.025)
    # = 4.3026527...; half width = 4.3026527 / 1.7320508 = 2.4841377.
    interval = mean_ci([3.0, 1.0, 2.0], method="t")
    assert interval.estimate == 2.0
    assert interval.low == pytest.approx(2 - 2.4841377, abs=1e-7)
    assert interval.high == pytest.approx(2 + 2.4841377, abs=1e-7)
    assert (interval.method, interval.resamples, interval.seed) == ("t", 0, None)


def test_mean_ci_t_matches_scipy() -> None:
    rng = np.random.default_rng(6)
    for n in (2, 3, 10, 131, 2000):
        values = rng.uniform(0, 100, size=n)
        for confidence in (0.9, 0.95, 0.99):
            low, high = scipy_stats.t.interval(
                confidence, n - 1, loc=values.mean(), scale=scipy_stats.sem(values)
            )
            interval = mean_ci(values, confidence=confidence, method="t")
            assert interval.low == pytest.approx(low, rel=1e-9)
            assert interval.high == pytest.approx(high, rel=1e-9)


def test_mean_ci_bootstrap_matches_scipy_and_the_loop() -> None:
    values = np.random.default_rng(7).uniform(0, 100, size=60)
    result = scipy_stats.bootstrap(
        (values,),
        np.mean,
        n_resamples=10_000,
        method="percentile",
        rng=np.random.default_rng(DEFAULT_SEED),
    )
    interval = mean_ci(values)
    assert interval.low == pytest.approx(result.confidence_interval.low, rel=1e-12)
    assert interval.high == pytest.approx(result.confidence_interval.high, rel=1e-12)
    small = mean_ci(values[:12], resamples=800, seed=3)
    assert (small.low, small.high) == pytest.approx(
        _loop_bootstrap(list(values[:12]), 800, 3, 0.95), rel=1e-12
    )


def test_mean_ci_degenerate_inputs() -> None:
    assert mean_ci([70.0, 70.0, 70.0], method="t") == Interval(70.0, 70.0, 70.0, 0, None, 0.95, "t")
    single = mean_ci([42.0])
    assert (single.low, single.high, single.estimate) == (42.0, 42.0, 42.0)
    with pytest.raises(ValueError, match="at least 2"):
        mean_ci([42.0], method="t")
    with pytest.raises(ValueError, match="no items"):
        mean_ci([])
    with pytest.raises(ValueError, match="unknown interval method"):
        mean_ci([1.0, 2.0], method="bca")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# Paired comparison
# --------------------------------------------------------------------------------------


def test_compare_paired_reproduces_a_five_versus_seven_split() -> None:
    # 20 items: 0-4 only A fails, 5-11 only B fails, 12-17 both fail, 18-19 neither.
    # Failed items score 0, others 100, so b - a is +100 five times and -100 seven times:
    # mean difference (500 - 700) / 20 = -10; mean A = 100 * 9 / 20 = 45, mean B = 55 - 20 = 35.
    failed_a = [True] * 5 + [False] * 7 + [True] * 6 + [False] * 2
    failed_b = [False] * 5 + [True] * 7 + [True] * 6 + [False] * 2
    scores_a = [0.0 if failed else 100.0 for failed in failed_a]
    scores_b = [0.0 if failed else 100.0 for failed in failed_b]
    result = compare_paired(scores_a, scores_b, failed_a, failed_b, resamples=4000, seed=11)
    interval = paired_bootstrap(scores_a, scores_b, resamples=4000, seed=11)
    assert result == {
        "n": 20,
        "only_a_failed": 5,
        "only_b_failed": 7,
        "both_failed": 6,
        "mcnemar_p": 3172 / 4096,  # see test_mcnemar_published_vectors
        "mean_a": 45.0,
        "mean_b": 35.0,
        "mean_difference": -10.0,
        "interval": interval.as_dict(),
        "resolved": False,
    }
    assert interval.low < 0 < interval.high
    json.dumps(result)  # plain data, ready for the JSON report


def test_compare_paired_resolved_difference() -> None:
    # B scores 20-40 points higher on each of 12 items; A fails 10 of them, B none:
    # McNemar n = 10, p = 2 * P(X <= 0) = 2 / 1024.
    rng = np.random.default_rng(8)
    scores_a = list(rng.uniform(30, 60, size=12))
    scores_b = [s + float(rng.uniform(20, 40)) for s in scores_a]
    result = compare_paired(scores_a, scores_b, [True] * 10 + [False] * 2, [False] * 12)
    assert (result["only_a_failed"], result["only_b_failed"], result["both_failed"]) == (10, 0, 0)
    assert result["mcnemar_p"] == 2 / 1024
    assert result["interval"]["low"] >= 20.0 and result["resolved"] is True
    assert result["interval"]["seed"] == DEFAULT_SEED


def test_compare_paired_rejects_misaligned_inputs() -> None:
    with pytest.raises(ValueError, match="failed_b=2"):
        compare_paired([1, 2, 3], [1, 2, 3], [False] * 3, [False] * 2)
