"""Single cells of a results CSV: trimming, numbers, control characters and the
export's formula guard. Pure."""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = ["clean", "neutralise", "number", "restore", "trim"]


def trim(text: str) -> str:
    """A cell without the spaces and tabs around it (a no-break space is kept: it is
    almost always pasted by accident, and then the cell is refused)."""
    return text.strip(" \t")


#: Numbers as the scorer's export must spell them: ASCII digits, optional sign, decimal
#: point and exponent (no underscores, no other scripts' digits, no hex, no inf/nan).
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_PLAIN = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def number(cells: dict[str, str], column: str, integer: bool, ref: Any) -> Any:
    """The number in ``cells[column]`` (None when blank); a spelling other than plain
    digits is rewritten in the cell as the canonical number, so exports never carry it."""
    text = trim(cells[column])
    if not text:
        return None
    kind = "a whole number" if integer else "a number"
    if not (_INTEGER if integer else _DECIMAL).fullmatch(text):
        raise ref(column, f"{text!r} is not {kind} >= 0 (ASCII digits only)")
    value = int(text) if integer else float(text)
    if not math.isfinite(value) or value < 0:
        raise ref(column, f"{text!r} is not a finite number >= 0")
    value = value + 0  # -0 and -0.0 are zero
    if not integer and value == 0:
        value = 0.0
    if not _PLAIN.fullmatch(text):
        cells[column] = str(value) if integer else repr(float(value))
    return value


#: Control characters refused in any cell (TAB, LF and CR are text).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: A cell a spreadsheet would run as a formula; exports write it behind one ``'``.
_FORMULA = re.compile(r"'*[=+\-@\t\r]")


def neutralise(cell: str) -> str:
    """``cell`` as the export writes it: one ``'`` in front when a spreadsheet would run
    it as a formula (it starts with ``= + - @``, TAB or CR, after any quotes ``'``).
    :func:`restore` undoes it exactly: ``restore(neutralise(x)) == x`` for every text."""
    return "'" + cell if _FORMULA.match(cell) else cell


def restore(cell: str) -> str:
    """A read cell with the export's formula guard removed (see :func:`neutralise`)."""
    return cell[1:] if cell.startswith("'") and _FORMULA.match(cell[1:]) else cell


def clean(text: str, column: str, ref: Any) -> str:
    """``text``, refused through ``ref`` when it holds a control character."""
    found = _CONTROL.search(text)
    if found:
        raise ref(column, f"control character U+{ord(found.group()):04X} at offset "
                  f"{found.start()} (only TAB, LF and CR are allowed)")
    return text
