"""Spelling out digits a model writes, the way an American speaker reads them.

Gold transcripts of verbatim suites hold no digits; this only maps a model's digits
onto words so that ``3`` and ``three`` compare equal. Covered:

- non-negative integers below 10**15, with or without thousands commas
  (``1,250`` -> ``one thousand two hundred fifty``; no "and");
- numbers written with a leading zero, read digit by digit (``007`` -> ``zero zero seven``),
  and integers of 10**15 and more, read digit by digit too;
- decimals, read with "point" and single digits (``2.05`` -> ``two point zero five``);
- ordinals with an English suffix (``21st`` -> ``twenty first``);
- a percent sign right after a number (``50%`` -> ``fifty percent``).

Not covered (the signs stay punctuation and vanish later): negative numbers, currency,
years read in pairs ("nineteen ninety"), times ("9:05" becomes "nine zero five"),
fractions, Roman numerals.
"""

from __future__ import annotations

import re

__all__ = ["cardinal_words", "ordinal_words", "spell_out_numbers"]

_ONES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
    "eighteen", "nineteen",
)
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (1000, "thousand"))
_LIMIT = 10**15
_IRREGULAR_ORDINALS = {
    "one": "first", "two": "second", "three": "third", "five": "fifth",
    "eight": "eighth", "nine": "ninth", "twelve": "twelfth",
}

_NUMBER = re.compile(
    r"(?<![0-9])"
    r"(?P<int>[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)"
    r"(?:\.(?P<frac>[0-9]+))?"
    r"(?:(?P<ord>st|nd|rd|th)(?![^\W\d_]))?"
    r"(?P<pct>\s?%)?"
)


def _below_thousand(n: int) -> list[str]:
    words: list[str] = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words += [_ONES[hundreds], "hundred"]
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        words.append(_TENS[tens])
        if ones:
            words.append(_ONES[ones])
    elif rest or not words:
        words.append(_ONES[rest])
    return words


def cardinal_words(n: int) -> list[str]:
    """Words of a non-negative integer below 10**15 (``105`` -> ``one hundred five``)."""
    if n < 0 or n >= _LIMIT:
        raise ValueError(f"{n} is outside 0 .. 10**15 - 1")
    if n < 1000:
        return _below_thousand(n)
    words: list[str] = []
    for scale, name in _SCALES:
        chunk, n = divmod(n, scale)
        if chunk:
            words += [*_below_thousand(chunk), name]
    if n:
        words += _below_thousand(n)
    return words


def ordinal_words(n: int) -> list[str]:
    """Words of an ordinal (``21`` -> ``twenty first``, ``40`` -> ``fortieth``)."""
    words = cardinal_words(n)
    last = words[-1]
    if last in _IRREGULAR_ORDINALS:
        words[-1] = _IRREGULAR_ORDINALS[last]
    elif last.endswith("y"):
        words[-1] = last[:-1] + "ieth"
    else:
        words[-1] = last + "th"
    return words


def _digit_words(digits: str) -> list[str]:
    return [_ONES[int(d)] for d in digits]


def _integer_words(digits: str, ordinal: bool) -> list[str]:
    if (len(digits) > 1 and digits.startswith("0")) or int(digits) >= _LIMIT:
        return _digit_words(digits)
    value = int(digits)
    return ordinal_words(value) if ordinal else cardinal_words(value)


def _spell(match: re.Match[str]) -> str:
    digits = match["int"].replace(",", "")
    ordinal = bool(match["ord"]) and not match["frac"]
    words = _integer_words(digits, ordinal)
    if match["frac"]:
        words += ["point", *_digit_words(match["frac"])]
        if match["ord"]:  # "2.5th" is not a number anyone says; keep the letters
            words.append(match["ord"])
    if match["pct"]:
        words.append("percent")
    return " " + " ".join(words) + " "


def spell_out_numbers(text: str) -> str:
    """Replace every run of ASCII digits in ``text`` with words, padded by spaces."""
    return _NUMBER.sub(_spell, text)
