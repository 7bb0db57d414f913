"""The ``whisper`` normaliser against OpenAI's own (issue 44, PS18).

The oracle is the ``whisper-normalization`` package (test extra): its ``english.py`` and
``basic.py`` are openai/whisper's ``whisper/normalizers/`` files at c0d2f624 with only
line wrapping, comments and import order changed, and its ``english.json`` is the same
bytes (tests/published/README.md says how that was checked). It needs no torch, which
OpenAI's ``openai-whisper`` package does. Our normaliser is built on a different package
(``whisper-normalizer``), so any rule that package adds or changes shows here.
"""

from __future__ import annotations

import hashlib
import json
import random
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("whisper_normalizer")
oracle_module = pytest.importorskip("whisper_normalization")

from pytest_dictbench.text.whisper import whisper_english  # noqa: E402

#: sha256 of openai/whisper ``whisper/normalizers/english.json`` at c0d2f624.
OPENAI_SPELLINGS_SHA256 = "6607f948be9824d2e1b2fa2223cd94c06c45afa4e05ea0e3d5e1f2bdffde2465"

ORACLE = oracle_module.EnglishTextNormalizer()
SPELLINGS: dict[str, str] = ORACLE.standardize_spellings.mapping

NUMBERS = [
    "zero", "one", "two", "three", "eleven", "twelve", "nineteen", "twenty", "twenty one",
    "forty-two", "ninety nine", "a hundred", "one hundred and five", "two hundred thousand",
    "a million", "three point five", "one oh one", "double oh seven", "nineteen ninety",
    "two thousand and twenty", "twenty twenty four", "sixty-fourth", "first", "second",
    "third", "twenty first", "hundredth", "millionth", "twenties", "nineteen sixties",
    "1960s", "274th", "32nd", "1st", "2nd", "3rd", "10", "1,000", "1,234,567", "3.14",
    ".5", "0.25", "007", "1/2", "3/4", "one half", "a quarter", "three quarters",
    "two thirds", "minus five", "negative three", "plus two", "oh", "nine one one",
    "five hundred and sixty seven", "twelve hundred", "thirteen o'clock",
]
MONEY = [
    "$20", "$20 million", "twenty dollars", "$5.50", "five dollars and fifty cents",
    "£3", "three pounds", "€10", "ten euros", "99¢", "ninety nine cents", "$1,000,000",
    "one million dollars", "$2.5 billion", "a dollar", "one cent", "$ 5", "£2.75",
    "$3 and 50¢", "€4.99", "five bucks", "100%", "ten percent", "50 per cent",
    "one hundred percent", "12.5%", "a third of a percent",
]
TIMES = [
    "9:15", "nine fifteen", "10:30 a.m.", "half past ten", "quarter to nine", "noon",
    "12:00", "5 p.m.", "1999", "in 2024", "the year two thousand", "March 3rd",
    "the 4th of July", "1/1/2000", "24/7", "3-2", "4x4", "5'11\"", "6ft",
]
WORDS = [
    "won't", "can't", "let's", "ain't", "y'all", "wanna", "gotta", "gonna", "i'ma",
    "imma", "woulda", "coulda", "shoulda", "ma'am", "she'd been", "he's been", "it'd gone",
    "she's gone", "we'd done", "he's got", "don't", "you're", "it's", "I'd", "we'll",
    "they've", "I'm", "'cause", "cause", "because", "kinda", "sorta", "dunno", "Mr.",
    "Mrs.", "Ms.", "St.", "Dr.", "Prof.", "Capt.", "Gov.", "Ald.", "Gen.", "Sen.", "Rep.",
    "Pres.", "Rev.", "Hon.", "Asst.", "Assoc.", "Lt.", "Col.", "Jr.", "Sr.", "Esq.",
    "hmm", "mm", "mhm", "mmm", "uh", "um", "Hmm,", "Uh-huh", "20mm", "e-mail",
    "well-known", "co-operate", "re-enter", "state-of-the-art", "rock 'n' roll",
    "café", "naïve", "façade", "Zürich", "résumé", "œuvre", "Øresund", "straße", "Łódź",
    "þorn", "daß", "ﬁne", "²", "½", "№5", "x²", "[laughter]", "<unk>", "(inaudible)",
    "(a (nested) one)", "[a] and [b]", "(unclosed", "closed]", "#hashtag", "@user",
    "a&b", "and/or", "C++", "U.S.A.", "e.g.", "i.e.", "etc.", "...", "—", "–", "“quoted”",
    "‘single’", "it ' s", "rock ’n’ roll", "o'clock", "the end.", "really?!", "semi;colon",
    "tab\there", "new\nline", "  spaced  ", "ALL CAPS", "MiXeD", "ok", "okay", "O.K.",
]


def _spelling_words(rng: random.Random, count: int) -> list[str]:
    british = sorted(SPELLINGS)
    words = rng.sample(british, count)
    american = [SPELLINGS[w] for w in words[: count // 4]]
    return words + american + [w.capitalize() for w in words[:50]]


def _sentences() -> list[str]:
    """A few thousand sentences from the normaliser's tricky material, seeded."""
    rng = random.Random(44)
    pools = [NUMBERS, MONEY, TIMES, WORDS, _spelling_words(rng, 600)]
    frames = ["{} and {}", "It was {}, not {}.", "{} {}", "Was it {} ({})?",
              "She said \"{}\" then {}!", "{}: {}", "About {}, maybe {}.", "{}-{}",
              "I paid {} for {}", "the {} {} of them"]
    sentences = [item for pool in pools for item in pool]
    for _ in range(3000):
        first, second = rng.choice(pools), rng.choice(pools)
        sentences.append(rng.choice(frames).format(rng.choice(first), rng.choice(second)))
    return sentences


SENTENCES = _sentences()


def test_the_oracle_spells_as_openai_does() -> None:
    """The oracle's spelling table is openai/whisper's english.json, byte for byte."""
    data = resources.files("whisper_normalization").joinpath("english.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == OPENAI_SPELLINGS_SHA256
    assert json.loads(data) == SPELLINGS


def test_the_pairs_are_many_and_varied() -> None:
    assert len(set(SENTENCES)) > 3500
    # the material does exercise the rules: numbers, spellings and fillers change
    assert ORACLE("twenty dollars") == "$20"
    assert ORACLE("the colour") == "the color"
    assert ORACLE("uh hmm yes") == "yes"


def test_ours_gives_openais_output_on_every_pair() -> None:
    """Issue 44 / PS18: every sentence, byte for byte."""
    differ = [(s, whisper_english(s), ORACLE(s)) for s in SENTENCES
              if whisper_english(s) != ORACLE(s)]
    assert differ == [], f"{len(differ)} of {len(SENTENCES)} differ, e.g. {differ[:5]}"


TOKENS = st.sampled_from(NUMBERS + MONEY + TIMES + WORDS + sorted(SPELLINGS)[::7])
SEPARATORS = st.sampled_from([" ", "  ", ", ", ". ", "-", "/", "'", "’", "(", ")", "[", "]",
                              "\t", " $", "% ", ":", "?"])


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(TOKENS, SEPARATORS), min_size=1, max_size=12))
def test_ours_agrees_on_generated_sentences(parts: list[tuple[str, str]]) -> None:
    text = "".join(token + sep for token, sep in parts)
    assert whisper_english(text) == ORACLE(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
               max_size=60))
def test_ours_agrees_on_arbitrary_text(text: str) -> None:
    assert whisper_english(text) == ORACLE(text)
