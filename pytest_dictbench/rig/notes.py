"""Facts a live run keeps in a results row's ``notes`` cell.

The 28 columns have no cell for a declared environment value that differs from the
detected one, or for an offline audit. A live row appends them to its notes as one
marked JSON suffix, readable by people and read back on import::

    command exited with status 1 [dictbench: {"declared": {"hardware": "Mac mini M2"}}]

A row without the suffix (every row a person writes) has no such facts. The facts are
as trustworthy as the CSV that carries them: an imported CSV is taken at its word, for
these facts as for its transcripts and timings.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["compose_notes", "split_notes"]

_MARK = "[dictbench: "
_DEFUSED = "[dictbench (quoted): "


def compose_notes(text: str, facts: dict[str, Any]) -> str:
    """``text`` with ``facts`` appended as the marked suffix (``text`` alone if none).
    A marker inside ``text`` (a product's own error message) is defused first, so that
    only the run itself can state facts."""
    text = text.replace(_MARK, _DEFUSED)
    if not facts:
        return text
    suffix = f"{_MARK}{json.dumps(facts, sort_keys=True, ensure_ascii=False)}]"
    return f"{text} {suffix}" if text else suffix


def split_notes(notes: str) -> tuple[str, dict[str, Any]]:
    """``(text, facts)`` of a notes cell; a suffix that is not valid JSON stays text."""
    head, mark, tail = notes.rpartition(_MARK)
    if not mark or not tail.endswith("]"):
        return notes, {}
    try:
        facts = json.loads(tail[:-1])
    except json.JSONDecodeError:
        return notes, {}
    if not isinstance(facts, dict):
        return notes, {}
    return head.rstrip(), facts
