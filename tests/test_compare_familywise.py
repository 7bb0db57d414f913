"""PS20: whether a score gap survives a Bonferroni correction over every pair of the
suite. A suite that asks for it (``[comparisons] correction = "bonferroni"``) gets each
pair's interval at 1 - 0.05 / m beside the uncorrected ``resolved`` (one implementation:
``compare.correct_gaps``, shared with Holm)."""

from __future__ import annotations

from typing import Any

from pytest_dictbench.compare import adjust_pvalues, compare_products, correct_gaps
from pytest_dictbench.stats import paired_bootstrap


def records(product: str, failing: set[int], n: int = 40) -> list[dict[str, Any]]:
    return [{"product": product, "case_id": f"c{i:02d}", "status":
             "failed" if i in failing else "passed", "score": 0.0 if i in failing else 1.0}
            for i in range(n)]


def test_a_gap_resolved_uncorrected_may_not_survive_bonferroni() -> None:
    by_product = {"p-a": records("p-a", set(range(4))),
                  "p-b": records("p-b", set(range(4, 11))),
                  "p-c": records("p-c", set()), "p-d": records("p-d", {39})}
    comparisons = compare_products(by_product, resamples=2000, seed=7)
    adjust_pvalues(comparisons)
    correct_gaps(comparisons, by_product, "bonferroni", resamples=2000, seed=7)
    m = len(comparisons)
    assert m == 6
    for c in comparisons:
        a = [float(r["score"]) for r in by_product[c["a"]]]
        b = [float(r["score"]) for r in by_product[c["b"]]]
        wide = paired_bootstrap(a, b, 2000, 7, 1 - 0.05 / m)  # an independent draw
        adjusted = c["adjusted"]
        assert adjusted["interval"] == {"low": wide.low, "high": wide.high}
        assert adjusted["resolved"] == (not wide.contains(0.0))
        assert adjusted["interval"]["low"] <= c["interval"]["low"]
        assert adjusted["pairs"] == 6 and adjusted["method"] == "bonferroni"
    # p-c - p-a (4 cases apart): resolved at 95 %, not after the correction over 6 pairs
    [ac] = [c for c in comparisons if (c["a"], c["b"]) == ("p-a", "p-c")]
    assert ac["resolved"] and not ac["adjusted"]["resolved"]
