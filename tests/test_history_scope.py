"""Comparisons between products in the reports' history and ``dictbench variation`` follow
the reports' rule (issue 49, "Comparisons that scale"): every two products up to
``compare.ALL_PAIRS_UP_TO``, above it each product against the best, and both say so;
``dictbench variation --last N`` covers the newest N complete runs through the history's
own ``select_runs`` and names the runs it left out. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_support import put, record, store_url

from pytest_dictbench.cli import main
from pytest_dictbench.compare import ALL_PAIRS_UP_TO
from pytest_dictbench.report.history import history_facts, render_history
from pytest_dictbench.store import open_store

#: one product more than the rule compares pair by pair
MANY = ALL_PAIRS_UP_TO + 1
PRODUCTS = [f"p{i:02d}" for i in range(MANY)]
#: 5 is prime to 21, so i * 5 % 21 takes every value 0..20 once: p04 (4 * 5 = 20) is best
BEST = "p04"


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from store_url(request.param, tmp_path / "store")


def _base(i: int) -> float:
    return 40.0 + 2 * (i * 5 % MANY)


def _fill(url: str) -> None:
    """Two complete runs of the 21 products on four cases; the second moves c0 up 1."""
    store = open_store(url)
    for n, run_id in enumerate(("r1", "r2")):
        rows = [record(f"c{c}", _base(i) + (n if c == 0 else 0), product=p, text=f"{p}{c}")
                for i, p in enumerate(PRODUCTS) for c in range(4)]
        put(store, run_id, rows, finished=f"2026-12-0{n + 1}T02:00:00Z")
    store.close()


SENTENCE = (f"{MANY} products, more than {ALL_PAIRS_UP_TO}: each is compared with the best, "
            f"{BEST} (highest mean case score), not with every other ({MANY - 1} comparisons "
            f"instead of {MANY * (MANY - 1) // 2})")


def test_history_compares_each_product_with_the_best_above_the_rule(url: str) -> None:
    """Issue 49: 21 products with repeated runs make 20 comparisons between products
    (each with the best), not 210, and history.md/json say which rule applied."""
    _fill(url)
    store = open_store(url)
    facts = history_facts(store, "r2", resamples=50, seed=1)
    store.close()
    assert facts is not None
    [suite] = facts["suites"]
    assert [e["product"] for e in suite["products"]] == PRODUCTS
    assert [(b["a"], b["b"]) for b in suite["between"]] == \
        [(BEST, p) for p in PRODUCTS if p != BEST]
    assert suite["comparison_scope"] == {"mode": "each_against_best", "reference": BEST,
                                         "products": MANY, "all_pairs_up_to": ALL_PAIRS_UP_TO}
    by_b = {b["b"]: b for b in suite["between"]}
    # newest run: p00's mean is 40 + 1/4, p04's 80 + 1/4: p00 - p04 = -40
    assert by_b["p00"]["comparison"]["mean_difference"] == pytest.approx(-40.0)
    text = render_history(facts)
    assert SENTENCE + "." in text
    assert text.count(f"\n| {BEST} | ") == MANY - 1


def test_variation_command_says_when_the_rule_applied(url: str, capsys) -> None:
    """Issue 49: ``dictbench variation`` compares every two of 20 products (190
    comparisons, no sentence) and each of 21 with the best, saying so."""
    _fill(url)
    capsys.readouterr()
    assert main(["variation", "--store", url, "s1", *PRODUCTS[:ALL_PAIRS_UP_TO],
                 "--resamples", "20", "--json"]) == 0
    twenty = json.loads(capsys.readouterr().out)
    assert twenty["comparison_scope"]["mode"] == "all_pairs"
    assert len(twenty["between"]) == ALL_PAIRS_UP_TO * (ALL_PAIRS_UP_TO - 1) // 2
    assert (twenty["between"][0]["a"], twenty["between"][0]["b"]) == ("p00", "p01")
    assert main(["variation", "--store", url, "s1", *PRODUCTS[:ALL_PAIRS_UP_TO],
                 "--resamples", "20"]) == 0
    assert "compared with the best" not in capsys.readouterr().out
    assert main(["variation", "--store", url, "s1", *PRODUCTS, "--resamples", "20"]) == 0
    out = capsys.readouterr().out
    assert f"s1: {SENTENCE}." in out
    assert out.count(" (newest runs)") == MANY - 1
    assert f"p00 against {BEST} (newest runs)" in out
    assert "p00 against p01" not in out


def test_variation_last_covers_the_newest_runs_and_names_the_rest(url: str, capsys) -> None:
    """``--last 2`` of three stored runs: the newest two, through select_runs, the one
    left out named (text and JSON); a window of 0, or with --run, is refused."""
    store = open_store(url)
    for day, score in ((1, 90.0), (2, 60.0), (3, 70.0)):
        put(store, f"r{day}", [record(f"c{i}", score + i) for i in range(4)],
            finished=f"2026-12-0{day}T02:00:00Z")
    store.close()
    capsys.readouterr()
    assert main(["variation", "--store", url, "s1", "p1", "--last", "2"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == ("s1 / p1: 2 run(s) (the newest 2 of 3 complete runs, "
                                   "--last 2; left out: 1 older run, r1)")
    assert "r3 against r2" in out and "r2 against r1" not in out
    assert "score per run on the 4 cases every run scored: 61.50, 71.50 (range 10.00)" in out
    assert main(["variation", "--store", url, "s1", "p1", "--last", "2", "--json"]) == 0
    entry = json.loads(capsys.readouterr().out)["products"]["p1"]
    assert entry["runs"] == ["r2", "r3"]
    assert entry["window"] == {"runs": 2, "complete_runs": 3, "left_out": 1,
                               "left_out_oldest": "r1", "left_out_newest": "r1"}
    assert main(["variation", "--store", url, "s1", "p1"]) == 0  # no window: all three
    assert capsys.readouterr().out.splitlines()[0] == "s1 / p1: 3 run(s)"
    for bad in (["--last", "0"], ["--last", "2", "--run", "r1"]):
        with pytest.raises(SystemExit) as refused:
            main(["variation", "--store", url, "s1", "p1", *bad])
        assert refused.value.code == 2
