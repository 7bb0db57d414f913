"""The precision each figure is published with, shared by reports and ranking.

A figure is compared at the places it is printed with, so two products shown with
different values never tie and two shown with the same value always do. Fractions on a
0..1 scale (WER, CER, F1, kappa, ...) are published with 3 places; every other figure
(scores 0-100, milliseconds) with 1, and money (``*_usd``) with 4.
"""

from __future__ import annotations

__all__ = ["FRACTION_PLACES", "OTHER_PLACES", "is_fraction", "published_places"]

#: Metric names (or name endings) whose values are fractions 0..1.
_FRACTION_ENDINGS = ("wer", "cer", "rate", "f1", "precision", "recall", "kappa", "share",
                     "fbeta", "overall")
#: Places of money figures (names ending ``_usd``): cents and fractions of them matter.
MONEY_PLACES = 4
#: Places of fractions, and of every other float.
FRACTION_PLACES, OTHER_PLACES = 3, 1


def is_fraction(name: str) -> bool:
    """Whether metric ``name`` is a 0..1 fraction (WER, F1, kappa, ...)."""
    return name.lower().endswith(_FRACTION_ENDINGS)


def published_places(name: str) -> int:
    """Decimal places metric ``name`` is published with: ``published_places("wer") == 3``,
    ``published_places("score") == 1``."""
    if name.lower().endswith("_usd"):
        return MONEY_PLACES
    return FRACTION_PLACES if is_fraction(name) else OTHER_PLACES
