"""Character diffs between an output and the closest expected output.

Both sides are NFKC-folded first (width differences are never errors). The closest
expected output is the one with the smallest character edit distance (Levenshtein, unit
costs); ties go to the earlier one. The rendered diff reads like ``git diff
--word-diff``: ``[-removed-]`` is text of the expected output that the output lacks,
``{+added+}`` is text the output has instead; long unchanged stretches are cut to a few
characters of context, and line breaks are shown as ``↵``.

Example::

    >>> render_diff("体制の見直しを始めます", "態勢の見直しを始めます")
    '[-体制-]{+態勢+}の見直しを始…'
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Sequence

__all__ = ["closest", "diff_against_closest", "edit_distance", "opcodes", "render_diff"]

#: Above this many DP cells the alignment falls back to difflib (fast, not minimal).
_MAX_CELLS = 2_000_000
#: Unchanged characters kept on each side of a change.
CONTEXT = 6
#: Longest rendered diff; anything beyond is cut with an ellipsis.
MAX_RENDERED = 240

#: One aligned piece: ``(tag, expected_part, output_part)`` with tag in
#: ``equal``, ``delete``, ``insert``, ``replace``.
Opcode = tuple[str, str, str]


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text.replace("\r\n", "\n"))


def _table(a: str, b: str) -> list[list[int]]:
    rows = [list(range(len(b) + 1))]
    for i, ca in enumerate(a, 1):
        prev = rows[-1]
        row = [i]
        for j, cb in enumerate(b, 1):
            row.append(min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb)))
        rows.append(row)
    return rows


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance between ``a`` and ``b`` counted in characters."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _merge(steps: list[tuple[str, str, str]]) -> list[Opcode]:
    merged: list[list[str]] = []
    for tag, x, y in steps:
        if merged and (merged[-1][0] == tag or (tag != "equal" and merged[-1][0] != "equal")):
            last = merged[-1]
            last[1] += x
            last[2] += y
            if last[0] != tag:
                last[0] = "replace"
        else:
            merged.append([tag, x, y])
    return [(t, x, y) for t, x, y in merged]


def opcodes(expected: str, output: str) -> list[Opcode]:
    """Align ``expected`` with ``output`` character by character (minimal edits)."""
    if len(expected) * len(output) > _MAX_CELLS:
        matcher = difflib.SequenceMatcher(None, expected, output, autojunk=False)
        return [(t, expected[i1:i2], output[j1:j2]) for t, i1, i2, j1, j2 in matcher.get_opcodes()]
    table = _table(expected, output)
    i, j = len(expected), len(output)
    steps: list[tuple[str, str, str]] = []
    while i or j:
        here = table[i][j]
        if i and j and expected[i - 1] == output[j - 1] and here == table[i - 1][j - 1]:
            steps.append(("equal", expected[i - 1], output[j - 1]))
            i, j = i - 1, j - 1
        elif i and j and here == table[i - 1][j - 1] + 1:
            steps.append(("replace", expected[i - 1], output[j - 1]))
            i, j = i - 1, j - 1
        elif i and here == table[i - 1][j] + 1:
            steps.append(("delete", expected[i - 1], ""))
            i -= 1
        else:
            steps.append(("insert", "", output[j - 1]))
            j -= 1
    steps.reverse()
    return _merge(steps)


def closest(output: str, expected: Sequence[str]) -> int:
    """Index of the expected text nearest to ``output`` by edit distance (first on ties)."""
    if not expected:
        raise ValueError("closest() needs at least one expected text, got none")
    folded = _fold(output)
    distances = [edit_distance(folded, _fold(e)) for e in expected]
    return distances.index(min(distances))


def _show(text: str) -> str:
    return text.replace("\n", "↵")


def render_diff(expected: str, output: str, context: int = CONTEXT) -> str:
    """Render the character diff of ``output`` against ``expected`` on one line."""
    ops = opcodes(_fold(expected), _fold(output))
    if all(tag == "equal" for tag, _, _ in ops):
        return "(no difference)"
    parts: list[str] = []
    for index, (tag, x, y) in enumerate(ops):
        if tag == "equal":
            first, last = index == 0, index == len(ops) - 1
            if first and len(x) > context:
                x = "…" + x[-context:]
            elif last and len(x) > context:
                x = x[:context] + "…"
            elif len(x) > 2 * context:
                x = x[:context] + "…" + x[-context:]
            parts.append(_show(x))
            continue
        if x:
            parts.append(f"[-{_show(x)}-]")
        if y:
            parts.append(f"{{+{_show(y)}+}}")
    rendered = "".join(parts)
    return rendered if len(rendered) <= MAX_RENDERED else rendered[: MAX_RENDERED - 1] + "…"


def diff_against_closest(output: str, expected: Sequence[str]) -> str:
    """Diff ``output`` against the closest of ``expected`` (empty when there is none)."""
    if not expected:
        return ""
    return render_diff(expected[closest(output, expected)], output)
