"""Tag-aware alignment: the worked examples, the cost rules, and optimality."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from pytest_dictbench.methods.verbatim import align
from pytest_dictbench.methods.verbatim.align import (
    Pair,
    plain_alignment,
    tag_aware_alignment,
    token_class,
)


def test_i_i_think_keeps_the_fluent_i() -> None:
    # gold [Rep I, Fluent I, think], prediction "I think"
    pairs = tag_aware_alignment(["i", "i", "think"], [False, True, True], ["i", "think"])
    assert pairs == [(0, None), (1, 0), (2, 1)]


def test_labels_decide_which_copy_is_matched() -> None:
    # An artificial order (disfluent copy last) shows it is the cost, not the trace-back
    # habit of keeping the later copy, that picks the Fluent token.
    pairs = tag_aware_alignment(["we", "we"], [True, False], ["we"])
    assert pairs == [(0, 0), (1, None)]


def test_matching_a_disfluent_token_pays_epsilon() -> None:
    # gold a(Fluent) a(D), prediction "b a b". Reading 1: insert b, match the Fluent a,
    # substitute the disfluent a (U + 0 + U + 2eps). Reading 2: substitute the Fluent a,
    # match the disfluent a, insert b (U + eps + eps + U). Both 2U + 2eps: the tie goes
    # to reading 1 (diagonal first from the end). Without the match epsilon reading 2
    # would be cheaper and the "a" would land on the disfluent copy.
    pairs = tag_aware_alignment(["a", "a"], [True, False], ["b", "a", "b"])
    assert pairs == [(None, 0), (0, 1), (1, 2)]


def test_deleting_a_disfluent_token_is_cheaper() -> None:
    # gold a(D) a(D) b(Fluent), prediction "b a". Keeping b: two disfluent deletions
    # (2H = U) + one insertion (U) = 2U. The alternative, a->b substituted, a matched,
    # b deleted, costs U + 2eps + eps + U = 2U + 3eps. Were disfluent deletions priced
    # like fluent ones (U), keeping b would cost 3U and lose.
    pairs = tag_aware_alignment(["a", "a", "b"], [False, False, True], ["b", "a"])
    assert pairs == [(0, None), (1, None), (2, 0), (None, 1)]


def test_tags_never_align_to_words() -> None:
    assert tag_aware_alignment(["[uh]"], [False], ["a"]) == [(None, 0), (0, None)]
    assert tag_aware_alignment(["[uh]"], [False], ["[laughter]"]) == [(None, 0), (0, None)]
    # same class: a substitution
    assert tag_aware_alignment(["[uh]"], [False], ["[um]"]) == [(0, 0)]
    assert tag_aware_alignment(["b*"], [False], ["bir*"]) == [(0, 0)]


def test_fewer_substitutions_win_a_tie() -> None:
    # gold: so we(Rep) we went; an extra "we" is one insertion, not a cascade of
    # substitutions pushing "went" out of place
    gold = ["so", "we", "we", "went", "home"]
    pairs = tag_aware_alignment(gold, [True, False, True, True, True],
                                ["so", "we", "we", "we", "went"])
    assert pairs == [(0, 0), (None, 1), (1, 2), (2, 3), (3, 4), (4, None)]


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ([], [], []),
        ([], ["a", "b"], [(None, 0), (None, 1)]),
        (["a", "b"], [], [(0, None), (1, None)]),
    ],
)
def test_empty_sequences(gold: list[str], pred: list[str], expected: list[Pair]) -> None:
    assert tag_aware_alignment(gold, [True] * len(gold), pred) == expected
    assert plain_alignment(gold, pred) == expected


def test_plain_alignment_is_levenshtein() -> None:
    # kitten -> sitting: 3 edits (k->s, e->i, +g)
    pairs = plain_alignment(list("kitten"), list("sitting"))
    cost = sum(1 for g, p in pairs
               if g is None or p is None or "kitten"[g] != "sitting"[p])
    assert cost == 3


# --- optimality against an independent, textbook implementation --------------------

U, H, EPS = 1.0, 0.5, 1e-6


def _costs(gold: Sequence[str], fluent: Sequence[bool], pred: Sequence[str]):
    def pair_cost(i: int, j: int) -> float:
        if gold[i] == pred[j]:
            return 0.0 if fluent[i] else EPS
        if token_class(gold[i]) != token_class(pred[j]):
            return float("inf")
        return U + (EPS if fluent[i] else 2 * EPS)

    def del_cost(i: int) -> float:
        return U if fluent[i] else H

    return pair_cost, del_cost


def _reference_minimum(gold: Sequence[str], fluent: Sequence[bool],
                       pred: Sequence[str]) -> float:
    """Full-table DP with float costs, written independently of align.py."""
    pair_cost, del_cost = _costs(gold, fluent, pred)
    n, m = len(gold), len(pred)
    table = [[0.0] * (m + 1) for _ in range(n + 1)]
    for j in range(1, m + 1):
        table[0][j] = j * U
    for i in range(1, n + 1):
        table[i][0] = table[i - 1][0] + del_cost(i - 1)
        for j in range(1, m + 1):
            table[i][j] = min(table[i - 1][j - 1] + pair_cost(i - 1, j - 1),
                              table[i - 1][j] + del_cost(i - 1),
                              table[i][j - 1] + U)
    return table[n][m]


def _cost_of(pairs: list[Pair], gold: Sequence[str], fluent: Sequence[bool],
             pred: Sequence[str]) -> float:
    pair_cost, del_cost = _costs(gold, fluent, pred)
    return sum(U if g is None else del_cost(g) if p is None else pair_cost(g, p)
               for g, p in pairs)


def _random_case(rng: random.Random) -> tuple[list[str], list[bool], list[str]]:
    vocab = ["a", "b", "c", "the", "[uh]", "[um]", "[cough]", "th*", "b*"]
    gold = [rng.choice(vocab) for _ in range(rng.randint(0, 25))]
    fluent = [rng.random() < 0.7 for _ in gold]
    pred = [t for t in gold if rng.random() > 0.2]
    for _ in range(rng.randint(0, 5)):
        pred.insert(rng.randint(0, len(pred)), rng.choice(vocab))
    if rng.random() < 0.3:
        pred = [rng.choice(vocab) for _ in range(rng.randint(0, 25))]
    return gold, fluent, pred


def test_alignment_is_optimal_and_well_formed() -> None:
    rng = random.Random(7)
    for _ in range(400):
        gold, fluent, pred = _random_case(rng)
        pairs = tag_aware_alignment(gold, fluent, pred)
        assert [g for g, _ in pairs if g is not None] == list(range(len(gold)))
        assert [p for _, p in pairs if p is not None] == list(range(len(pred)))
        assert _cost_of(pairs, gold, fluent, pred) == pytest.approx(
            _reference_minimum(gold, fluent, pred), abs=1e-9)


def test_band_and_suffix_cut_change_nothing() -> None:
    rng = random.Random(11)
    for _ in range(300):
        gold, fluent, pred = _random_case(rng)
        half = 2 * len(gold) + 1
        costs = align._Costs(
            gold, pred, [token_class(t) for t in gold], [token_class(t) for t in pred],
            [0 if f else 1 for f in fluent], [2 * half + (1 if f else 2) for f in fluent],
            [2 * half if f else half for f in fluent], 2 * half)
        full = align._align(costs, trim_suffix=False, band=False)
        assert align._align(costs) == full
        assert align._align(costs, trim_suffix=False) == full
        assert align._align(costs, band=False) == full
