"""Checks for what exists only in speech: fillers (B1), correction markers (B3) and
repetitions (B4). Self-corrections (B2) are case-specific and come from ``forbid``.

Fillers are found three ways, each span counted once:

* sudachipy tags the token ``感動詞,フィラー`` (えー, えっと, あのー, ま, んー ...);
* a filler spelling from :data:`FILLER_SPELLINGS` sits on token boundaries (catches
  えっと when sudachipy splits it as えっ + と);
* a short form starts on a token boundary and is followed by a separator (whitespace,
  、。,.!? or the end): the demonstratives あの / その (a demonstrative always comes
  before a noun, so ``あの資料`` is not a filler) and a drawn-out あー;
* fillers that recognition turned into Latin letters (``A``, ``E``, ``uh``, ``um`` ...)
  standing between punctuation marks or line ends.
"""

from __future__ import annotations

import re
from collections import Counter

from ...text.japanese import AnalysedText, Token, bare
from .checkbase import PASS, Check, CheckInput, excess, listing

__all__ = [
    "CORRECTION_MARKERS",
    "FILLER_SPELLINGS",
    "check_correction_markers",
    "check_fillers",
    "check_repetitions",
    "find_fillers",
    "find_repetitions",
]

#: Filler spellings accepted anywhere on token boundaries.
FILLER_SPELLINGS = re.compile(
    r"え[えー]*っ?と|あの[ーう]+|その[ーう]+|えー+|うー+ん|うー+む|んー+と?"
)

_SEPARATORS = r"\s、。,.!?…"
#: あの / その / あー followed by a separator or the end (the start must be a token
#: boundary, checked in find_fillers).
_STANDALONE = re.compile(rf"(あの|その|あー+)(?![^{_SEPARATORS}])")
#: A Latin word between punctuation or line ends (spaces allowed, since spacing around
#: Latin letters is never penalised on its own).
_LATIN_ALONE = re.compile(r"(?:^|[、。,.!?…])[ \t]*([A-Za-z]+)[ \t]*(?=[、。,.!?…]|$)", re.M)
#: Latin spellings that are fillers turned into letters (compared in lower case).
_LATIN_FILLER = re.compile(r"a|e|eh+|er+m?|uh+|um+|ah+|hmm+")

#: Phrases that announce a self-correction (B3), matched like words.
CORRECTION_MARKERS = (
    "あ、違う",
    "あ、違った",
    "いや、違う",
    "じゃなくて、いや",
    "間違えた",
    "間違えました",
    "言い間違え",
    "言い直します",
    "訂正します",
)

#: Parts of speech whose doubling is a repetition (numerals and interjections excluded).
_CONTENT_POS = frozenset({"名詞", "代名詞", "動詞", "形容詞", "形状詞", "副詞", "連体詞", "接続詞"})
#: Words whose doubling is ordinary emphasis rather than a disfluency.
_EMPHATIC = frozenset({"ちょっと", "もっと", "まだ", "また", "どう", "そう"})
#: Longest repeated run of tokens looked for (``この件、この件`` is two tokens).
_MAX_RUN = 4


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)


def find_fillers(text: AnalysedText) -> Counter[str]:
    """Fillers in ``text``, keyed by how they read in evidence."""
    found: Counter[str] = Counter()
    taken: list[tuple[int, int]] = []

    def add(span: tuple[int, int], key: str) -> None:
        if not _overlaps(span, taken):
            taken.append(span)
            found[key] += 1

    for match in FILLER_SPELLINGS.finditer(text.text):
        if match.start() in text.boundaries and match.end() in text.boundaries:
            add(match.span(), match.group())
    for token in text.tokens:
        if token.pos[:2] == ("感動詞", "フィラー"):
            add((token.start, token.end), token.surface)
    for match in _STANDALONE.finditer(text.text):
        if match.start(1) in text.boundaries:
            add(match.span(1), match.group(1))
    for match in _LATIN_ALONE.finditer(text.text):
        if _LATIN_FILLER.fullmatch(match.group(1).lower()):
            add(match.span(1), f"'{match.group(1)}' (filler turned into letters)")
    return found


def check_fillers(inp: CheckInput) -> Check:
    """B1: no filler left in beyond those an expected output keeps."""
    extra = excess(inp, find_fillers)
    if extra:
        return 0, f"filler left in: {listing(extra.elements())}"
    return PASS


def check_correction_markers(inp: CheckInput) -> Check:
    """B3: no generic correction marker left in beyond the expected outputs (markers the
    case already forbids under B3 are left to that entry, so a hit is reported once)."""
    covered = {bare(f.text) for f in inp.case.forbid if f.rule == "B3"}
    markers = [m for m in CORRECTION_MARKERS if bare(m) not in covered]
    extra = excess(inp, lambda t: Counter({m: t.count(m) for m in markers}))
    if extra:
        return 0, f"correction marker left in: {listing(extra.elements())}"
    return PASS


def _is_content(token: Token) -> bool:
    return (
        token.pos[0] in _CONTENT_POS and token.pos[1] != "数詞" and token.surface not in _EMPHATIC
    )


def find_repetitions(text: AnalysedText) -> Counter[str]:
    """Words or short phrases said twice in a row (commas and spaces between allowed).

    Doubling inside one token (``人々``, ``いろいろ``, ``ますます``) is never a repetition,
    and neither is a doubled numeral (``一つ一つ``) or interjection (``はいはい``).
    """
    words = [t for t in text.tokens if not t.is_space and t.pos[1] != "読点" and t.surface != ","]
    found: Counter[str] = Counter()
    for i in range(len(words)):
        for n in range(1, _MAX_RUN + 1):
            first, second = words[i : i + n], words[i + n : i + 2 * n]
            if len(second) < n:
                break
            same = all(a.surface == b.surface for a, b in zip(first, second, strict=True))
            if same and any(_is_content(t) for t in first):
                found["".join(t.surface for t in first)] += 1
                break
    return found


def check_repetitions(inp: CheckInput) -> Check:
    """B4: no word or phrase doubled beyond what an expected output has."""
    extra = excess(inp, find_repetitions)
    if extra:
        return 0, f"repeated word(s): {listing(extra.elements())}"
    return PASS
