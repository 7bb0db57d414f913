"""Minimum-cost alignments of token sequences (own dynamic programme, integer costs).

Two users:

- :func:`plain_alignment`: Levenshtein alignment (match 0, substitution, deletion and
  insertion 1), used to derive gold labels from verbatim vs intended tokens.
- :func:`tag_aware_alignment`: a prediction against labelled gold tokens, where costs
  depend on the gold label (see below).

Tag-aware costs, in units of ``U``, with a half unit ``H = U / 2``, ``eps = 1`` and
``H = 2 * len(gold) + 1``: one alignment collects at most two epsilons per gold token, so
all its epsilons add up to less than ``H`` and can only break ties between alignments of
equal real cost, never outweigh a real difference:

==========================  ================  ===================
operation                   gold Fluent        gold disfluent
==========================  ================  ===================
match (same token)          0                  eps
substitute (same class)     U + eps            U + 2 eps
delete (gold unmatched)     U                  H
insert (extra prediction)   U                  U
==========================  ================  ===================

So: deleting a disfluent token costs half of deleting a fluent one; of two equally good
alignments, the one matching Fluent rather than disfluent tokens wins, and then the one
with fewer substitutions (``we we went`` -> ``so we we we went`` inserts the extra
``we`` instead of shifting words into substitutions).

Token classes: words and cut-off fragments form one class, fillers another, sound tags a
third. A token is never substituted by a token of another class (a filler never
"aligns" to a word): such pairs are a deletion plus an insertion.

Ties left after the epsilons are broken during the trace back (from the end): prefer the
diagonal step (match or substitution), then a gold deletion, then an insertion. So of
two equal copies, the later one is the one aligned, and earlier copies are the
unmatched ones -- the convention the Repetition rule relies on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .normalize import FILLERS

__all__ = ["Pair", "plain_alignment", "tag_aware_alignment", "token_class"]

#: One alignment step: (gold index or None, prediction index or None).
Pair = tuple[int | None, int | None]


def token_class(token: str) -> int:
    """Substitution class: 0 words and cut-offs, 1 fillers, 2 sound tags."""
    if token[:1] != "[":
        return 0
    return 1 if token in FILLERS else 2


#: Width added on each side of the band the cost table is first filled in.
_FIRST_SLACK = 5
_NEVER = 1 << 60  # unreachable cells, and substitutions across classes


@dataclass(frozen=True)
class _Costs:
    """Everything the dynamic programme needs, one entry per gold token."""

    gold: Sequence[str]
    pred: Sequence[str]
    gold_class: Sequence[int]
    pred_class: Sequence[int]
    match: Sequence[int]
    sub: Sequence[int]
    dele: Sequence[int]
    ins: int


def _fill(c: _Costs, slack: int) -> list[list[int]]:
    """The cost table, filled only in a band around the corner-to-corner diagonal.

    Row ``i`` is filled for columns within ``slack`` of the segment between ``i`` and
    ``i - (n - m)``; cells outside hold ``_NEVER`` (or more). Written for speed: plain
    lists, locals only, one ``zip`` per row.
    """
    gold, pred, pred_class, ins, never = c.gold, c.pred, c.pred_class, c.ins, _NEVER
    m = len(pred)
    shift = len(gold) - m
    below = (shift if shift > 0 else 0) + slack  # row i starts at column i - below
    above = (-shift if shift < 0 else 0) + slack  # and ends at column i + above
    blank = [never] * (m + 1)
    first = blank[:]
    for j in range(min(m, above) + 1):
        first[j] = j * ins
    table = [first]
    prev = first
    # The cost lists may run past a gold sequence cut short by _common_suffix.
    rows = zip(gold, c.gold_class, c.match, c.sub, c.dele, strict=False)
    for i, (token, cls, match, sub, dele) in enumerate(rows, start=1):
        lo = i - below if i > below else 1
        hi = i + above if i + above < m else m
        row = blank[:]
        row[0] = prev[0] + dele
        left = row[lo - 1]
        diag = prev[lo - 1]
        values: list[int] = []
        append = values.append
        for p_token, p_class, up in zip(pred[lo - 1:hi], pred_class[lo - 1:hi],
                                        prev[lo:hi + 1], strict=True):
            if p_token == token:
                step = diag + match
            elif p_class == cls:
                step = diag + sub
            else:
                step = never
            diag = up
            up += dele
            left += ins
            if up < left:
                left = up
            if step < left:
                left = step
            append(left)
        row[lo:hi + 1] = values
        table.append(row)
        prev = row
    return table


def _slack_needed(c: _Costs, cost: int) -> int:
    """The least slack such that every path leaving the band costs more than ``cost``.

    A path through a cell below the band (``i - j > max(0, n - m) + slack``) makes at
    least ``a`` deletions and ``a - (n - m)`` insertions for some
    ``a > max(0, n - m) + slack``; a path above it, the mirror image. Each deletion
    costs at least the cheapest one, so the bound grows by ``ins + cheapest deletion``
    per unit of slack.
    """
    shift = len(c.gold) - len(c.pred)
    cheapest_del = min(c.dele, default=c.ins)
    below = max(0, shift) + 1
    above = -min(0, shift) + 1
    at_zero = min(cheapest_del * below + c.ins * (below - shift),
                  c.ins * above + cheapest_del * (shift + above))
    return max(0, (cost - at_zero) // (c.ins + cheapest_del) + 1)


def _table(c: _Costs) -> list[list[int]]:
    """The cost table, exact on every cell an optimal path can use.

    The banded optimum is the cost of a real alignment, so the true optimum is no
    higher. When the band already keeps out every path dearer than that, it is final;
    otherwise it is refilled once with a slack that does (no path outside the new band
    can match or beat the first optimum, hence none can tie with the true one).
    """
    slack = _FIRST_SLACK
    table = _fill(c, slack)
    if slack < max(len(c.gold), len(c.pred)):
        needed = _slack_needed(c, table[-1][-1])
        if needed > slack:
            table = _fill(c, needed)
    return table


def _align(c: _Costs, *, trim_suffix: bool = True, band: bool = True) -> list[Pair]:
    """Optimal alignment of ``c.gold`` and ``c.pred`` (trace back in the module docstring)."""
    n, m = len(c.gold), len(c.pred)
    if trim_suffix:
        n, m = _common_suffix(c.gold, c.pred, c.match, c.dele)
    suffix: list[Pair] = [(n + k, m + k) for k in range(len(c.gold) - n)]
    head = _Costs(c.gold[:n], c.pred[:m], c.gold_class, c.pred_class[:m], c.match, c.sub,
                  c.dele, c.ins)
    table = _table(head) if band else _fill(head, max(n, m))
    pairs = _trace_back(table, head)
    return pairs + suffix if suffix else pairs


def _common_suffix(
    gold: Sequence[str], pred: Sequence[str], match_cost: Sequence[int],
    del_cost: Sequence[int],
) -> tuple[int, int]:
    """Lengths of ``gold`` and ``pred`` once equal trailing tokens are cut off.

    Only gold tokens with match cost 0 and the highest deletion cost are cut. For them an
    optimal alignment always matches the two last tokens (moving any other partner of
    either onto a deletion or insertion costs no more), and the trace back, which tries
    the diagonal first, takes that step; so the cut changes nothing but the time spent.
    """
    n, m = len(gold), len(pred)
    top = max(del_cost, default=0)
    while n and m and gold[n - 1] == pred[m - 1] and not match_cost[n - 1] \
            and del_cost[n - 1] == top:
        n -= 1
        m -= 1
    return n, m


def _trace_back(table: list[list[int]], c: _Costs) -> list[Pair]:
    gold, pred = c.gold, c.pred
    i, j = len(gold), len(pred)
    pairs: list[Pair] = []
    while i or j:
        here = table[i][j]
        if i and j:
            if gold[i - 1] == pred[j - 1]:
                step = c.match[i - 1]
            elif c.gold_class[i - 1] == c.pred_class[j - 1]:
                step = c.sub[i - 1]
            else:
                step = -1
            if step >= 0 and table[i - 1][j - 1] + step == here:
                pairs.append((i - 1, j - 1))
                i, j = i - 1, j - 1
                continue
        if i and table[i - 1][j] + c.dele[i - 1] == here:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    pairs.reverse()
    return pairs


def plain_alignment(gold: Sequence[str], pred: Sequence[str]) -> list[Pair]:
    """Levenshtein alignment with unit costs; every token in one substitution class."""
    n, m = len(gold), len(pred)
    return _align(_Costs(gold, pred, [0] * n, [0] * m, [0] * n, [1] * n, [1] * n, 1))


def tag_aware_alignment(
    gold: Sequence[str], gold_fluent: Sequence[bool], pred: Sequence[str]
) -> list[Pair]:
    """Align ``pred`` to labelled gold tokens with the costs in the module docstring.

    ``gold_fluent[i]`` says whether gold token ``i`` is Fluent (anything else counts as
    disfluent). Both sequences may be empty.
    """
    half = 2 * len(gold) + 1
    unit = 2 * half
    match = [0 if fluent else 1 for fluent in gold_fluent]
    sub = [unit + 1 if fluent else unit + 2 for fluent in gold_fluent]
    dele = [unit if fluent else half for fluent in gold_fluent]
    return _align(_Costs(gold, pred, [token_class(t) for t in gold],
                         [token_class(t) for t in pred], match, sub, dele, unit))
