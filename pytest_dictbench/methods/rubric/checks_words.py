"""Word-level checks: must-keep words (A1), proper nouns (A2), numbers (A3, D3, D4),
homophones (D1), English notation (D2) and the case's forbidden words (any rule).

All matching goes through :meth:`AnalysedText.find`: width-folded, blind to spacing and
light punctuation, and anchored on sudachipy token boundaries (``会議`` is not found in
``会議室``). Latin letters are compared without case except where case *is* the notation
(exact terms, D2).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from ...text.japanese import AnalysedText, bare, reading
from ...text.numerals import numeral_value
from .casedata import Forbid, Variants
from .checkbase import PASS, Check, CheckInput, excess, listing

__all__ = [
    "check_english_notation",
    "check_homophones",
    "check_must_words",
    "check_number_notation",
    "check_numbers_present",
    "check_proper_nouns",
    "forbidden_check",
    "forbidden_hits",
    "grouping_variant",
]

#: A digit followed by a non-standard counter spelling (standard: か月, か所).
_COUNTER_SPELLING = re.compile(r"\d\s*[ヶケカヵ箇]\s*[月所]")

#: How a forbidden-text hit reads in the evidence, by rule.
_FORBID_PHRASES = {
    "B1": "filler left in",
    "B2": "pre-correction word left in",
    "B3": "correction marker left in",
    "B4": "repetition left in",
    "D1": "wrong homophone",
    "D3": "off-standard number notation",
    "D4": "off-standard unit or symbol",
}


def _present(text: AnalysedText, variants: Variants, *, ignore_case: bool = True) -> bool:
    return any(text.contains(v, ignore_case=ignore_case) for v in variants)


def _missing(inp: CheckInput, entries: tuple[Variants, ...]) -> list[str]:
    return [entry[0] for entry in entries if not _present(inp.output, entry)]


def check_must_words(inp: CheckInput) -> Check:
    """A1: every must-keep word, and every term in some accepted spelling, is present."""
    missing = _missing(inp, inp.case.must)
    missing += [t.text for t in inp.case.terms if not _present(inp.output, t.accepted)]
    if missing:
        return 0, f"missing content word(s): {listing(missing)}"
    return PASS


def check_proper_nouns(inp: CheckInput) -> Check:
    """A2: every proper noun is present in one of its accepted spellings."""
    missing = _missing(inp, inp.case.proper_nouns)
    if missing:
        return 0, f"missing proper noun(s): {listing(missing)}"
    return PASS


def check_numbers_present(inp: CheckInput) -> Check:
    """A3: every number appears, in an accepted notation or at least in a variant form."""
    missing = [
        n.notations[0]
        for n in inp.case.numbers
        if not _present(inp.output, n.notations) and not _present(inp.output, n.variants)
    ]
    if missing:
        return 0, f"missing number(s): {listing(missing)}"
    return PASS


#: Arabic digits (with or without thousands commas), optionally grouped by 万/億/兆.
_GROUPED_NUMBER = re.compile(r"(?:[0-9][0-9,]*[兆億万]?)+")
_GROUP_SIZE = {"兆": 10**12, "億": 10**8, "万": 10**4}


def _grouped_value(text: str) -> tuple[str, int] | None:
    """``(text with its one number replaced by #, value)`` when ``text`` holds exactly one
    number in Arabic digits (``12,000,000``, ``1200万``, ``26万4000``), else ``None``."""
    folded = unicodedata.normalize("NFKC", text)
    found = list(_GROUPED_NUMBER.finditer(folded))
    if len(found) != 1:
        return None
    value = 0
    for digits, group in re.findall(r"([0-9][0-9,]*)([兆億万]?)", found[0].group()):
        value += int(digits.replace(",", "")) * _GROUP_SIZE.get(group, 1)
    return folded[: found[0].start()] + "#" + folded[found[0].end():], value


def grouping_variant(variant: str, notations: Variants) -> bool:
    """Whether ``variant`` is an accepted notation with its digits only grouped
    differently (``12,000,000円`` or ``1200万円`` for ``1,200万円``, ``264000円`` for
    ``26万4000円``): same value, same words around it, Arabic digits throughout."""
    mine = _grouped_value(variant)
    return mine is not None and any(_grouped_value(n) == mine for n in notations)


_KANJI_RUN = re.compile("[0-9〇零一二三四五六七八九十百千万億兆,.]+")


def _kanji_numeral(text: str, notations: Variants) -> str | None:
    """A run of kanji numerals in ``text`` worth the value of one of ``notations``, with
    the same word after it (``千二百万円`` for ``1200万円``), else None."""
    wanted = {}
    for notation in notations:
        folded = unicodedata.normalize("NFKC", notation)
        head = _KANJI_RUN.match(folded)
        if head is not None and (value := numeral_value(head.group())) is not None:
            wanted[value] = folded[head.end():]
    for found in _KANJI_RUN.finditer(unicodedata.normalize("NFKC", text)):
        run = found.group()
        if not any(c in "〇零一二三四五六七八九十百千" for c in run):
            continue  # Arabic digits: a variant or a notation, not a kanji numeral
        suffix = wanted.get(numeral_value(run) or "")
        if suffix is not None and found.string[found.end():].startswith(suffix):
            return run + suffix
    return None


def check_number_notation(inp: CheckInput, rule: str) -> Check:
    """D3 / D4: a number of that rule appears only in a variant form, breaking notation.

    A variant that only groups the digits of a large number differently from an accepted
    notation (see :func:`grouping_variant`) scores 1, as a light style slip; to accept it
    fully, list it among the number's ``notations``. Any other variant scores 0.

    Kanji numerals worth the number's value (``千二百万円`` for ``1200万円``) score 0.

    D3 also flags a digit followed by ヶ月 / カ月 / 箇所 and the like (standard: か月, か所)
    with 1, unless an expected output writes it that way too or the case already lists that
    spelling as a variant of one of its numbers.
    """
    problems: list[Check] = []
    for number in inp.case.numbers:
        if number.rule != rule or _present(inp.output, number.notations):
            continue
        used = [v for v in number.variants if inp.output.contains(v)]
        written = [v for v in used if v in inp.output.text]
        used = written or used  # name the forms written, not those that only match them
        kanji = None if used else _kanji_numeral(inp.output.text, number.notations)
        if kanji is not None:
            problems.append((0, f"{kanji} written in kanji numerals for "
                                f"{number.notations[0]} (accepted: {listing(number.notations)})"))
        if used:
            light = all(grouping_variant(v, number.notations) for v in used)
            problems.append(
                (
                    1 if light else 0,
                    f"{listing(used)} written for {number.notations[0]} "
                    f"(accepted: {listing(number.notations)})"
                    + ("; digit grouping only" if light else ""),
                )
            )
    if rule == "D3":
        covered = {bare(v) for n in inp.case.numbers for v in n.variants}
        odd = excess(inp, lambda t: Counter(m.group() for m in _COUNTER_SPELLING.finditer(t.text)))
        odd = Counter({k: v for k, v in odd.items() if bare(k) not in covered})
        if odd:
            problems.append(
                (1, f"counter spelled {listing(odd.elements())} (standard: か月 / か所)")
            )
    if not problems:
        return PASS
    return min(s for s, _ in problems), "; ".join(e for _, e in problems)


def check_homophones(inp: CheckInput) -> Check:
    """D1: no same-reading wrong word appears where the context needs the correct one."""
    found: list[str] = []
    for homophone in inp.case.homophones:
        for wrong in homophone.wrong:
            if excess(inp, lambda t, w=wrong: Counter({w: t.count(w)})):
                found.append(
                    f"{wrong} ({reading(wrong)}) written for "
                    f"{homophone.correct} ({reading(homophone.correct)})"
                )
    if found:
        return 0, "wrong homophone: " + "; ".join(found)
    return PASS


def check_english_notation(inp: CheckInput) -> Check:
    """D2: no known wrong spelling of a term; exact terms keep their Latin spelling and case.

    A listed wrong spelling scores 0. An exact term found only with different letter case
    scores 1. A term missing in every spelling is left to A1.
    """
    worst: list[Check] = []
    for term in inp.case.terms:
        wrong = [w for w in term.wrong if excess(inp, lambda t, w=w: Counter({w: t.count(w)}))]
        if wrong:
            worst.append((0, f"{listing(wrong)} written for {term.text} ({term.kind})"))
        elif (
            term.kind == "exact"
            and _present(inp.output, term.accepted)
            and not _present(inp.output, term.accepted, ignore_case=False)
        ):
            worst.append((1, f"{term.text}: letter case differs (exact term)"))
    if not worst:
        return PASS
    return min(s for s, _ in worst), "; ".join(e for _, e in worst)


def forbidden_hits(inp: CheckInput) -> dict[str, list[Forbid]]:
    """The case's forbidden texts found in the output (beyond the expected), by rule."""
    hits: dict[str, list[Forbid]] = {}
    for entry in inp.case.forbid:
        if excess(inp, lambda t, x=entry.text: Counter({x: t.count(x)})):
            hits.setdefault(entry.rule, []).append(entry)
    return hits


def forbidden_check(rule: str, hits: list[Forbid]) -> Check:
    """``(0, evidence)`` for forbidden texts of ``rule`` found in the output."""
    labels = [f"{f.text} ({f.note})" if f.note else f.text for f in hits]
    return 0, f"{_FORBID_PHRASES.get(rule, 'forbidden text found')}: {listing(labels)}"
