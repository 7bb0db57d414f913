"""Typed disfluency counts of one prediction against gold labels, and P/R/F1 from counts.

The prediction is aligned to the gold tokens with :func:`~.align.tag_aware_alignment`.
Every predicted token then gets a type of its own:

- a cut-off fragment, filler tag or sound tag: Cutoff, Filler, Sound (its surface form);
- a word aligned to a gold token of the same form: the gold label (Fluent, Repetition,
  Other);
- a word substituted for a gold Other token: Other (a misheard false start is still a
  kept false start);
- a word substituted for a gold Fluent token or cut-off fragment: fluent (a recognition
  error, counted by vWER, not a disfluency; words never align to tags);
- a word aligned to nothing, or substituted for a gold Repetition token: Repetition when
  the next word of the prediction (fillers, sounds and fragments skipped) is the same
  word, else Other.

Counting, per type T:

- TP: a gold T token aligned to a predicted T token -- except Cutoff (lenient), where a
  gold cut-off is covered by *any* aligned predicted token;
- FN: a gold T token that is not a TP;
- FP: a predicted T token not aligned to a gold T token.

Cut-off variants: ``cutoff_strict`` (TP only when the fragment is spelled exactly as in
gold, so a wrong fragment at the right place is an FP and an FN), ``cutoff_marker`` (TP
when a predicted fragment sits at the gold cut-off), ``cutoff`` (lenient, as above).
Predicted fragments not at a gold cut-off are FPs in all three. The pooled Disfluency
counts add up the five types, with Cutoff taken lenient.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from .align import Pair, tag_aware_alignment
from .labels import CUTOFF, DISFLUENCY_TYPES, FILLER, FLUENT, OTHER, REPETITION, SOUND, GoldLabels
from .normalize import token_kind

__all__ = ["CUTOFF_VARIANTS", "PRF", "TypedCounts", "prf", "typed_counts"]

#: Cut-off variants counted besides the lenient one (which is the ``cutoff`` type).
CUTOFF_VARIANTS = ("cutoff_strict", "cutoff_marker")
_SURFACE_TYPE = {"cutoff": CUTOFF, "filler": FILLER, "sound": SOUND}


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 of one set of counts."""

    precision: float
    recall: float
    f1: float


def prf(tp: float, fp: float, fn: float) -> PRF:
    """P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2TP/(2TP+FP+FN).

    A 0/0 ratio is 1.0 when all three counts are zero (nothing to find and nothing
    claimed: perfect) and 0.0 otherwise (e.g. precision of a system that never predicts
    a type the gold holds; recall of a type only the prediction holds).
    """
    perfect = 1.0 if tp == fp == fn == 0 else 0.0
    return PRF(
        precision=tp / (tp + fp) if tp + fp else perfect,
        recall=tp / (tp + fn) if tp + fn else perfect,
        f1=2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0,
    )


@dataclass
class TypedCounts:
    """TP/FP/FN per type and cut-off variant, plus readable lists of the errors."""

    tp: dict[str, int] = field(default_factory=dict)
    fp: dict[str, int] = field(default_factory=dict)
    fn: dict[str, int] = field(default_factory=dict)
    #: Gold disfluencies the prediction missed: (type, token, 1-based gold position).
    missed: list[tuple[str, str, int]] = field(default_factory=list)
    #: Predicted disfluencies with no gold counterpart: (type, token, 1-based position).
    invented: list[tuple[str, str, int]] = field(default_factory=list)
    alignment: list[Pair] = field(default_factory=list)

    def add(self, kind: str, name: str) -> None:
        counter = getattr(self, kind)
        counter[name] = counter.get(name, 0) + 1

    def flat(self) -> dict[str, int]:
        """``<name>_tp/_fp/_fn`` for every type and variant, and pooled ``disfluency_*``."""
        out: dict[str, int] = {}
        for name in (*DISFLUENCY_TYPES, *CUTOFF_VARIANTS):
            for kind in ("tp", "fp", "fn"):
                out[f"{name}_{kind}"] = getattr(self, kind).get(name, 0)
        for kind in ("tp", "fp", "fn"):
            out[f"disfluency_{kind}"] = sum(out[f"{t}_{kind}"] for t in DISFLUENCY_TYPES)
        return out


def _predicted_types(gold: GoldLabels, pred: Sequence[str], gold_of: list[int | None]) -> list[str]:
    types: list[str] = []
    unaccounted: list[int] = []
    for j, token in enumerate(pred):
        surface = token_kind(token)
        g = gold_of[j]
        label = gold.labels[g] if g is not None else None
        if surface in _SURFACE_TYPE:
            types.append(_SURFACE_TYPE[surface])
        elif g is None or (label == REPETITION and gold.tokens[g] != token):
            types.append(OTHER)  # may turn into Repetition below
            unaccounted.append(j)
        elif gold.tokens[g] == token or label == OTHER:
            types.append(str(label))
        else:
            types.append(FLUENT)
    words = [j for j, token in enumerate(pred) if token_kind(token) == "word"]
    following = dict(pairwise(words))
    for j in unaccounted:
        nxt = following.get(j)
        if nxt is not None and pred[nxt] == pred[j]:
            types[j] = REPETITION
    return types


def typed_counts(gold: GoldLabels, pred: Sequence[str]) -> TypedCounts:
    """Align ``pred`` (normalized tokens) to ``gold`` and count TP/FP/FN per type."""
    counts = TypedCounts(alignment=tag_aware_alignment(gold.tokens, gold.fluent, pred))
    pred_of: list[int | None] = [None] * len(gold.tokens)
    gold_of: list[int | None] = [None] * len(pred)
    for g, p in counts.alignment:
        if g is not None and p is not None:
            pred_of[g], gold_of[p] = p, g
    pred_types = _predicted_types(gold, pred, gold_of)

    for g, (token, label) in enumerate(zip(gold.tokens, gold.labels, strict=True)):
        if label == FLUENT:
            continue
        p = pred_of[g]
        hit = p is not None and (label == CUTOFF or pred_types[p] == label)
        counts.add("tp" if hit else "fn", label)
        if not hit:
            counts.missed.append((label, token, g + 1))
        if label == CUTOFF:
            marked = p is not None and pred_types[p] == CUTOFF
            counts.add("tp" if marked else "fn", "cutoff_marker")
            counts.add("tp" if marked and pred[p] == token else "fn", "cutoff_strict")

    for p, (token, kind) in enumerate(zip(pred, pred_types, strict=True)):
        if kind == FLUENT:
            continue
        g = gold_of[p]
        gold_label = gold.labels[g] if g is not None else None
        if gold_label != kind:
            counts.add("fp", kind)
            counts.invented.append((kind, token, p + 1))
        if kind == CUTOFF:
            if gold_label != CUTOFF:
                counts.add("fp", "cutoff_marker")
            if gold_label != CUTOFF or gold.tokens[g] != token:
                counts.add("fp", "cutoff_strict")
    return counts
