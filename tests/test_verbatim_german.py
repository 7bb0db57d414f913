"""The verbatim normalizer for German, German digits, and the typed inventory (issue 48)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_dictbench.methods.verbatim.inventory import typed_inventory
from pytest_dictbench.methods.verbatim.labels import gold_labels, gold_problems
from pytest_dictbench.methods.verbatim.normalize import language_of, normalize
from pytest_dictbench.methods.verbatim.numbers_de import cardinal_words_de
from pytest_dictbench.model import Case


@pytest.mark.parametrize(("text", "expected"), [
    # bare German fillers; "er" (he) and "um" (around) stay words
    ("Also ähm, er kommt um drei, äh, am Montag.", "also [um] er kommt um drei [uh] am montag"),
    ("Öhm, hm, das öh passt.", "[um] [um] das [uh] passt"),
    # tags in either language, German sound words
    ("[äh] [uh] [ähm] [lacht] (räuspert sich) <hustet> [seufzt]",
     "[uh] [uh] [um] [laughter] [throat_clear] [cough] [sigh]"),
    # cut-offs as in English; ß and umlauts stay letters
    ("Der Mon- Montag, die Stra* Straße", "der mon* montag die stra* straße"),
    # digits read in German
    ("Um 21 Uhr, 50 % und 2,5", "um einundzwanzig uhr fünfzig prozent und zwei komma fünf"),
])
def test_german_normalization(text: str, expected: str) -> None:
    assert normalize(text, "de") == expected


def test_english_keeps_its_own_spellings() -> None:
    assert normalize("So um er I was 21", "en") == "so [um] [uh] i was twenty one"
    assert normalize("[lacht] ähm", "en") == "[laughter] ähm"
    with pytest.raises(ValueError, match="no verbatim spellings for language 'fr'"):
        normalize("x", "fr")
    assert (language_of("de-DE"), language_of("de"), language_of("fr-FR")) == (
        "de", "de", "en")


@given(st.text(alphabet="aäöüßem hur[]()*-,. 0123456789", max_size=40))
def test_german_normalization_is_idempotent(text: str) -> None:
    once = normalize(text, "de")
    assert normalize(once, "de") == once


@pytest.mark.parametrize(("n", "words"), [
    (1, "eins"), (16, "sechzehn"), (21, "einundzwanzig"), (66, "sechsundsechzig"),
    (101, "einhunderteins"), (1001, "eintausendeins"), (2026, "zweitausendsechsundzwanzig"),
    (101000, "einhunderteintausend"), (2000000, "zwei millionen"),
    (1000001, "eine million eins"),
])
def test_german_cardinals(n: int, words: str) -> None:
    assert " ".join(cardinal_words_de(n)) == words


def test_german_gold_labels_by_hand() -> None:
    # 11 tokens: ähm (filler), ich ich (repetition + fluent), wollte, [lacht] (sound),
    # mor* (cut-off), morgen, also (other: a dropped discourse word), er, kommt, um
    gold = gold_labels("Ähm, ich ich wollte [lacht] mor- morgen, also, er kommt um",
                       "Ich wollte morgen, er kommt um", "de")
    assert gold.labels == ("filler", "repetition", "fluent", "fluent", "sound", "cutoff",
                           "fluent", "other", "fluent", "fluent", "fluent")
    assert gold.problems == ()
    # the English normalizer would call "er" and "um" fillers left in the intended text
    assert gold_problems("er kommt um", "er kommt um", "en")
    assert gold_problems("er kommt um", "er kommt um", "de") == []


def test_typed_inventory_by_hand() -> None:
    cases = [Case("a", {"verbatim": "Ähm, ich ich wollte [lacht] mor- morgen, also, er kommt",
                        "intended": "Ich wollte morgen, er kommt"}),
             Case("b", {"verbatim": "Ja, äh, gut.", "intended": "Ja, gut."})]
    assert typed_inventory(cases, "de") == {
        "utterances": 2, "tokens": 10 + 3, "fluent": 5 + 2, "filler": 1 + 1, "sound": 1,
        "cutoff": 1, "repetition": 1, "other": 1, "disfluencies": 6}
