"""The typed inventory of a verbatim dataset: how many gold tokens of each type its cases
hold, derived by the same alignment that labels them (:func:`.labels.gold_labels`).

Counted over a set of cases (the cases a product was scored on): utterances, gold tokens,
fluent tokens, each disfluency type (filler, sound, cut-off, repetition, other) and their
total. It says whether a dataset holds enough events of every type to judge a system on
it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...model import Case
from .labels import DISFLUENCY_TYPES, FLUENT, gold_labels

__all__ = ["typed_inventory"]


def typed_inventory(cases: Iterable[Case], language: str = "en") -> dict[str, Any]:
    """``{"utterances", "tokens", "fluent", <each type>..., "disfluencies"}``."""
    counts = dict.fromkeys(("utterances", "tokens", FLUENT, *DISFLUENCY_TYPES), 0)
    for case in cases:
        gold = gold_labels(str(case.get("verbatim", "")), str(case.get("intended", "")),
                           language)
        counts["utterances"] += 1
        counts["tokens"] += len(gold.tokens)
        for label in gold.labels:
            counts[label] += 1
    counts["disfluencies"] = sum(counts[t] for t in DISFLUENCY_TYPES)
    return counts
