"""Normalisation ``rig-v1`` and the per-run error figures of the rig methodology. Pure.

``rig-v1`` is the methodology's own normalisation for WER and CER: NFKC, lower case by
the fixture's locale (ICU), curly apostrophes and backticks made ASCII, then every
apostrophe deleted (``don't`` -> ``dont``: what the public reference scorer does, so a
team's existing numbers agree with ours), punctuation and symbols (Unicode categories
P* and S*) replaced by a space, whitespace collapsed. Words are the word-like segments
of ICU's word break iterator for the locale; CER counts code points without whitespace.
Strict edit distance is counted on the text as given (line endings normalised and one
terminal newline removed when the text was read).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

from rapidfuzz.distance import Levenshtein

from ..errors import require
from .normalize import TranslationTable, is_punctuation_or_symbol
from .normalize import strict_text as file_text

__all__ = ["NORMALIZATION", "char_tokens", "edit_distance", "file_text", "normalize",
           "word_tokens", "words_of"]

#: Name of this normalisation in suites and reports.
NORMALIZATION = "rig-v1"



#: Apostrophes (ASCII, curly, backtick) deleted, punctuation and symbols (P*, S*) made a
#: space, everything else kept.
_FOLD = TranslationTable(lambda char: "" if char in "'\u2019\u2018`" else (
    " " if is_punctuation_or_symbol(char) else char))
#: Lower-case Latin letters (ASCII and Latin-1/Extended-A/B), ASCII digits and spaces
#: only: ICU's word rules never break inside such a run and always break at a space, so
#: ``split`` is exact there (anything else goes through ICU itself).
_SIMPLE = re.compile(r"[a-z0-9\u00c0-\u024f ]*")
#: ICU rule status below this marks a segment that is not word-like (UBRK_WORD_NONE).
_WORD_NONE_LIMIT = 100


def _icu() -> Any:
    """The PyICU module (extra ``rig``), or a clear error saying how to get it."""
    return require("icu", "rig", "normalisation rig-v1 segments words with ICU and",
                   package="PyICU")


@lru_cache(maxsize=64)
def _locale(tag: str) -> Any:
    return _icu().Locale(tag.replace("-", "_"))


def _lower(text: str, locale: str) -> str:
    if text.isascii():
        return text.lower()
    return str(_icu().UnicodeString(text).toLower(_locale(locale)))


def normalize(text: str, locale: str) -> str:
    """``text`` normalised by ``rig-v1`` for the given BCP 47 locale."""
    text = _lower(unicodedata.normalize("NFKC", text), locale).translate(_FOLD)
    return " ".join(text.split())


def _segment(text: str, locale: str) -> list[str]:
    iterator = _icu().BreakIterator.createWordInstance(_locale(locale))
    iterator.setText(text)
    words, start = [], 0
    for end in iterator:
        if iterator.getRuleStatus() >= _WORD_NONE_LIMIT:
            words.append(text[start:end])
        start = end
    return words


def words_of(normalized: str, locale: str) -> list[str]:
    """Word-like ICU segments of an already normalised text."""
    if not normalized:
        return []
    if _SIMPLE.fullmatch(normalized):
        return normalized.split(" ")
    return _segment(normalized, locale)


def word_tokens(text: str, locale: str) -> list[str]:
    """Word-like ICU segments of the normalised text."""
    return words_of(normalize(text, locale), locale)


def char_tokens(text: str, locale: str) -> str:
    """The normalised text without whitespace (one token per code point)."""
    return normalize(text, locale).replace(" ", "")


def edit_distance(reference: str | list[str], hypothesis: str | list[str]) -> int:
    """Levenshtein distance (insertions, deletions, substitutions all cost 1)."""
    return int(Levenshtein.distance(reference, hypothesis))
