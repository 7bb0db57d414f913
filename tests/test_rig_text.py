"""rig-v1 normalisation, ICU word segmentation and per-run figures, on hand-worked values."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_dictbench.methods.rig.scoring import run_metrics
from pytest_dictbench.text import rig as text
from pytest_dictbench.text.rig import (
    char_tokens,
    edit_distance,
    file_text,
    normalize,
    word_tokens,
)


@pytest.mark.parametrize(("raw", "locale", "expected"), [
    # curly apostrophe made ASCII, then deleted as the public scorer does
    ("Don’t STOP — it's 3.5%!", "en-US", "dont stop its 3 5"),
    ("L’homme a dit : « Bonjour » !", "fr-FR", "lhomme a dit bonjour"),
    ("`quoted‘ word", "en-US", "quoted word"),
    # NFKC folds ligatures, circled and full-width forms
    ("ﬁle ① ＡＢＣ", "en-US", "file 1 abc"),
    # locale lower case: Turkish dotted capital I
    ("İSTANBUL", "tr-TR", "istanbul"),
    ("İSTANBUL", "en-US", "i\u0307stanbul"),
    ("  many\t\n  spaces ", "en-US", "many spaces"),
    ("$100 + 5 = €105", "en-US", "100 5 105"),
])
def test_normalize(raw: str, locale: str, expected: str) -> None:
    assert normalize(raw, locale) == expected


def test_words_come_from_icu_with_the_locale() -> None:
    assert word_tokens("東京都に住んでいます。", "ja-JP") == ["東京", "都", "に", "住", "んで",
                                                       "い", "ます"]
    assert word_tokens("Mañana, ¿vienes?", "es-ES") == ["mañana", "vienes"]
    assert word_tokens("i\u0307stanbul", "en-US") == ["i\u0307stanbul"]
    assert word_tokens("?!", "en-US") == []


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcéñçÀZ019 ,.'’-\u0307", max_size=30))
def test_latin_fast_path_matches_icu(raw: str) -> None:
    normalized = normalize(raw, "fr-FR")
    expected = text._segment(normalized, "fr-FR") if normalized else []
    assert word_tokens(raw, "fr-FR") == expected


def test_characters_drop_whitespace() -> None:
    assert char_tokens("A b, C!", "en-US") == "abc"


def test_file_text_normalises_line_endings_and_one_final_newline() -> None:
    assert file_text("a\r\nb\r\n") == "a\nb"
    assert file_text("a\rb\n\n") == "a\nb\n"
    assert file_text("no newline") == "no newline"


def test_edit_distance_on_words_and_characters() -> None:
    assert edit_distance(["the", "cat", "sat"], ["the", "cat", "sit", "down"]) == 2
    assert edit_distance("kitten", "sitting") == 3


def _fixture(workflow: str = "dictation", reference: str = "The cat sat on the mat.",
             **extra: object) -> dict[str, object]:
    return {"workflow": workflow, "locale": "en-US", "reference": reference, **extra}


def test_transcript_figures_hand_worked() -> None:
    # words: the cat sat on the mat (6) vs the cat sit on mat: sat->sit, the deleted = 2
    # chars: thecatsatonthemat (17) vs thecatsitonmat: a->i, t h e deleted = 4
    # strict: "The cat sat on the mat." vs "the cat sit on mat": T->t, a->i, "the " and
    # "." deleted = 1 + 1 + 4 + 1 = 7
    m = run_metrics(_fixture(), {"raw_transcript": "the cat sit on mat",
                                 "elapsed_seconds": 4.25})
    assert m["wer"] == pytest.approx(2 / 6)
    assert m["cer"] == pytest.approx(4 / 17)
    assert (m["word_edits"], m["reference_words"]) == (2.0, 6.0)
    assert (m["char_edits"], m["reference_chars"]) == (4.0, 17.0)
    assert m["strict_edit_distance"] == 7.0
    assert m["elapsed_seconds"] == 4.25


def test_apostrophes_follow_the_public_scorer() -> None:
    # "it's" and "its" are the same word after rig-v1 (our default keeps the apostrophe)
    m = run_metrics(_fixture(reference="It’s late."), {"raw_transcript": "its late"})
    assert m["wer"] == 0.0 and m["cer"] == 0.0


def test_empty_hypothesis_is_all_deletions_and_empty_reference_is_refused() -> None:
    assert run_metrics(_fixture(), {"raw_transcript": ""})["wer"] == 1.0
    with pytest.raises(ValueError, match="empty after rig-v1"):
        run_metrics(_fixture(reference="?!"), {"raw_transcript": "x"})


def test_meeting_figures() -> None:
    m = run_metrics(_fixture("meeting"), {"raw_transcript": "The cat sat on the mat.",
                                          "capture_complete": True,
                                          "speaker_turns_correct": 5,
                                          "speaker_turns_total": 6})
    assert m["capture_complete"] == 1.0
    assert m["speaker_turn_accuracy"] == pytest.approx(5 / 6)
    assert m["wer"] == 0.0


def test_correction_exact_and_near_miss() -> None:
    fixture = _fixture("correction", reference="Meet at 10:30.", seed="Meat at 10:13.")
    exact = run_metrics(fixture, {"final_transcript": "Meet at 10:30.",
                                  "correction_seconds": 12.5, "edit_actions": 3})
    assert exact == {"correction_exact": 1.0, "initial_strict_edit_distance": 3.0,
                     "final_strict_edit_distance": 0.0, "correction_seconds": 12.5,
                     "edit_actions": 3.0}
    near = run_metrics(fixture, {"final_transcript": "Meet at 10:13.",
                                 "correction_seconds": 9.0, "edit_actions": 2})
    # 10:30 vs 10:13: '3'->'1', '0'->'3' = 2 left; a correction is never normalised
    assert near["correction_exact"] == 0.0
    assert near["final_strict_edit_distance"] == 2.0
    assert run_metrics(fixture, {"final_transcript": "meet at 10:30."})[
        "correction_exact"] == 0.0


def test_error_rate_offers_rig_v1_as_a_named_normalisation(tmp_path) -> None:
    from pytest_dictbench.methods.error_rate import ErrorRate
    from pytest_dictbench.model import Case, Output, ScoreContext, Suite

    def wer(params: dict[str, object]) -> float:
        suite = Suite(id="s", version="1", title="t", method="error_rate", locale="en-US",
                      canary="c", root=tmp_path, cases=(), params=params)
        ErrorRate().check_params(suite)
        case = Case("c1", {"id": "c1", "reference": "It’s Anna’s book."})
        result = ErrorRate().score(case, Output("c1", "its annas book"), ScoreContext(suite))
        return result.metrics["word_sub"] / result.metrics["word_ref"]

    # default keeps apostrophes inside words: it's != its, anna's != annas (2 of 3 words)
    assert wer({}) == pytest.approx(2 / 3)
    assert wer({"normalization": "rig-v1"}) == 0.0
    from pytest_dictbench.errors import SuiteError
    with pytest.raises(SuiteError, match=r"params\.normalization must be one of default, rig-v1"):
        wer({"normalization": "rig-v2"})
