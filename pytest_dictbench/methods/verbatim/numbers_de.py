"""Spelling out digits a model writes, the way a German speaker reads them.

As in :mod:`.numbers`, gold transcripts hold no digits; this maps a model's digits onto
words so that ``3`` and ``drei`` compare equal. German writes a number below a million
as one word (``21`` -> ``einundzwanzig``, ``1250`` -> ``eintausendzweihundertfünfzig``);
a million and more name the scale as a word of its own (``2000000`` -> ``zwei
millionen``). Covered: non-negative integers below 10**12, with or without thousands
dots (``1.250``); a leading zero or 10**12 and more, read digit by digit; decimals with a
comma, read with "komma" and single digits (``2,05`` -> ``zwei komma null fünf``); a
percent sign (``50 %`` -> ``fünfzig prozent``). Not covered: ordinals (``3.`` reads
"dritte", "dritten", ... by case), currency, times and years (their signs vanish later).
"""

from __future__ import annotations

import re

__all__ = ["cardinal_words_de", "spell_out_numbers_de"]

_ONES = ("null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun",
         "zehn", "elf", "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn",
         "achtzehn", "neunzehn")
_TENS = ("", "", "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig",
         "neunzig")
_LIMIT = 10**12
_NUMBER = re.compile(
    r"(?<![0-9])"
    r"(?P<int>[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]+)"
    r"(?:,(?P<frac>[0-9]+))?"
    r"(?P<pct>\s?%)?"
)


def _stem(digit: int) -> str:
    """A digit before ``hundert`` or ``und``: ``ein``, not ``eins``."""
    return "ein" if digit == 1 else _ONES[digit]


def _compound(n: int) -> str:
    """One word for ``1 <= n < 1000`` (``101`` -> ``einhunderteins``)."""
    hundreds, rest = divmod(n, 100)
    word = (_stem(hundreds) + "hundert") if hundreds else ""
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        word += (_stem(ones) + "und" if ones else "") + _TENS[tens]
    elif rest:
        word += _ONES[rest]
    return word


def _before_scale(n: int) -> str:
    """``n`` before ``tausend`` or ``millionen``: a final ``eins`` is ``ein``."""
    word = _compound(n)
    return word[:-1] if word.endswith("eins") else word


def cardinal_words_de(n: int) -> list[str]:
    """Words of a non-negative integer below 10**12 (``1001`` -> ``eintausendeins``)."""
    if n < 0 or n >= _LIMIT:
        raise ValueError(f"{n} is outside 0 .. 10**12 - 1")
    if n == 0:
        return ["null"]
    words: list[str] = []
    millions, rest = divmod(n, 10**6)
    if millions:
        billions, millions = divmod(millions, 1000)
        if billions:
            words += ["eine milliarde" if billions == 1 else
                      f"{_before_scale(billions)} milliarden"]
        if millions:
            words += ["eine million" if millions == 1 else
                      f"{_before_scale(millions)} millionen"]
    if rest:
        thousands, below = divmod(rest, 1000)
        word = (_before_scale(thousands) + "tausend") if thousands else ""
        if below:
            word += _compound(below)
        words.append(word)
    return " ".join(words).split()


def _spell(match: re.Match[str]) -> str:
    digits = match["int"].replace(".", "")
    if (len(digits) > 1 and digits.startswith("0")) or int(digits) >= _LIMIT:
        words = [_ONES[int(d)] for d in digits]
    else:
        words = cardinal_words_de(int(digits))
    if match["frac"]:
        words += ["komma", *(_ONES[int(d)] for d in match["frac"])]
    if match["pct"]:
        words.append("prozent")
    return " " + " ".join(words) + " "


def spell_out_numbers_de(text: str) -> str:
    """Replace every run of ASCII digits in ``text`` with German words, padded by spaces."""
    return _NUMBER.sub(_spell, text)
