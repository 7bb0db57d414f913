"""Names, numbers and coined words: extracted locally with sudachipy, compared as sets.

Both sides go through the same steps (:func:`pytest_dictbench.text.japanese.words`:
NFKC folding, sudachipy core dictionary, split mode B):

- **numbers**: a run of numeral tokens is read to its value
  (:func:`~pytest_dictbench.text.numerals.numeral_value`) and joined with the counter that
  follows (``三人`` -> ``3人``, ``一万二千円`` -> ``12000円``, ``２０２６年`` -> ``2026年``,
  ``十五分`` -> ``15分``); a counter is a following token that sudachipy tags as a counter
  (助数詞 / 助数詞可能), a nominal suffix (``人``, ``時半``) or ``%``
  (``パーセント`` is written ``%``); a ``・`` between kanji numerals is a decimal point
  (``七・二キロ`` -> ``7.2キロ``), and ``十分`` right after hours is ten minutes
  (``五時間十分`` -> ``5時間``, ``10分``), not "enough";
- **names**: tokens tagged 固有名詞 (people, places, organisations, brands);
- **coined words**: tokens the dictionary does not know (out of vocabulary) and tokens
  holding Latin letters, case-folded.

Each extracted item is a string; an item found several times counts once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...text.japanese import Word, fold, words
from ...text.numerals import NUMERAL_CHARS, numeral_value

__all__ = ["Extracted", "NameScores", "compare_names", "extract_names"]

_KANJI_NUMERAL = frozenset(c for c in NUMERAL_CHARS if not c.isascii())
#: Counters written another way on one side: the form both sides are compared in.
_COUNTER_FORMS = {"パーセント": "%"}
_HOURS = ("時", "時間")
_LATIN = re.compile("[A-Za-z]")
_SKIPPED_POS = frozenset({"空白", "補助記号", "記号"})


@dataclass(frozen=True)
class Extracted:
    """Items found in one text, by kind."""

    names: frozenset[str] = frozenset()
    numbers: frozenset[str] = frozenset()
    coined: frozenset[str] = frozenset()

    @property
    def items(self) -> frozenset[str]:
        return self.names | self.numbers | self.coined

    def to_json(self) -> dict[str, list[str]]:
        return {"names": sorted(self.names), "numbers": sorted(self.numbers),
                "coined": sorted(self.coined)}


@dataclass(frozen=True)
class NameScores:
    """Set comparison of the reference's and the hypothesis' items."""

    reference: Extracted
    hypothesis: Extracted

    @property
    def tp(self) -> int:
        return len(self.reference.items & self.hypothesis.items)

    @property
    def fn(self) -> int:
        return len(self.reference.items - self.hypothesis.items)

    @property
    def fp(self) -> int:
        return len(self.hypothesis.items - self.reference.items)

    @property
    def applies(self) -> bool:
        """False when neither side has any item (the overall then uses F-beta alone)."""
        return bool(self.reference.items or self.hypothesis.items)

    @property
    def precision(self) -> float:
        found = self.tp + self.fp
        return self.tp / found if found else 0.0

    @property
    def recall(self) -> float:
        expected = self.tp + self.fn
        return self.tp / expected if expected else 0.0

    @property
    def f1(self) -> float:
        total = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / total if total else 0.0


def _is_numeral(word: Word) -> bool:
    return word[1][1] == "数詞" and numeral_value(word[0]) is not None


def _is_counter(word: Word) -> bool:
    pos = word[1]
    return (pos[2] in ("助数詞", "助数詞可能") or word[0] == "%"
            or (pos[0] == "接尾辞" and pos[1] == "名詞的"))


def _numeral_head(surface: str) -> int:
    """Length of the kanji-numeral prefix of ``surface`` (``十人`` -> 1)."""
    n = 0
    while n < len(surface) and surface[n] in _KANJI_NUMERAL:
        n += 1
    return n


def _number_at(tokens: Sequence[Word], i: int) -> tuple[str | None, int]:
    """Read the number starting at token ``i``: (item or None, index after it)."""
    run = ""
    j = i
    while j < len(tokens) and _is_numeral(tokens[j]):
        run += tokens[j][0]
        j += 1
        if (j + 1 < len(tokens) and tokens[j][0] == "・"
                and _is_numeral(tokens[j + 1]) and "." not in run):
            run += "."  # 七・二: a spoken decimal point
            j += 1
    counter = ""
    if j < len(tokens):
        nxt = tokens[j]
        head = _numeral_head(nxt[0]) if not _is_counter(nxt) else 0
        if 0 < head < len(nxt[0]):
            # sudachipy sometimes splits 百二|十人: the rest of the numeral is the head of
            # the next token and what follows it is the counter.
            run += nxt[0][:head]
            counter = nxt[0][head:]
            j += 1
        elif _is_counter(nxt):
            counter = nxt[0]
            j += 1
    value = numeral_value(run)
    counter = _COUNTER_FORMS.get(counter, counter)
    return (f"{value}{counter}" if value is not None else None), j


def extract_names(text: str) -> Extracted:
    """Names, numbers and coined words of ``text`` (see the module docstring)."""
    tokens = words(fold(text))
    names: set[str] = set()
    numbers: set[str] = set()
    coined: set[str] = set()
    i = 0
    while i < len(tokens):
        surface, pos, oov = tokens[i]
        if pos[1] == "数詞" and _is_numeral(tokens[i]):
            item, i = _number_at(tokens, i)
            if item is not None:
                numbers.add(item)
                if item.endswith(_HOURS) and i < len(tokens) and tokens[i][0] == "十分":
                    numbers.add("10分")  # 五時間十分: ten minutes, not "enough"
                    i += 1
            continue
        i += 1
        if pos[0] in _SKIPPED_POS or not surface.strip():
            continue
        latin = _LATIN.search(surface) is not None
        if pos[1] == "固有名詞":
            names.add(surface.casefold() if latin else surface)
        elif oov or latin:
            coined.add(surface.casefold())
    return Extracted(frozenset(names), frozenset(numbers), frozenset(coined))


def compare_names(reference: str, hypothesis: str) -> NameScores:
    """Extract from both texts and compare the item sets."""
    return NameScores(extract_names(reference), extract_names(hypothesis))
