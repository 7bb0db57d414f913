"""Gold disfluency labels, read off the alignment of the verbatim and intended transcripts.

Pass one labels each verbatim token, first rule that applies:

1. Cutoff -- the token carries the cut-off marker (``th*``);
2. Filler -- a filler tag (``[uh]``, ``[um]``);
3. Sound -- any other bracketed tag (``[laughter]``, ``[door_slams]``);
4. Fluent -- aligned to an intended token with the same normalized form;
5. Other -- everything else (false starts, discourse markers, substituted words).

Pass two finds repetitions: from each Fluent token, walk backwards over earlier tokens;
an unmatched (deleted) Other token with the same form becomes Repetition, and the walk
goes on. Fillers, sounds and cut-offs in between are stepped over (``the [uh] the``
still holds a repetition); any other token ends the walk. Only single-word repetitions
are found: a repeated phrase (``I think I think``) stays Other.

The intended transcript should arise from the verbatim one by deletions alone;
:func:`gold_problems` lists every way a case breaks that (and the no-digit rule).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .align import plain_alignment
from .normalize import normalize_tokens, token_kind

__all__ = [
    "CUTOFF",
    "DISFLUENCY_TYPES",
    "FILLER",
    "FLUENT",
    "OTHER",
    "REPETITION",
    "SOUND",
    "GoldLabels",
    "gold_labels",
    "gold_problems",
]

FLUENT = "fluent"
FILLER = "filler"
SOUND = "sound"
CUTOFF = "cutoff"
REPETITION = "repetition"
OTHER = "other"
#: The disfluency types, in report order.
DISFLUENCY_TYPES = (FILLER, SOUND, CUTOFF, REPETITION, OTHER)

_SURFACE_LABEL = {"cutoff": CUTOFF, "filler": FILLER, "sound": SOUND}
_STEP_OVER = frozenset({FILLER, SOUND, CUTOFF})
_DIGIT = re.compile(r"[0-9]")


@dataclass(frozen=True)
class GoldLabels:
    """Normalized verbatim tokens with one label each, and what went wrong deriving them."""

    tokens: tuple[str, ...]
    labels: tuple[str, ...]
    intended: tuple[str, ...]
    problems: tuple[str, ...] = ()

    @property
    def fluent(self) -> tuple[bool, ...]:
        return tuple(label == FLUENT for label in self.labels)

    def count(self, label: str) -> int:
        return self.labels.count(label)


def _label_repetitions(tokens: tuple[str, ...], labels: list[str], matched: list[bool]) -> None:
    for k, label in enumerate(labels):
        if label != FLUENT:
            continue
        j = k - 1
        while j >= 0:
            if labels[j] in _STEP_OVER:
                j -= 1
            elif labels[j] == OTHER and not matched[j] and tokens[j] == tokens[k]:
                labels[j] = REPETITION
                j -= 1
            else:
                break


def _problems(verbatim: tuple[str, ...], intended: tuple[str, ...],
              pairs: list[tuple[int | None, int | None]]) -> list[str]:
    problems = []
    if not verbatim:
        problems.append("the verbatim transcript is empty after normalization")
    for v, i in pairs:
        if i is None:
            continue
        word = intended[i]
        if v is None:
            problems.append(f"intended word {i + 1} {word!r} is not in the verbatim "
                            "transcript (intended must come from deletions only)")
        elif verbatim[v] != word:
            problems.append(f"intended word {i + 1} {word!r} replaces verbatim word "
                            f"{v + 1} {verbatim[v]!r} (intended must come from deletions only)")
        if token_kind(word) != "word":
            problems.append(f"intended word {i + 1} {word!r} is a disfluency marker")
    return problems


@lru_cache(maxsize=4096)
def gold_labels(verbatim: str, intended: str, language: str = "en") -> GoldLabels:
    """Label every normalized verbatim token (see the module docstring); ``language``
    picks the normalizer's spellings (``normalize.language_of``)."""
    v_tokens = tuple(normalize_tokens(verbatim, language))
    i_tokens = tuple(normalize_tokens(intended, language))
    pairs = plain_alignment(v_tokens, i_tokens)
    labels = [OTHER] * len(v_tokens)
    matched = [False] * len(v_tokens)
    for v, i in pairs:
        if v is None:
            continue
        matched[v] = i is not None
        surface = token_kind(v_tokens[v])
        if surface in _SURFACE_LABEL:
            labels[v] = _SURFACE_LABEL[surface]
        elif i is not None and v_tokens[v] == i_tokens[i]:
            labels[v] = FLUENT
    _label_repetitions(v_tokens, labels, matched)
    problems = _problems(v_tokens, i_tokens, pairs)
    return GoldLabels(v_tokens, tuple(labels), i_tokens, tuple(problems))


def gold_problems(verbatim: str, intended: str, language: str = "en") -> list[str]:
    """Everything wrong with a verbatim/intended pair as gold data, in plain words.

    Checks: digits in either transcript (gold is digit-free), an empty verbatim
    transcript, intended words that are not deletions of verbatim words, and
    disfluency markers left in the intended transcript. An empty list means usable.
    """
    problems = [f"{name} transcript contains digits ({text!r})"
                for name, text in (("verbatim", verbatim), ("intended", intended))
                if _DIGIT.search(text)]
    return problems + list(gold_labels(verbatim, intended, language).problems)
