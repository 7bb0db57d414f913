"""Control characters made visible: what an output contains is shown, never obeyed.

An output may hold terminal escape sequences (ESC, CSI) or bidirectional overrides that
reorder what a reader sees. Reports and terminal lines show each such character as a
visible stand-in instead: C0 controls as their Unicode control pictures (ESC -> ``␛``),
DEL as ``␡``, and C1 controls, bidi controls and line/paragraph separators as
``\\u{...}`` escapes. Newline and tab are kept.
"""

from __future__ import annotations

__all__ = ["visible"]

#: Bidirectional formatting characters, plus the line and paragraph separators.
_FORMAT = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A),
           0x2028, 0x2029)


def _stand_in(code: int) -> str:
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"\\u{{{code:x}}}"


_TABLE = {code: _stand_in(code)
          for code in (*range(0x20), 0x7F, *range(0x80, 0xA0), *_FORMAT)
          if code not in (0x09, 0x0A)}


def visible(text: str) -> str:
    """``text`` with every control and bidi formatting character replaced by a visible
    stand-in (``"a\\x1b[31m"`` -> ``"a␛[31m"``, U+202E -> ``\\u{202e}``)."""
    return text.translate(_TABLE)
