"""Structure checks: enumerations as lists (C1), lists set apart (C4), over-formatting of
short utterances (C8).

Lines are read from the output as written (before width folding, so that circled
numbers survive). A *list line* starts with a bullet (``・ • ● ○ ◦ ▪ ‣``, or ``- * +``
followed by a space), a number with ``.`` or ``)`` (``1.``, ``2)``, ``(3)``, full-width
too) or a circled number. A *heading* is a markdown heading (``#``), a line that is only
``【...】``, a line led by ``■ □ ◆ ◇ ▼ ▽``, or a line that is only ``**bold**``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ...text.japanese import analyse
from .checkbase import PASS, Check, CheckInput, listing

__all__ = ["Layout", "check_list_layout", "check_list_separation", "check_over_formatting"]

_LIST_LINE = re.compile(
    r"^[ \t\u3000]*(?:[・･•●○◦▪‣]|[-*+－＊＋][ \t\u3000]|[0-9０-９]{1,3}[.)．）](?![0-9０-９])"
    r"|[(（][0-9０-９]{1,3}[)）]|[①-⑳])"
)
_HEADING = re.compile(
    r"^[ \t\u3000]*(?:#{1,6}[ \t\u3000]*\S|【[^】]*】[ \t\u3000]*$|[■□◆◇▼▽][ \t\u3000]*\S"
    r"|\*\*[^*]+\*\*[ \t\u3000]*[:：]?[ \t\u3000]*$)"
)


@dataclass(frozen=True)
class Layout:
    """The lines of a text, classified."""

    lines: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> Layout:
        return cls(tuple(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")))

    def is_list(self, index: int) -> bool:
        return bool(_LIST_LINE.match(self.lines[index]))

    def is_blank(self, index: int) -> bool:
        return not self.lines[index].strip()

    @property
    def headings(self) -> list[str]:
        return [line.strip() for line in self.lines if _HEADING.match(line)]

    @property
    def list_blocks(self) -> list[tuple[int, int]]:
        """``(first, last + 1)`` line ranges of consecutive list lines."""
        blocks: list[tuple[int, int]] = []
        start: int | None = None
        for i in range(len(self.lines) + 1):
            listed = i < len(self.lines) and self.is_list(i)
            if listed and start is None:
                start = i
            elif not listed and start is not None:
                blocks.append((start, i))
                start = None
        return blocks

    def unseparated_lists(self) -> list[str]:
        """The line right before each list that is not preceded by a blank line."""
        return [
            self.lines[first - 1].strip()
            for first, _ in self.list_blocks
            if first > 0 and not self.is_blank(first - 1)
        ]


def _short(line: str, limit: int = 16) -> str:
    line = line.strip()
    return line if len(line) <= limit else line[:limit] + "…"


def _items_on_list_lines(layout: Layout, items: Sequence[tuple[str, ...]]) -> list[bool]:
    """For each item, whether it sits on a list line of its own (greedy, in order)."""
    lines = [analyse(layout.lines[i]) for i in range(len(layout.lines)) if layout.is_list(i)]
    used: set[int] = set()
    placed: list[bool] = []
    for variants in items:
        spot = next(
            (
                n
                for n, line in enumerate(lines)
                if n not in used and any(line.contains(v) for v in variants)
            ),
            None,
        )
        if spot is not None:
            used.add(spot)
        placed.append(spot is not None)
    return placed


def check_list_layout(inp: CheckInput) -> Check | None:
    """C1: an enumeration marked ``as_list`` has each of its items on its own list line.

    A case without such an enumeration decides nothing (C1 needs judgement there). Items
    missing from the output altogether are left to A1; with fewer than two items present
    there is no layout to judge. Any present item outside a list scores 1 (a run-on
    sentence or a half-made list).
    """
    enumeration = inp.case.enumeration
    if enumeration is None or not enumeration.as_list:
        return None
    present = [v for v in enumeration.items if any(inp.output.contains(x) for x in v)]
    if len(present) < 2:
        return PASS
    placed = _items_on_list_lines(Layout.of(inp.raw_output), present)
    if all(placed):
        return PASS
    loose = [v[0] for v, ok in zip(present, placed, strict=True) if not ok]
    if not any(placed):
        return 1, f"enumeration written as running text, not a list: {listing(loose)}"
    return 1, f"enumeration item(s) not on a list line of their own: {listing(loose)}"


def check_list_separation(inp: CheckInput) -> Check:
    """C4: a list follows a blank line (or starts the text), unless an expected output
    also runs a list straight on from the line before it."""
    if any(Layout.of(e).unseparated_lists() for e in inp.case.expected):
        return PASS
    lines = Layout.of(inp.raw_output).unseparated_lists()
    if lines:
        shown = ", ".join(f"'{_short(line)}'" for line in lines)
        return 1, f"list not separated by a blank line from the line before: {shown}"
    return PASS


def _formatting(text: str) -> Counter[str]:
    layout = Layout.of(text)
    found: Counter[str] = Counter(f"heading '{_short(h)}'" for h in layout.headings)
    for first, last in layout.list_blocks:
        if last - first == 1:
            found["one-item list"] += 1
    return found


def check_over_formatting(inp: CheckInput) -> Check | None:
    """C8: a short item gets no heading and no one-item list (beyond its expected outputs);
    an enumeration marked ``as_list: false`` is not turned into a list. An item that is
    neither short nor has such an enumeration decides nothing (C8 needs judgement)."""
    enumeration = inp.case.enumeration
    running_text = enumeration is not None and not enumeration.as_list
    if not inp.case.short and not running_text:
        return None
    problems: list[str] = []
    if inp.case.short:
        allowed: Counter[str] = Counter()
        for expected in inp.case.expected:
            allowed |= _formatting(expected)
        problems += list((_formatting(inp.raw_output) - allowed).elements())
    if running_text:
        assert enumeration is not None
        placed = _items_on_list_lines(Layout.of(inp.raw_output), enumeration.items)
        if sum(placed) >= 2:
            problems.append("enumeration made into a list where running text is expected")
    if problems:
        return 1, f"over-formatted: {listing(problems)}"
    return PASS
