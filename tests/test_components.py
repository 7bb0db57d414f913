"""Per-component paired comparisons, relative spend and latency, and their sentences
(issue 48): figures checked against hand counts and against an independent loop over the
same bootstrap draws."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_dictbench import stats
from pytest_dictbench.components import component_comparisons, relative_changes
from pytest_dictbench.report.comparison_text import component_table, pair_sentences


def journal(case: str, score: float, *, names_f1: float, applies: bool, recall: float,
            precision: float, latency: float, cost: float | None = None) -> dict:
    record = {"case_id": case, "repetition": 1, "score": score, "status": "passed",
              "latency_ms": latency,
              "metrics": {"names_f1": names_f1, "names_applies": int(applies),
                          "recall": recall, "precision": precision,
                          "fbeta": 2 * recall * precision / (recall + precision)}}
    if cost is not None:
        record["asr_cost_usd"] = cost
    return record


# Thinking on (a) against thinking off (b): b misses names, gains precision, costs and
# waits less. Names apply on c1-c3 only (c4 has no name on either side).
A = [journal("c1", 80, names_f1=1.0, applies=True, recall=0.8, precision=0.7, latency=1000,
             cost=0.010),
     journal("c2", 70, names_f1=0.5, applies=True, recall=0.9, precision=0.6, latency=2000,
             cost=0.020),
     journal("c3", 90, names_f1=1.0, applies=True, recall=1.0, precision=0.8, latency=3000,
             cost=0.030),
     journal("c4", 60, names_f1=0.0, applies=False, recall=0.7, precision=0.7, latency=4000,
             cost=0.040)]
B = [journal("c1", 75, names_f1=0.5, applies=True, recall=0.8, precision=0.9, latency=500,
             cost=0.004),
     journal("c2", 65, names_f1=0.0, applies=True, recall=0.9, precision=0.8, latency=1000,
             cost=0.008),
     journal("c3", 85, names_f1=0.5, applies=True, recall=1.0, precision=1.0, latency=1500,
             cost=0.012),
     journal("c4", 60, names_f1=0.0, applies=False, recall=0.7, precision=0.9, latency=2000,
             cost=0.016)]


def test_mean_components_match_a_hand_count() -> None:
    rows = {r["component"]: r for r in component_comparisons(A, B, "keypoints",
                                                              resamples=2000, seed=7)}
    names = rows["names_f1"]
    # names F1 over the cases where names apply (c1-c3): a (1 + .5 + 1)/3, b (.5 + 0 + .5)/3
    assert (names["a"], names["b"]) == pytest.approx((2.5 / 3, 1 / 3))
    assert names["difference"] == pytest.approx(-0.5)
    # every applying case lost exactly 0.5: the interval is a point
    assert names["interval"] == pytest.approx({"low": -0.5, "high": -0.5})
    assert names["moved"] == "worse"
    precision = rows["precision"]
    # (.7 + .6 + .8 + .7)/4 = .7 against (.9 + .8 + 1 + .9)/4 = .9: +0.2 on every case
    assert (precision["a"], precision["b"], precision["difference"]) == pytest.approx(
        (0.7, 0.9, 0.2))
    assert precision["moved"] == "better"
    assert rows["recall"]["difference"] == 0 and rows["recall"]["moved"] == "-"
    assert [r["n"] for r in rows.values()] == [4, 4, 4, 4]


def test_a_mean_component_is_the_paired_bootstrap_of_its_values() -> None:
    xs, ys = [0.1, 0.5, 0.9, 0.3, 0.7], [0.2, 0.4, 1.0, 0.6, 0.6]
    ones = [1.0] * 5
    ours = stats.paired_ratio_difference(xs, ones, ys, ones, resamples=3000, seed=11)
    plain = stats.paired_bootstrap(xs, ys, resamples=3000, seed=11)
    assert (ours.low, ours.high) == pytest.approx((plain.low, plain.high), abs=1e-12)


def test_pooled_ratio_interval_against_an_independent_loop() -> None:
    # pooled F1 = 2TP / (2TP + FP + FN) per side, recomputed on each resample's cases
    tp_a, fp_a, fn_a = [2, 0, 3, 1], [1, 0, 0, 2], [0, 1, 1, 0]
    tp_b, fp_b, fn_b = [1, 1, 3, 0], [0, 0, 1, 0], [1, 0, 1, 1]
    num_a = [2 * t for t in tp_a]
    den_a = [2 * t + f + m for t, f, m in zip(tp_a, fp_a, fn_a, strict=True)]
    num_b = [2 * t for t in tp_b]
    den_b = [2 * t + f + m for t, f, m in zip(tp_b, fp_b, fn_b, strict=True)]
    iv = stats.paired_ratio_difference(num_a, den_a, num_b, den_b, resamples=500, seed=5,
                                       empty=1.0)
    # hand count: a TP 6, FP 3, FN 2 -> 12 / 17; b TP 5, FP 1, FN 3 -> 10 / 14
    assert iv.estimate == pytest.approx(10 / 14 - 12 / 17)
    rows = np.random.default_rng(5).integers(0, 4, size=(500, 4))
    diffs = []
    for row in rows:
        def f1(num: list[int], den: list[int], row: np.ndarray = row) -> float:
            d = sum(den[i] for i in row)
            return sum(num[i] for i in row) / d if d else 1.0
        diffs.append(f1(num_b, den_b) - f1(num_a, den_a))
    assert (iv.low, iv.high) == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])))


def test_relative_changes_of_cost_and_latency() -> None:
    rows = {r["figure"]: r for r in relative_changes(
        A, B, lambda r: r.get("asr_cost_usd"), lambda r: r.get("asr_cost_usd"),
        resamples=1000, seed=3)}
    # cost: mean .025 against .010 -> -60% on every case, so the interval is a point
    cost = rows["cost_per_item"]
    assert (cost["a"], cost["b"], cost["change"]) == pytest.approx((0.025, 0.010, -0.6))
    assert cost["interval"] == pytest.approx({"low": -0.6, "high": -0.6})
    # median latency 2500 against 1250; p95 (type 7): 3850 against 1925 -> both -50%
    assert (rows["latency_median"]["a"], rows["latency_median"]["b"]) == (2500, 1250)
    assert rows["latency_p95"]["a"] == pytest.approx(3850)
    assert rows["latency_p95"]["change"] == pytest.approx(-0.5)
    assert all(r["moved"] == "better" for r in rows.values())


def test_relative_change_interval_against_an_independent_loop() -> None:
    a, b = [100.0, 300.0, 200.0, 800.0, 50.0], [90.0, 100.0, 250.0, 400.0, 60.0]
    iv = stats.relative_change(a, b, "median", resamples=400, seed=9)
    assert iv.estimate == pytest.approx(100 / 200 - 1)
    changes = [np.median([b[i] for i in row]) / np.median([a[i] for i in row]) - 1
               for row in np.random.default_rng(9).integers(0, 5, size=(400, 5))]
    assert (iv.low, iv.high) == pytest.approx(tuple(np.quantile(changes, [0.025, 0.975])))


def test_the_sentence_reads_like_the_author_paragraph() -> None:
    comparison = {"a": "thinking", "b": "no-thinking", "n": 4, "mean_a": 75.0,
                  "mean_b": 71.25, "mean_difference": -3.75, "resolved": False,
                  "interval": {"low": -5.0, "high": 1.25},
                  "components": component_comparisons(A, B, "keypoints", resamples=500,
                                                      seed=1),
                  "relative": relative_changes(A, B, lambda r: r["asr_cost_usd"],
                                               lambda r: r["asr_cost_usd"], resamples=500,
                                               seed=1)}
    suite = {"comparisons": [comparison]}
    (text,) = pair_sentences(suite)
    assert text.startswith("no-thinking against thinking on 4 shared cases: score 71.2 "
                           "against 75.0, -3.8 points (95% interval -5.0 to +1.2, not "
                           "distinguishable).")
    assert ("The components move in opposite directions: no-thinking is better on "
            "proposition precision 0.900 against 0.700 (+0.200") in text
    assert "and worse on names F1 0.333 against 0.833 (-0.500" in text
    assert "Against thinking: ASR cost per item -60% (interval -60% to -60%); " \
           "median latency -50%" in text
    table = component_table(suite)
    assert table is not None
    assert table.rows[0][:7] == ("no-thinking − thinking", "names F1", "4", "0.833",
                                 "0.333", "-0.500", "-0.500 to -0.500")
    assert table.rows[4][1:6] == ("ASR cost per item", "4", "$0.025000", "$0.010000", "-60%")


def test_error_rate_components_pool_edits_over_reference_words() -> None:
    def er(case: str, sub: int, ref: int) -> dict:
        return {"case_id": case, "repetition": 1, "score": 50.0, "status": "passed",
                "metrics": {"word_sub": sub, "word_del": 0, "word_ins": 0, "word_ref": ref,
                            "char_sub": sub, "char_del": 0, "char_ins": 0, "char_ref": 4 * ref}}
    a = [er("c1", 1, 10), er("c2", 3, 10)]
    b = [er("c1", 0, 10), er("c2", 1, 10)]
    rows = {r["component"]: r for r in component_comparisons(a, b, "error_rate",
                                                              resamples=200, seed=2)}
    # WER 4/20 = .2 against 1/20 = .05: lower is better, so b moved the better way
    assert (rows["wer"]["a"], rows["wer"]["b"]) == pytest.approx((0.2, 0.05))
    assert rows["wer"]["moved"] == "better" and rows["wer"]["higher_is_better"] is False


def test_the_bundled_journal_pair_reads_like_the_author_paragraph(tmp_path) -> None:
    """example-fast is the example product's text with its names in katakana, at about
    half the latency and a third of the price: the journal author's trade-off."""
    from report_support import bundled_run

    done = bundled_run(tmp_path, "cases/ja-journal", "--product=example",
                       "--product=example-fast")
    assert done.returncode == 0, done.stdout + done.stderr
    markdown = (tmp_path / "dictbench.md").read_text()
    paragraph = next(line for line in markdown.splitlines()
                     if line.startswith("example-fast against example"))
    # every key point present on both sides (hand-written decisions): the score moves
    # only with names F1, 0.3 x the names gap
    assert paragraph.startswith("example-fast against example on 20 shared cases: score "
                                "97.5 against 100.0, -2.5 points (95% interval")
    assert "example-fast is worse on names F1 0.917 against 1.000" in paragraph
    assert "The same on both: proposition recall 1.000; proposition precision 1.000" \
        in paragraph
    # price 0.00216 against 0.006 a minute: -64%; latency 0.53 of example's: -47%
    assert "Against example: ASR cost per item -64%" in paragraph
    assert "median latency -47%" in paragraph
    assert "Accuracy and price or speed move in opposite directions" in paragraph


def test_several_statistics_share_one_sort_and_the_same_draws() -> None:
    a, b = [100.0, 300.0, 200.0, 800.0, 50.0, 70.0], [90.0, 100.0, 250.0, 400.0, 60.0, 20.0]
    together = stats.relative_changes(a, b, ["median", "p95", "mean"], resamples=300, seed=4)
    alone = [stats.relative_change(a, b, s, resamples=300, seed=4)
             for s in ("median", "p95", "mean")]
    assert [(i.low, i.high, i.estimate) for i in together] == [
        (i.low, i.high, i.estimate) for i in alone]
    # the p95 against numpy's type 7 percentile on the same draws
    changes = [np.percentile([b[i] for i in row], 95) / np.percentile([a[i] for i in row], 95)
               - 1 for row in np.random.default_rng(4).integers(0, 6, size=(300, 6))]
    assert (together[1].low, together[1].high) == pytest.approx(
        tuple(np.quantile(changes, [0.025, 0.975])))
