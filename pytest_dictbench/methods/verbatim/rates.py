"""Plain word and character edit counts (vWER, vCER, iWER, iCER) via jiwer.

Both texts go through the verbatim normalizer first, so tags and fragments are compared
in their canonical spelling (``[laughs]`` equals ``[laughter]``). Words are the
normalized tokens; characters are the normalized text with whitespace removed (tags
count with their brackets, ``[uh]`` is four characters).

An empty reference: every hypothesis token is an insertion, and the rate of an item is
that insertion count (0.0 for an empty hypothesis), as jiwer reports it. Corpus rates
pool counts, ``sum(edits) / sum(reference length)``, and are ``None`` when the pooled
reference length is zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import jiwer

__all__ = ["EditCount", "char_edits", "pooled_rate", "word_edits"]


@dataclass(frozen=True)
class EditCount:
    """Substitutions + deletions + insertions against a reference of ``ref_len`` units."""

    edits: int
    ref_len: int

    @property
    def rate(self) -> float:
        return self.edits / self.ref_len if self.ref_len else float(self.edits)


def _edits(ref: Sequence[str], hyp: Sequence[str]) -> EditCount:
    if not ref:
        return EditCount(len(hyp), 0)
    if not hyp:
        return EditCount(len(ref), len(ref))
    out = jiwer.process_words(" ".join(ref), " ".join(hyp))
    return EditCount(out.substitutions + out.deletions + out.insertions, len(ref))


def word_edits(ref_tokens: Sequence[str], hyp_tokens: Sequence[str]) -> EditCount:
    """Word edits between two normalized token sequences (tokens hold no spaces)."""
    return _edits(ref_tokens, hyp_tokens)


def char_edits(ref_tokens: Sequence[str], hyp_tokens: Sequence[str]) -> EditCount:
    """Character edits between the two token sequences with whitespace removed."""
    return _edits(list("".join(ref_tokens)), list("".join(hyp_tokens)))


def pooled_rate(edits: float, ref_len: float) -> float | None:
    """Corpus rate from pooled counts; ``None`` when there is no reference at all."""
    return edits / ref_len if ref_len else None
