"""Paired comparisons on shared items, and p-value adjustment across a run (pure)."""

from __future__ import annotations

import pytest

from pytest_dictbench.compare import adjust_pvalues, compare_products, compare_records


def rec(case: str, score: float, failed: bool, status: str | None = None) -> dict:
    return {"case_id": case, "repetition": 1, "score": score,
            "status": status or ("failed" if failed else "passed")}


def test_only_shared_scored_items_are_compared() -> None:
    a = [rec("c1", 100, False), rec("c2", 0, True), rec("c3", 100, False),
         rec("c4", 0, False, status="error")]
    b = [rec("c1", 50, False), rec("c2", 100, False), rec("c3", 0, True),
         rec("c5", 100, False)]
    result = compare_records(a, b, resamples=200, seed=1)
    # shared scored items: c1, c2, c3 -> differences -50, +100, -100 -> mean -50/3
    assert result["n"] == 3
    assert result["mean_difference"] == pytest.approx(-50 / 3)
    # discordant failures: c2 (only A failed), c3 (only B failed) -> McNemar 1 vs 1, p = 1
    assert (result["only_a_failed"], result["only_b_failed"], result["both_failed"]) == (1, 1, 0)
    assert result["mcnemar_p"] == 1.0
    assert compare_records(a[:1], [rec("zz", 1, False)], resamples=10, seed=1) is None


def test_provisional_items_are_left_out_and_counted() -> None:
    # J39: a rubric score with unjudged rules was compared (and called resolved)
    def waiting(case: str, score: float) -> dict:
        return {**rec(case, score, False), "provisional": 3}

    a = [rec("c1", 100, False), rec("c2", 50, False), rec("c3", 100, False)]
    b = [rec("c1", 50, False), waiting("c2", 100), waiting("c3", 0)]
    result = compare_records(a, b, resamples=50, seed=1)
    # only c1 is final on both sides: difference -50
    assert (result["n"], result["mean_difference"]) == (1, -50.0)
    assert (result["cases_a"], result["cases_b"]) == (3, 1)
    assert (result["provisional_a"], result["provisional_b"]) == (0, 2)
    # nothing final to compare on: no comparison at all
    assert compare_records(a[1:], b[1:], resamples=10, seed=1) is None
    # no provisional item: the record is as before (other suites' reports unchanged)
    assert "provisional_a" not in compare_records(a, a, resamples=10, seed=1)


def test_every_pair_once_and_adjusted_across_the_run() -> None:
    by = {"b": [rec("c1", 1, False)], "a": [rec("c1", 2, True)], "c": [rec("c1", 3, False)]}
    comparisons = compare_products(by, resamples=50, seed=3)
    assert [(c["a"], c["b"]) for c in comparisons] == [("a", "b"), ("a", "c"), ("b", "c")]
    for c, p in zip(comparisons, (0.01, 0.04, 0.03), strict=True):
        c["mcnemar_p"] = p
    adjust_pvalues(comparisons)
    # Bonferroni: 3p; Holm: sorted 0.01 x3 = 0.03, 0.03 x2 = 0.06, 0.04 x1 -> max(0.06, 0.04)
    assert [c["p_bonferroni"] for c in comparisons] == pytest.approx([0.03, 0.12, 0.09])
    assert [c["p_holm"] for c in comparisons] == pytest.approx([0.03, 0.06, 0.06])


def test_repetitions_count_once_per_case() -> None:
    def reps(case: str, scores: list[float]) -> list[dict]:
        return [dict(rec(case, s, s < 50), repetition=i + 1) for i, s in enumerate(scores)]

    a = reps("c1", [80, 90, 100]) + reps("c2", [0, 10, 60])
    b = reps("c1", [70, 70, 70]) + reps("c2", [60, 70, 0])
    result = compare_records(a, b, resamples=100, seed=2)
    # per case: a = (90, passed), (10, failed: 2 of 3); b = (70, passed), (60, passed)
    assert result["n"] == 2
    assert result["mean_difference"] == pytest.approx(((70 - 90) + (60 - 10)) / 2)
    assert (result["only_a_failed"], result["only_b_failed"]) == (1, 0)
    # five identical copies of each repetition change nothing
    five = [dict(r, repetition=r["repetition"] * 10 + k) for r in a for k in range(5)]
    five_b = [dict(r, repetition=r["repetition"] * 10 + k) for r in b for k in range(5)]
    again = compare_records(five, five_b, resamples=100, seed=2)
    assert (again["n"], again["interval"]) == (2, result["interval"])


def _suite(suite_id: str, cases: int):
    from pathlib import Path

    from pytest_dictbench.model import Case, Suite

    return Suite(id=suite_id, version="1", title=suite_id, method="error_rate", locale="en",
                 canary="X", root=Path("."),
                 cases=tuple(Case(f"c{i}", {"id": f"c{i}"}) for i in range(cases)))


def _records(suite_id: str, product: str, failed: set[int], cases: int) -> list[dict]:
    return [{"suite": suite_id, "product": product, "case_id": f"c{i}", "repetition": 1,
             "status": "failed" if i in failed else "passed",
             "score": 0.0 if i in failed else 100.0, "rules": {}, "metrics": {}}
            for i in range(cases)]


def test_p_values_are_adjusted_within_each_suite_and_the_seed_is_recorded() -> None:
    from pytest_dictbench.aggregate import StatsOptions, summarize

    class NoTables:  # a method with no tables of its own: only the comparisons matter here
        name, case_schema = "plain", None

        def aggregate(self, records, suite):
            return {}

    # two suites, two products each: one comparison per suite, so each family has size 1
    # and the adjusted p equals the raw one. The old code made one family of 2 (p x 2).
    # Suite s1: only b fails 6 cases -> McNemar 0 vs 6: p = 2 * 0.5**6 = 0.03125
    # Suite s2: only b fails 4 cases -> p = 2 * 0.5**4 = 0.125
    records = (_records("s1", "a", set(), 8) + _records("s1", "b", set(range(6)), 8)
               + _records("s2", "a", set(), 8) + _records("s2", "b", set(range(4)), 8))
    suites = {"s1": _suite("s1", 8), "s2": _suite("s2", 8)}
    report = summarize(records, suites, {}, {"error_rate": NoTables()}, {},
                       StatsOptions(resamples=200, seed=7))
    (c1,), (c2,) = (s["comparisons"] for s in report["suites"])
    assert c1["mcnemar_p"] == pytest.approx(0.03125) == c1["p_holm"] == c1["p_bonferroni"]
    assert c2["mcnemar_p"] == pytest.approx(0.125) == c2["p_holm"] == c2["p_bonferroni"]
    assert report["statistics"]["seed"] == 7
    assert report["statistics"]["p_adjustment"] == "Holm and Bonferroni within each suite"


def test_above_the_all_pairs_limit_each_product_is_compared_with_the_best() -> None:
    """PL11: all pairs grow as n(n-1)/2 (499,500 for a 1,000-product sweep); above
    ALL_PAIRS_UP_TO products each is compared with the best (highest mean per-case
    score, ties by name) only: n - 1 comparisons, and the scope says so."""
    from pytest_dictbench.compare import ALL_PAIRS_UP_TO, comparison_scope

    n = ALL_PAIRS_UP_TO + 1
    by = {f"p{i:04}": [rec("c1", i % 7, False), rec("c2", 50, False)] for i in range(n)}
    comparisons = compare_products(by, resamples=20, seed=3)
    best = "p0006"  # i % 7 == 6 first at i = 6
    assert len(comparisons) == n - 1
    assert {c["a"] for c in comparisons} == {best}
    assert sorted(c["b"] for c in comparisons) == sorted(set(by) - {best})
    assert comparison_scope(by) == {"mode": "each_against_best", "reference": best,
                                    "products": n, "all_pairs_up_to": ALL_PAIRS_UP_TO}
    few = dict(list(by.items())[:ALL_PAIRS_UP_TO])
    assert len(compare_products(few, resamples=20, seed=3)) == \
        ALL_PAIRS_UP_TO * (ALL_PAIRS_UP_TO - 1) // 2
    assert comparison_scope(few)["mode"] == "all_pairs"


def test_a_thousand_products_compare_in_linear_time() -> None:
    """PL11: 1,000 products of 4 cases: 999 comparisons, made in seconds."""
    import time

    by = {f"p{i:04}": [rec(f"c{j}", (i * j) % 100, False) for j in range(4)]
          for i in range(1000)}
    start = time.perf_counter()
    comparisons = compare_products(by, resamples=200, seed=3)
    assert len(comparisons) == 999
    assert time.perf_counter() - start < 60
