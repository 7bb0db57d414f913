"""Spellings that mean the same words count as the same words: a prime typed for an
apostrophe in English, spaces typed between Japanese characters."""

from __future__ import annotations

import pytest

from pytest_dictbench.methods.error_rate import word_counts
from pytest_dictbench.text.normalize import normalize_for_wer


def test_a_prime_typed_as_an_apostrophe_keeps_the_word_whole() -> None:
    assert normalize_for_wer("It isn\u2032t ready") == "it isn't ready"
    counts = word_counts("It isn't ready, and we can't ship.",
                         "It isn\u2032t ready, and we can\u2032t ship.")
    assert counts is not None and (counts.errors, counts.ref_len) == (0, 7)
    assert normalize_for_wer("5\u2032 tall") == "5 tall"  # elsewhere punctuation, as before


@pytest.mark.parametrize("output", [
    "明 日 の 会 議 は 十 時 か ら で す 。",
    "明日の 会議は 十時から です。",
    "明日の\u3000会議は十時からです。",
])
def test_spaces_between_japanese_characters_are_not_word_breaks(output: str) -> None:
    counts = word_counts("明日の会議は十時からです。", output, "ja")
    assert counts is not None and counts.errors == 0, counts


def test_spaces_between_latin_words_in_japanese_text_still_separate_them() -> None:
    counts = word_counts("Slack で会議", "Slack で 会議", "ja")
    assert counts is not None and counts.errors == 0
    assert word_counts("New York へ", "NewYork へ", "ja").errors > 0
