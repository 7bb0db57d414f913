"""error_rate: words split the way each language needs, hand-computed rates."""

from __future__ import annotations

from pathlib import Path

import jiwer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_dictbench.errors import SuiteError
from pytest_dictbench.methods.error_rate import ErrorRate, char_counts, word_counts
from pytest_dictbench.model import Case, Output, ScoreContext, Suite
from pytest_dictbench.text.normalize import normalize_for_wer
from pytest_dictbench.text.words import segmenter_name, words


def suite(locale: str, **params: object) -> Suite:
    return Suite(id="s", version="1", title="s", method="error_rate", locale=locale,
                 canary="X", root=Path("."), cases=(), params=params)


def test_a_backtick_typed_as_an_apostrophe_keeps_the_word_whole():
    assert normalize_for_wer("It isn`t ready") == "it isn't ready"
    assert normalize_for_wer("Don´t wait") == "don't wait"
    # old code: "isn t" (4 words) against 3 -> 1 substitution + 1 insertion, WER 2/3
    counts = word_counts("It isn't ready.", "It isn`t ready.")
    assert counts is not None and (counts.errors, counts.ref_len) == (0, 3)
    # a backtick elsewhere is punctuation, as before
    assert normalize_for_wer("run `make` now") == "run make now"


def test_japanese_words_come_from_sudachipy():
    assert words("明日の会議は10時からです", "ja") == [
        "明日", "の", "会議", "は", "10", "時", "から", "です"]
    assert segmenter_name("ja").startswith("sudachipy ")
    assert "mode B" in segmenter_name("ja") and "sudachidict_core" in segmenter_name("ja")


def test_japanese_wer_counts_words_not_sentences():
    # 8 reference words, one substituted (10 -> 11): WER 1/8. Split on spaces, the
    # sentence was one "word" and the old WER was 1/1.
    counts = word_counts("明日の会議は10時からです。", "明日の会議は11時からです。", "ja")
    assert counts is not None
    assert (counts.sub, counts.dele, counts.ins, counts.ref_len) == (1, 0, 0, 8)
    assert counts.rate == pytest.approx(0.125)
    # CER: 13 characters, 1 substituted
    assert char_counts("明日の会議は10時からです。", "明日の会議は11時からです。").rate == (
        pytest.approx(1 / 13))


def test_other_languages_without_spaces_have_no_wer():
    assert words("我们明天开会", "zh") is None and segmenter_name("th") is None
    assert word_counts("我们明天开会", "我们后天开会", "zh") is None
    method = ErrorRate()
    result = method.score(Case("c", {"reference": "我们明天开会"}),
                          Output("c", "我们后天开会"), ScoreContext(suite("zh-CN")))
    # CER: 6 characters, one substituted (明 -> 后): 1/6
    assert "word_ref" not in result.metrics and result.metrics["char_ref"] == 6
    assert result.score == pytest.approx(100 * (1 - 1 / 6))
    records = [{"metrics": dict(result.metrics)}]
    summary = method.aggregate(records, suite("zh-CN"))
    assert summary["summary"]["wer"] is None and summary["words"] is None
    assert summary["summary"]["cer"] == pytest.approx(1 / 6)
    assert summary["word_segmenter"] is None
    with pytest.raises(SuiteError, match="needs a word segmenter"):
        method.check_params(suite("zh-CN", unit="word"))


def test_a_japanese_suite_may_score_by_wer():
    method = ErrorRate()
    ja = suite("ja-JP", unit="word", threshold=0.2)
    method.check_params(ja)
    result = method.score(Case("c", {"reference": "明日の会議は10時からです。"}),
                          Output("c", "明日の会議は11時からです。"), ScoreContext(ja))
    assert result.passed and result.score == pytest.approx(87.5)
    assert result.rules[0].rule == "WER" and "over 8 words" in result.rules[0].evidence
    summary = method.aggregate([{"metrics": dict(result.metrics)}], ja)
    assert summary["summary"]["wer"] == pytest.approx(0.125)
    assert summary["word_segmenter"].startswith("sudachipy")


_TOKENS = st.lists(st.sampled_from(["a", "b", "c", "dd", "e"]), max_size=12)


@settings(max_examples=300, deadline=None)
@given(_TOKENS, _TOKENS)
def test_word_and_character_counts_agree_with_jiwer(ref: list[str], hyp: list[str]):
    # jiwer is the independent implementation: same S, D and I over words and over
    # characters (whitespace removed), empty texts included
    ref_text, hyp_text = " ".join(ref), " ".join(hyp)
    counts = word_counts(ref_text, hyp_text)
    assert counts is not None and counts.ref_len == len(ref)
    chars = char_counts(ref_text, hyp_text)
    assert chars.ref_len == len(ref_text.replace(" ", ""))
    for ours, unit in ((counts, "words"), (chars, "characters")):
        if ours.ref_len == 0:  # jiwer refuses an empty reference: all insertions
            hyp_len = len(hyp) if unit == "words" else len(hyp_text.replace(" ", ""))
            assert (ours.sub, ours.dele, ours.ins) == (0, 0, hyp_len)
            continue
        if unit == "words":
            theirs = jiwer.process_words(ref_text, hyp_text or "")
        else:
            theirs = jiwer.process_characters(ref_text.replace(" ", ""),
                                              hyp_text.replace(" ", ""))
        assert (ours.sub, ours.dele, ours.ins) == (
            theirs.substitutions, theirs.deletions, theirs.insertions)
