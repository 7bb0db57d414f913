"""Typed disfluency counts, P/R/F1 and edit counts, worked out by hand."""

from __future__ import annotations

import pytest

from pytest_dictbench.methods.verbatim.labels import gold_labels
from pytest_dictbench.methods.verbatim.metrics import prf, typed_counts
from pytest_dictbench.methods.verbatim.normalize import normalize_tokens
from pytest_dictbench.methods.verbatim.rates import (
    EditCount,
    char_edits,
    pooled_rate,
    word_edits,
)

BIRD = ("We saw a b- bird.", "We saw a bird.")  # gold: we saw a b*(Cutoff) bird
WORKED = ("So we, we [uh] went to the th- the [laughter] shop.", "So we went to the shop.")


def counts(gold: tuple[str, str], prediction: str) -> dict[str, int]:
    """Non-zero flat counts of ``prediction`` against the gold pair."""
    flat = typed_counts(gold_labels(*gold), normalize_tokens(prediction)).flat()
    return {key: value for key, value in flat.items() if value}


# --- P/R/F1 --------------------------------------------------------------------------


def test_prf_from_counts() -> None:
    # tp 3, fp 1, fn 2: P = 3/4, R = 3/5, F1 = 6 / (6 + 1 + 2) = 2/3
    result = prf(3, 1, 2)
    assert (result.precision, result.recall) == (0.75, 0.6)
    assert result.f1 == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("tp", "fp", "fn", "expected"),
    [
        (0, 0, 0, (1.0, 1.0, 1.0)),  # nothing to find, nothing claimed
        (0, 0, 4, (0.0, 0.0, 0.0)),  # never predicts the type the gold holds
        (0, 2, 0, (0.0, 0.0, 0.0)),  # only invents
        (2, 0, 0, (1.0, 1.0, 1.0)),
    ],
)
def test_prf_zero_denominators(tp: int, fp: int, fn: int,
                               expected: tuple[float, float, float]) -> None:
    result = prf(tp, fp, fn)
    assert (result.precision, result.recall, result.f1) == expected


# --- cut-offs: the four variants -------------------------------------------------------


def test_exact_fragment_counts_everywhere() -> None:
    assert counts(BIRD, "we saw a b- bird") == {
        "cutoff_tp": 1, "cutoff_strict_tp": 1, "cutoff_marker_tp": 1, "disfluency_tp": 1}


def test_wrong_fragment_at_the_right_place() -> None:
    # "bir*" for gold "b*": marker and lenient credit it, strict counts an FP and an FN
    assert counts(BIRD, "we saw a bir- bird") == {
        "cutoff_tp": 1, "cutoff_marker_tp": 1, "cutoff_strict_fp": 1, "cutoff_strict_fn": 1,
        "disfluency_tp": 1}


def test_spurious_marker_costs_precision_not_recall() -> None:
    found = counts(BIRD, "we wor- saw a b- bird")
    assert found == {"cutoff_tp": 1, "cutoff_fp": 1, "cutoff_marker_tp": 1,
                     "cutoff_marker_fp": 1, "cutoff_strict_tp": 1, "cutoff_strict_fp": 1,
                     "disfluency_tp": 1, "disfluency_fp": 1}
    lenient = prf(found["cutoff_tp"], found["cutoff_fp"], 0)
    assert (lenient.precision, lenient.recall) == (0.5, 1.0)


def test_fragment_written_as_a_word_is_lenient_only() -> None:
    # "be" stands where gold has "b*": covered (lenient) but not marked; no FP anywhere
    assert counts(BIRD, "we saw a be bird") == {
        "cutoff_tp": 1, "cutoff_marker_fn": 1, "cutoff_strict_fn": 1, "disfluency_tp": 1}


def test_dropped_fragment_is_missed_by_all_variants() -> None:
    assert counts(BIRD, "we saw a bird") == {
        "cutoff_fn": 1, "cutoff_marker_fn": 1, "cutoff_strict_fn": 1, "disfluency_fn": 1}


def test_fragment_instead_of_a_whole_word_is_invented() -> None:
    # "bir*" where gold has the fluent "bird": a spurious marker
    assert counts(("We saw a bird.", "We saw a bird."), "we saw a bir-") == {
        "cutoff_fp": 1, "cutoff_marker_fp": 1, "cutoff_strict_fp": 1, "disfluency_fp": 1}


# --- fillers, sounds, repetitions, other ----------------------------------------------

FILLER = ("So [uh] we left.", "So we left.")


def test_filler_of_the_other_kind_still_counts() -> None:
    assert counts(FILLER, "so um we left") == {"filler_tp": 1, "disfluency_tp": 1}


def test_filler_written_as_a_word() -> None:
    # "a" never aligns to a filler tag: the filler is missed and "a" is an extra word
    assert counts(FILLER, "so a we left") == {
        "filler_fn": 1, "other_fp": 1, "disfluency_fp": 1, "disfluency_fn": 1}


def test_sound_detection() -> None:
    laugh = ("[laughter] No way.", "No way.")
    assert counts(laugh, "(coughs) no way") == {"sound_tp": 1, "disfluency_tp": 1}
    # at the wrong place: a miss and an invention
    assert counts(laugh, "no way [laughs]") == {
        "sound_fp": 1, "sound_fn": 1, "disfluency_fp": 1, "disfluency_fn": 1}


STUTTER = ("I I think so.", "I think so.")


def test_repetitions() -> None:
    assert counts(STUTTER, "I I think so") == {"repetition_tp": 1, "disfluency_tp": 1}
    assert counts(STUTTER, "I think so") == {"repetition_fn": 1, "disfluency_fn": 1}
    # a third copy is an invented repetition
    assert counts(STUTTER, "I I I think so") == {
        "repetition_tp": 1, "repetition_fp": 1, "disfluency_tp": 1, "disfluency_fp": 1}


FALSE_START = ("We should, I mean, you should call her.", "You should call her.")


def test_false_start_is_other() -> None:
    assert counts(FALSE_START, "we should I mean you should call her") == {
        "other_tp": 4, "disfluency_tp": 4}
    assert counts(FALSE_START, "you should call her") == {"other_fn": 4, "disfluency_fn": 4}
    # a misheard word inside the kept false start still counts as kept
    assert counts(FALSE_START, "we should I meant you should call her") == {
        "other_tp": 4, "disfluency_tp": 4}


def test_inserted_word_is_an_invented_other() -> None:
    assert counts(("I think so.", "I think so."), "well I think so") == {
        "other_fp": 1, "disfluency_fp": 1}


# --- whole predictions -------------------------------------------------------------------


def test_empty_prediction_misses_everything() -> None:
    # gold: Rep we, Filler, Rep the, Cutoff th*, Sound -> five misses, nothing invented
    assert counts(WORKED, "") == {
        "filler_fn": 1, "sound_fn": 1, "cutoff_fn": 1, "repetition_fn": 2,
        "cutoff_strict_fn": 1, "cutoff_marker_fn": 1, "disfluency_fn": 5}


def test_prediction_without_disfluencies() -> None:
    assert counts(WORKED, "So we went to the shop.") == counts(WORKED, "")


def test_missed_and_invented_lists_are_readable() -> None:
    result = typed_counts(gold_labels(*WORKED), normalize_tokens("so we we went to the shop um"))
    assert result.missed == [("filler", "[uh]", 4), ("repetition", "the", 7),
                             ("cutoff", "th*", 8), ("sound", "[laughter]", 10)]
    assert result.invented == [("filler", "[um]", 8)]


# --- edit counts -----------------------------------------------------------------------


def test_word_and_char_edits() -> None:
    # a b c -> a x c d: substitute b, insert d
    assert word_edits(["a", "b", "c"], ["a", "x", "c", "d"]) == EditCount(2, 3)
    # characters without spaces: "abc" -> "abd": one substitution
    assert char_edits(["ab", "c"], ["abd"]) == EditCount(1, 3)


def test_empty_references_and_hypotheses() -> None:
    assert word_edits([], ["a", "b"]) == EditCount(2, 0)
    assert word_edits([], ["a", "b"]).rate == 2.0
    assert word_edits([], []).rate == 0.0
    assert word_edits(["a", "b"], []) == EditCount(2, 2)
    assert word_edits(["a", "b"], []).rate == 1.0


def test_pooled_rate() -> None:
    assert pooled_rate(3, 12) == 0.25
    assert pooled_rate(3, 0) is None
