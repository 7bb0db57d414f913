"""Rounding for reports and competition ranking on rounded values.

Ties are judged on the values as they are reported (rounded), never on raw floats, so
two products shown with the same score always share a rank.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Context, Decimal

__all__ = ["competition_ranks", "round_half_away"]


def round_half_away(x: float, decimals: int) -> float:
    """Round ``x`` to ``decimals`` places, halves away from zero.

    The rounding is done in decimal on the shortest representation of ``x`` (what
    ``repr`` prints), so ``2.675`` becomes ``2.68`` although the binary double nearest
    to 2.675 is slightly below it, and ``0.5`` becomes ``1.0`` (Python's ``round`` gives
    ``2.67`` and ``0.0``). A result of zero is always ``0.0``, never ``-0.0``. NaN and
    infinities are returned unchanged.

    Args:
        x: the value.
        decimals: places after the decimal point, >= 0.

    Example:
        >>> round_half_away(2.675, 2), round_half_away(-2.5, 0), round_half_away(0.125, 2)
        (2.68, -3.0, 0.13)
    """
    if isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0:
        raise ValueError(f"decimals must be an integer >= 0, got {decimals!r}")
    if not math.isfinite(x):
        return float(x)
    rounded = _rounded_decimal(float(x), decimals)
    return float(rounded) if rounded else 0.0


def competition_ranks(
    values: Mapping[str, float], higher_is_better: bool, decimals: int
) -> dict[str, int]:
    """Competition ranks ("1, 1, 3") of named values, ties judged after rounding.

    Each value is rounded with :func:`round_half_away` semantics to ``decimals`` places;
    names whose rounded values are equal share a rank, and the next rank skips the
    places they took. The rank of a name is one plus the number of names strictly
    better than it, so the result does not depend on the input order. The returned
    dict is ordered by rank, then by name (code-point order, independent of locale).

    Args:
        values: score per name (product, configuration, ...).
        higher_is_better: True for scores, False for error rates and latencies.
        decimals: places the values are reported with, >= 0.

    Raises:
        ValueError: a value is NaN or infinite, or ``decimals`` is invalid.

    Example:
        >>> competition_ranks({"x": 0.91, "y": 0.9104, "z": 0.8}, True, 2)
        {'x': 1, 'y': 1, 'z': 3}
    """
    if isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0:
        raise ValueError(f"decimals must be an integer >= 0, got {decimals!r}")
    keys: dict[str, Decimal] = {}
    for name, value in values.items():
        if not math.isfinite(value):
            raise ValueError(f"cannot rank {name!r}: its value is {value!r}")
        rounded = _rounded_decimal(float(value), decimals)
        keys[name] = rounded if higher_is_better else -rounded
    ranks = {
        name: 1 + sum(1 for other in keys.values() if other > key) for name, key in keys.items()
    }
    return dict(sorted(ranks.items(), key=lambda item: (item[1], item[0])))


def _rounded_decimal(x: float, decimals: int) -> Decimal:
    """``x`` rounded half away from zero to ``decimals`` places, as an exact Decimal."""
    exact = Decimal(repr(x))
    # Enough precision for every digit of the largest double plus the decimals asked.
    context = Context(prec=max(28, exact.adjusted() + decimals + 2), rounding=ROUND_HALF_UP)
    return exact.quantize(Decimal(1).scaleb(-decimals), context=context)
