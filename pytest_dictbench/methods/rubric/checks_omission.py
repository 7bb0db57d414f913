"""A12 (omissions), automated where the output leaves out (almost) everything.

Two cases are decided without a judge; anything else is left to judgement:

* an **empty output** (nothing but whitespace) when an expected output is not empty:
  A12 = 0;
* an output sharing less than :data:`SIMILARITY_FLOOR` with the **closest known answer**
  (expected outputs and listed alternatives): A12 = 0. *Shared* is
  ``1 - d / n`` (floored at 0), where ``n`` is the known answer's length and ``d`` the
  character edit distance between the two, both compared width-folded without
  whitespace or light punctuation (:func:`~pytest_dictbench.text.japanese.bare`).

Example: the known answer ``明日の会議は10時からです`` has 13 characters; the output
``了解です`` is 11 edits away from it (9 deletions, 2 substitutions), so it shares
1 - 11/13 = 0.15 < 0.5: A12 = 0.
A homophone slip such as ``構成`` for ``校正`` in a 20-character answer shares 0.9 and
decides nothing.
"""

from __future__ import annotations

from ...text.diff import edit_distance
from ...text.japanese import bare
from .checkbase import Check, CheckInput

__all__ = ["SIMILARITY_FLOOR", "check_omission", "shared"]

#: Below this share of the closest known answer, an output counts as omitting it.
SIMILARITY_FLOOR = 0.5


def shared(output: str, known: str) -> float:
    """How much of ``known`` the output keeps: ``max(0, 1 - edit distance / len(known))``
    on :func:`bare` texts (1.0 when ``known`` is empty)."""
    a, b = bare(output), bare(known)
    if not b:
        return 1.0
    return max(0.0, 1.0 - edit_distance(a, b) / len(b))


def check_omission(inp: CheckInput) -> Check | None:
    """A12 = 0 for an empty output or one below the similarity floor; else undecided."""
    known = [*inp.case.expected, *(a.text for a in inp.case.alternatives)]
    if not any(text.strip() for text in inp.case.expected):
        return None
    if not inp.raw_output.strip():
        return 0, "empty output: everything spoken is left out"
    best = max(shared(inp.raw_output, text) for text in known)
    if best < SIMILARITY_FLOOR:
        return 0, (f"output shares {best:.2f} of the closest known answer "
                   f"(floor {SIMILARITY_FLOOR:.2f}): most of what was said is left out")
    return None
