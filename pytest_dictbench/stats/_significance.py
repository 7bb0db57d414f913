"""Significance tests and multiple-comparison corrections.

All functions are exact where the arithmetic allows it: the McNemar p-value is
computed with integers and converted to a float once, at the end.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from fractions import Fraction

__all__ = ["bonferroni", "holm", "mcnemar_exact"]


########################################################################################
# McNemar
########################################################################################


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar test on the two discordant counts of a paired comparison.

    ``b`` counts the items only the first system got wrong and ``c`` those only the
    second got wrong. Under the null hypothesis each discordant item is a fair coin, so
    ``X ~ Binomial(b + c, 1/2)`` and ``p = min(1, 2 * P(X <= min(b, c)))``. With no
    discordant item at all there is no evidence either way and the p-value is 1.0.

    Args:
        b: items where only the first system failed (a non-negative integer).
        c: items where only the second system failed (a non-negative integer).

    Returns:
        The two-sided p-value, in ``(0, 1]``.

    Raises:
        ValueError: a count is negative. TypeError: a count is not an integer.

    Example:
        >>> round(mcnemar_exact(5, 7), 3)
        0.774
        >>> mcnemar_exact(2, 1)
        1.0
    """
    b, c = operator.index(b), operator.index(c)
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be >= 0, got b={b} and c={c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = _binomial_lower_tail_count(n, min(b, c))
    # P(X <= k) = tail / 2**n, so the doubled tail is tail / 2**(n - 1).
    return min(1.0, float(Fraction(tail, 2 ** (n - 1))))


def _binomial_lower_tail_count(n: int, k: int) -> int:
    """Sum of ``comb(n, i)`` for ``i`` in ``0..k``, built term by term without floats."""
    term = 1  # comb(n, 0)
    total = 1
    for i in range(k):
        term = term * (n - i) // (i + 1)  # comb(n, i + 1), always an exact division
        total += term
    return total


########################################################################################
# Multiple comparisons
########################################################################################


def bonferroni(pvalues: Sequence[float]) -> list[float]:
    """Bonferroni-adjusted p-values: each p times the number of tests, capped at 1.

    Args:
        pvalues: raw p-values, each in ``[0, 1]``.

    Returns:
        Adjusted p-values in the order given.

    Example:
        >>> bonferroni([0.01, 0.04, 0.5])
        [0.03, 0.12, 1.0]
    """
    checked = _checked_pvalues(pvalues)
    m = len(checked)
    return [min(1.0, m * p) for p in checked]


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in the order given.

    Sort the m p-values in ascending order; the i-th smallest (i from 0) is multiplied
    by ``m - i`` and capped at 1, then a running maximum keeps the adjusted values
    monotone in the sorted order. Tied p-values get the same adjusted value.

    Args:
        pvalues: raw p-values, each in ``[0, 1]``.

    Returns:
        Adjusted p-values in the order given. A hypothesis is rejected at level alpha
        exactly when its adjusted p-value is at most alpha.

    Example:
        >>> holm([0.01, 0.04, 0.03, 0.005])
        [0.03, 0.06, 0.06, 0.02]
    """
    checked = _checked_pvalues(pvalues)
    m = len(checked)
    order = sorted(range(m), key=lambda i: (checked[i], i))
    adjusted = [0.0] * m
    running_max = 0.0
    for rank, index in enumerate(order):
        running_max = max(running_max, min(1.0, (m - rank) * checked[index]))
        adjusted[index] = running_max
    return adjusted


def _checked_pvalues(pvalues: Sequence[float]) -> list[float]:
    values = [float(p) for p in pvalues]
    for position, p in enumerate(values):
        if not 0.0 <= p <= 1.0:  # also rejects NaN
            raise ValueError(f"p-value #{position} is {p!r}; p-values must lie in [0, 1]")
    return values
