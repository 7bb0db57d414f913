"""Shared pieces of the automated checks: their input, their result, and expected-output
exemptions.

Every check returns a :data:`Check`, ``(score, evidence)`` with score 0, 1 or 2. Checks
that look for something *unwanted* (fillers, wrong kanji, forbidden words, headings...)
count what they find in the output and in each expected output, and penalise only the
excess over the expected output that has the most of it: if the case's own correct answer
contains ``あの`` as a demonstrative, or legitimately says ``違う``, the output may too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

from ...text.japanese import AnalysedText, analyse
from .casedata import RubricCase

__all__ = ["PASS", "Check", "CheckInput", "excess", "join_evidence", "listing"]

#: ``(score 0-2, evidence)``.
Check = tuple[int, str]

#: A check that found nothing to object to.
PASS: Check = (2, "")


@dataclass(frozen=True)
class CheckInput:
    """The case and the analysed output, with the expected outputs analysed on demand."""

    case: RubricCase
    raw_output: str

    @cached_property
    def output(self) -> AnalysedText:
        return analyse(self.raw_output)

    @cached_property
    def expected(self) -> tuple[AnalysedText, ...]:
        return tuple(analyse(text) for text in self.case.expected)


def excess(inp: CheckInput, count: Callable[[AnalysedText], Counter[str]]) -> Counter[str]:
    """What ``count`` finds in the output beyond the most found in any expected output."""
    allowed: Counter[str] = Counter()
    for expected in inp.expected:
        allowed |= count(expected)
    return count(inp.output) - allowed


def listing(items: Iterable[str], limit: int = 5) -> str:
    """``a, b, c`` (with ``×n`` for repeats and ``...`` past ``limit``) for evidence strings."""
    counts = Counter(items)
    shown = [f"{k} ×{n}" if n > 1 else k for k, n in counts.items()]
    if len(shown) > limit:
        shown = [*shown[:limit], f"... ({len(shown) - limit} more)"]
    return ", ".join(shown)


def join_evidence(checks: Iterable[Check]) -> Check:
    """The lowest score of ``checks`` with the evidence of every failing one."""
    checks = list(checks)
    score = min((s for s, _ in checks), default=2)
    evidence = "; ".join(e for s, e in checks if s < 2 and e)
    return score, evidence
