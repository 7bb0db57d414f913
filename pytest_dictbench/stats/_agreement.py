"""Agreement between two raters (LLM judges, a judge and a human, two humans)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence

__all__ = ["cohen_kappa"]


def cohen_kappa(
    a: Sequence[Hashable], b: Sequence[Hashable], labels: Sequence[Hashable] | None = None
) -> float:
    """Cohen's kappa for two raters who labelled the same items with categories.

    ``kappa = (p_o - p_e) / (1 - p_e)`` where ``p_o`` is the share of items on which the
    raters agree and ``p_e = sum_k (row_k / n) * (col_k / n)`` the agreement expected
    from each rater's own label frequencies. Computed from integer counts as
    ``(n * agreed - sum_k row_k * col_k) / (n^2 - sum_k row_k * col_k)``, with a single
    rounding at the end.

    When the raters agree on every item the result is 1.0, including the case where
    both used one single category throughout (there ``p_e = 1`` and the formula is
    0/0; perfect agreement is reported as perfect).

    Labels can be any hashable values (rule scores 0/1/2, strings, ...). ``None`` is a
    label like any other: drop unjudged items before calling if that is not wanted.

    Args:
        a: first rater's label per item.
        b: second rater's label per item, aligned with ``a``.
        labels: the allowed categories; a label outside them is an error. By default
            every label that occurs is allowed.

    Returns:
        Kappa, in ``[-1, 1]``.

    Raises:
        ValueError: no items, lengths differ, or a label is not in ``labels``.

    Example:
        >>> cohen_kappa([2, 2, 1, 0], [2, 1, 1, 0])  # p_o = 3/4, p_e = 5/16
        0.6363636363636364
    """
    if len(a) != len(b):
        raise ValueError(f"raters must label the same items; got {len(a)} and {len(b)} labels")
    n = len(a)
    if n == 0:
        raise ValueError("cohen_kappa needs at least one item")
    if labels is not None:
        allowed = set(labels)
        for rater, ratings in (("a", a), ("b", b)):
            for position, label in enumerate(ratings):
                if label not in allowed:
                    raise ValueError(
                        f"{rater}[{position}] is {label!r}, not one of the labels {list(labels)!r}"
                    )
    agreed = sum(1 for x, y in zip(a, b, strict=True) if x == y)
    if agreed == n:
        return 1.0
    counts_a = Counter(a)
    counts_b = Counter(b)
    chance = sum(count * counts_b[label] for label, count in counts_a.items())
    # chance < n^2 here: chance == n^2 would need both raters on one shared label.
    return (n * agreed - chance) / (n * n - chance)
