"""Text normalisation for error-rate scoring.

One documented pipeline (``normalize_for_wer``), built from small steps:

1. Unicode NFKC (full-width letters and digits become ASCII, compatibility forms fold);
2. curly apostrophes (U+2018, U+2019, U+02BC, U+FF07), and a backtick, an acute accent
   or a prime (U+2032) typed for one, become ``'`` (``isn`t`` is ``isn't``, one word);
3. lower case;
4. every punctuation (Unicode category P*) and symbol (S*) character becomes a space,
   except an apostrophe between two letters (``don't`` stays one word);
5. runs of whitespace collapse to one space, ends trimmed.

CER is computed on the same text with whitespace removed.

Example:
    >>> normalize_for_wer("Ｄon’t  STOP — it's 3:30!")
    "don't stop it's 3 30"
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

__all__ = ["TranslationTable", "collapse_whitespace", "fold", "is_punctuation_or_symbol",
           "is_word_char", "normalize_for_wer", "strict_text"]

_CURLY_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\uff07": "'",
                                    "`": "'", "\u2032": "'"})
#: Characters NFKC would decompose, mapped before it (the acute accent ´ as an apostrophe).
_BEFORE_NFKC = str.maketrans({"\u00b4": "'"})


def _any_of(table: dict[int, int]) -> re.Pattern[str]:
    """Finds any character ``table`` maps: most texts have none, and need no translate."""
    return re.compile("[" + re.escape("".join(map(chr, table))) + "]")


_NEEDS_BEFORE_NFKC = _any_of(_BEFORE_NFKC)
_APOSTROPHE_LIKE = _any_of(_CURLY_APOSTROPHES)


def collapse_whitespace(text: str) -> str:
    """Collapse runs of whitespace into one space and trim the ends (whitespace as
    ``str.isspace`` has it, the same characters as the pattern ``\\s``)."""
    return " ".join(text.split())


def fold(text: str) -> str:
    """NFKC (width and compatibility forms), curly apostrophes to ``'``, lower case."""
    if _NEEDS_BEFORE_NFKC.search(text):
        text = text.translate(_BEFORE_NFKC)
    folded = unicodedata.normalize("NFKC", text)
    if _APOSTROPHE_LIKE.search(folded):
        folded = folded.translate(_CURLY_APOSTROPHES)
    return folded.lower()


def is_word_char(char: str) -> bool:
    """Letters, digits and combining marks (so accents never split a word)."""
    return char.isalnum() or unicodedata.category(char).startswith("M")


def is_punctuation_or_symbol(char: str) -> bool:
    """Unicode categories P* and S*."""
    return unicodedata.category(char)[0] in "PS"


class TranslationTable(dict[int, "int | str"]):
    """A ``str.translate`` table whose entry for a code point is worked out by ``rule``
    (the character -> what replaces it) on first sight, then kept."""

    def __init__(self, rule: Callable[[str], str]) -> None:
        super().__init__()
        self._rule = rule

    def __missing__(self, code: int) -> str:
        value = self[code] = self._rule(chr(code))
        return value


#: Every punctuation or symbol character but ``'`` becomes a space.
_PUNCTUATION_TO_SPACE = TranslationTable(
    lambda char: " " if char != "'" and is_punctuation_or_symbol(char) else char)


def _drop_punctuation_and_symbols(text: str) -> str:
    spaced = text.translate(_PUNCTUATION_TO_SPACE)
    if "'" not in spaced:
        return spaced
    chars = list(spaced)
    last = len(text) - 1
    for i, char in enumerate(text):
        if char == "'" and not (0 < i < last and is_word_char(text[i - 1])
                                and is_word_char(text[i + 1])):
            chars[i] = " "
    return "".join(chars)


def normalize_for_wer(text: str) -> str:
    """Normalise text for WER and CER (see the module docstring)."""
    return collapse_whitespace(_drop_punctuation_and_symbols(fold(text)))


def strict_text(text: str) -> str:
    """Raw text for the strict edit distance: CRLF/CR become LF, one final newline cut."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text[:-1] if text.endswith("\n") else text
