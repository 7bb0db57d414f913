"""Paired comparison of two products on the same items."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, SharedQuantiles, paired_bootstrap
from ._significance import mcnemar_exact

__all__ = ["compare_paired"]


def compare_paired(
    scores_a: Sequence[float],
    scores_b: Sequence[float],
    failed_a: Sequence[bool],
    failed_b: Sequence[bool],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    shared: SharedQuantiles | None = None,
) -> dict[str, Any]:
    """Compare product B with product A item by item (all four inputs aligned per item).

    Failures are compared with :func:`mcnemar_exact` on the discordant items; scores
    with the mean of the per-item differences ``b - a`` and its percentile bootstrap
    interval (:func:`paired_bootstrap`). The difference is ``resolved`` when the
    interval excludes 0.

    Args:
        scores_a: product A's score per item (failed items included, e.g. as 0).
        scores_b: product B's score per item.
        failed_a: whether A failed each item (e.g. a meaning error).
        failed_b: whether B failed each item.
        resamples: bootstrap resamples.
        seed: bootstrap seed.
        confidence: interval coverage.
        shared: indices drawn once for many comparisons of one size (the same result).

    Returns:
        A JSON-ready dict: ``n``, ``only_a_failed``, ``only_b_failed``, ``both_failed``,
        ``mcnemar_p``, ``mean_a``, ``mean_b``, ``mean_difference`` (b - a),
        ``interval`` (:meth:`Interval.as_dict`) and ``resolved``.

    Raises:
        ValueError: the inputs differ in length or there are no items.

    Example:
        >>> result = compare_paired([100, 0, 100], [100, 100, 0], [False, True, False],
        ...                         [False, False, True], resamples=100)
        >>> result["only_a_failed"], result["only_b_failed"], result["mcnemar_p"]
        (1, 1, 1.0)
    """
    lengths = {len(scores_a), len(scores_b), len(failed_a), len(failed_b)}
    if len(lengths) != 1:
        raise ValueError(
            "paired inputs must be aligned per item; got lengths "
            f"scores_a={len(scores_a)}, scores_b={len(scores_b)}, "
            f"failed_a={len(failed_a)}, failed_b={len(failed_b)}"
        )
    only_a = sum(1 for x, y in zip(failed_a, failed_b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(failed_a, failed_b, strict=True) if y and not x)
    both = sum(1 for x, y in zip(failed_a, failed_b, strict=True) if x and y)
    interval = paired_bootstrap(scores_a, scores_b, resamples, seed, confidence, shared)
    n = len(scores_a)
    return {
        "n": n,
        "only_a_failed": only_a,
        "only_b_failed": only_b,
        "both_failed": both,
        "mcnemar_p": mcnemar_exact(only_a, only_b),
        "mean_a": float(sum(scores_a)) / n,
        "mean_b": float(sum(scores_b)) / n,
        "mean_difference": interval.estimate,
        "interval": interval.as_dict(),
        "resolved": not interval.contains(0.0),
    }
