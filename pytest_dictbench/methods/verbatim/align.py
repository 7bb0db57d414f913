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

from .normalize import token_kind

__all__ = ["Pair", "plain_alignment", "tag_aware_alignment", "token_class"]

#: One alignment step: (gold index or None, prediction index or None).
Pair = tuple[int | None, int | None]

_CLASS_OF_KIND = {"word": 0, "cutoff": 0, "filler": 1, "sound": 2}


def token_class(token: str) -> int:
    """Substitution class: 0 words and cut-offs, 1 fillers, 2 sound tags."""
    return _CLASS_OF_KIND[token_kind(token)]


def _align(
    gold: Sequence[str],
    pred: Sequence[str],
    gold_class: Sequence[int],
    pred_class: Sequence[int],
    match_cost: Sequence[int],
    sub_cost: Sequence[int],
    del_cost: Sequence[int],
    ins_cost: int,
) -> list[Pair]:
    """Fill the cost table row by row (one row per gold token), then trace back."""
    n, m = len(gold), len(pred)
    first = [0] * (m + 1)
    for j in range(1, m + 1):
        first[j] = first[j - 1] + ins_cost
    table = [first]
    never = 1 << 60  # a cross-class substitution: never cheaper than delete + insert
    prev = first
    for i in range(n):
        token, cls = gold[i], gold_class[i]
        match, sub, dele = match_cost[i], sub_cost[i], del_cost[i]
        left = diag = prev[0]
        left += dele
        row = [left]
        append = row.append
        for p_token, p_class, up in zip(pred, pred_class, prev[1:], strict=True):
            if p_token == token:
                best = diag + match
            elif p_class == cls:
                best = diag + sub
            else:
                best = diag + never
            step = up + dele
            if step < best:
                best = step
            step = left + ins_cost
            if step < best:
                best = step
            append(best)
            left = best
            diag = up
        table.append(row)
        prev = row
    return _trace_back(table, gold, pred, gold_class, pred_class, match_cost, sub_cost,
                       del_cost, ins_cost)


def _trace_back(
    table: list[list[int]],
    gold: Sequence[str],
    pred: Sequence[str],
    gold_class: Sequence[int],
    pred_class: Sequence[int],
    match_cost: Sequence[int],
    sub_cost: Sequence[int],
    del_cost: Sequence[int],
    ins_cost: int,
) -> list[Pair]:
    i, j = len(gold), len(pred)
    pairs: list[Pair] = []
    while i or j:
        here = table[i][j]
        if i and j:
            if gold[i - 1] == pred[j - 1]:
                step = match_cost[i - 1]
            elif gold_class[i - 1] == pred_class[j - 1]:
                step = sub_cost[i - 1]
            else:
                step = -1
            if step >= 0 and table[i - 1][j - 1] + step == here:
                pairs.append((i - 1, j - 1))
                i, j = i - 1, j - 1
                continue
        if i and table[i - 1][j] + del_cost[i - 1] == here:
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
    return _align(gold, pred, [0] * n, [0] * m, [0] * n, [1] * n, [1] * n, 1)


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
    return _align(gold, pred, [token_class(t) for t in gold], [token_class(t) for t in pred],
                  match, sub, dele, unit)
