"""Japanese numerals to their value: ``三`` -> 3, ``一万二千`` -> 12000, ``3万`` -> 30000.

Accepted (after NFKC folding, so full-width digits are ASCII digits):

- Arabic digits with optional thousands commas and one decimal point (``1,500``, ``3.5``);
- kanji digits read positionally (``二〇二六`` -> 2026, ``七.二`` -> 7.2);
- kanji with the multipliers 十 百 千 and the myriads 万 億 兆, digits or kanji in front
  of them (``二十三`` -> 23, ``千五百`` -> 1500, ``3万`` -> 30000, ``1.5万`` -> 15000).

:func:`numeral_value` returns the value as the shortest decimal text (``"12000"``,
``"3.5"``), or ``None`` for anything else. Pure: no tokenizer, no I/O.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

__all__ = ["NUMERAL_CHARS", "numeral_value"]

_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6,
           "七": 7, "八": 8, "九": 9}
_SMALL = {"十": 10, "百": 100, "千": 1000}
_LARGE = {"万": 10**4, "億": 10**8, "兆": 10**12}
#: Every character that can be part of a numeral.
NUMERAL_CHARS = frozenset("0123456789,.") | frozenset(_DIGITS) | frozenset(_SMALL) | frozenset(
    _LARGE)
_ARABIC = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def _text(value: Decimal) -> str:
    """Shortest decimal text of ``value`` (no exponent, no trailing zeros)."""
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def _plain(part: str) -> Decimal | None:
    """Value of digits without multipliers: ``35``, ``1,500``, ``3.5``, ``二〇二六``,
    ``七.二``."""
    if _ARABIC.fullmatch(part):
        return Decimal(part.replace(",", ""))
    digits = "".join(str(_DIGITS[c]) if c in _DIGITS else c for c in part)
    if part and digits != part and re.fullmatch(r"\d+(?:\.\d+)?", digits):
        return Decimal(digits)  # positional kanji, perhaps with a decimal point
    return None


def _below_myriad(part: str) -> Decimal | None:
    """Value of a group below 万: ``千五百``, ``二十三``, ``35``, ``1.5``, ``3千``."""
    if not part:
        return None
    plain = _plain(part)
    if plain is not None:
        return plain
    total = Decimal(0)
    pending = ""
    for char in part:
        if char in _SMALL:
            if pending:
                head = _plain(pending)
                if head is None:
                    return None
            else:
                head = Decimal(1)
            total += head * _SMALL[char]
            pending = ""
        elif char in _DIGITS or char.isdigit() or char in ",.":
            pending += char
        else:
            return None
    if pending:
        tail = _plain(pending)
        if tail is None:
            return None
        total += tail
    return total


@lru_cache(maxsize=4096)
def numeral_value(text: str) -> str | None:
    """The value of a numeral (folded text) as decimal text, or ``None``."""
    if not text or any(c not in NUMERAL_CHARS for c in text):
        return None
    total = Decimal(0)
    rest = text
    try:
        for char, scale in sorted(_LARGE.items(), key=lambda kv: -kv[1]):
            if char in rest:
                head, rest = rest.split(char, 1)
                value = _below_myriad(head) if head else Decimal(1)
                if value is None:
                    return None
                total += value * scale
        if rest:
            value = _below_myriad(rest)
            if value is None:
                return None
            total += value
    except (InvalidOperation, ValueError):
        return None
    return _text(total)
