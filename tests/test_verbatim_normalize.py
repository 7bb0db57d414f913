"""The verbatim normalizer: canonical spellings, number words, idempotence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_dictbench.methods.verbatim.normalize import (
    SOUND_ALIASES,
    normalize,
    normalize_tokens,
    token_kind,
)
from pytest_dictbench.methods.verbatim.numbers import (
    cardinal_words,
    ordinal_words,
    spell_out_numbers,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # cut-off markers
        ("th- think", "th* think"),
        ("th* think", "th* think"),
        ('"wor-," she said', "wor* she said"),
        ("th\u2010 the", "th* the"),
        # a dash after a whole word breaks the sentence, not the word
        ("I was going to\u2014 well", "i was going to well"),
        ("to-- to", "to to"),
        ("well-known", "well known"),
        # tags, any case
        ("[UH] [Um]", "[uh] [um]"),
        ("[laughs] [Chuckles] (laughing) <laugh> *giggles*", "[laughter] " * 4 + "[laughter]"),
        ("[coughs] (cough)", "[cough] [cough]"),
        ("[Clears throat]", "[throat_clear]"),
        ("[door slams]", "[door_slams]"),
        ("[ah] [ehh]", "[uh] [uh]"),
        ("[]  [ ... ]", ""),
        # round brackets around ordinary words are ordinary words
        ("(see above)", "see above"),
        # bare fillers
        ("Um, so, uhh, erm, hmm", "[um] so [uh] [um] [um]"),
        ("er", "[uh]"),
        # interjections and the verb stay words
        ("ah eh oh err", "ah eh oh err"),
        # apostrophes
        ("Don\u2019t 'cause rock 'n' roll dogs'", "don't cause rock n roll dogs"),
        # digits
        ("at 9:30 on the 21st", "at nine thirty on the twenty first"),
        ("50% of 1,250", "fifty percent of one thousand two hundred fifty"),
        ("mp3", "mp three"),
        ("", ""),
    ],
)
def test_canonical_spellings(raw: str, expected: str) -> None:
    assert normalize(raw) == expected.strip()


def test_every_canonical_sound_name_maps_to_itself() -> None:
    for name in SOUND_ALIASES:
        assert normalize(f"[{name}]") == f"[{name}]"


def test_token_kinds() -> None:
    kinds = [token_kind(t) for t in normalize_tokens("so [um] th* [laughter] the")]
    assert kinds == ["word", "filler", "cutoff", "sound", "word"]


@pytest.mark.parametrize(
    ("number", "words"),
    [
        (0, "zero"),
        (7, "seven"),
        (13, "thirteen"),
        (20, "twenty"),
        (45, "forty five"),
        (100, "one hundred"),
        (105, "one hundred five"),
        (999, "nine hundred ninety nine"),
        (1000, "one thousand"),
        (1250, "one thousand two hundred fifty"),
        (1_000_000, "one million"),
        (2_000_017, "two million seventeen"),
        (3_400_000_000, "three billion four hundred million"),
        (10**12, "one trillion"),
    ],
)
def test_cardinal_words(number: int, words: str) -> None:
    assert " ".join(cardinal_words(number)) == words


@pytest.mark.parametrize(
    ("number", "words"),
    [(1, "first"), (2, "second"), (3, "third"), (4, "fourth"), (5, "fifth"), (8, "eighth"),
     (9, "ninth"), (12, "twelfth"), (20, "twentieth"), (21, "twenty first"),
     (40, "fortieth"), (100, "one hundredth")],
)
def test_ordinal_words(number: int, words: str) -> None:
    assert " ".join(ordinal_words(number)) == words


def test_cardinal_range_is_checked() -> None:
    with pytest.raises(ValueError, match="outside"):
        cardinal_words(10**15)
    with pytest.raises(ValueError, match="outside"):
        cardinal_words(-1)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("3.14", "three point one four"),
        ("2.05", "two point zero five"),
        ("007", "zero zero seven"),
        ("1000000000000000", "one " + "zero " * 15),
        ("3rd", "third"),
        ("5things", "five things"),
        ("1,2,3", "one , two , three"),
    ],
)
def test_spell_out_numbers(raw: str, expected: str) -> None:
    assert " ".join(spell_out_numbers(raw).split()) == expected.strip()


_TRICKY = st.sampled_from(list("abcehmrtuw IU019,.%-*_'[]()<>\u2010\u2014\u0301\u0130ß²\u2019"))


@settings(max_examples=400, deadline=None)
@given(st.text(_TRICKY, max_size=40))
def test_idempotent_on_convention_characters(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=40))
def test_idempotent_on_any_text(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once
    assert not any(c in "0123456789" for c in once)
    assert all(token and not any(c.isspace() for c in token) for token in once.split(" ") if once)
