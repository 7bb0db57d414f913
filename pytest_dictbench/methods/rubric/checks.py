"""Run the automated checks a case calls for, and apply known answers.

:func:`run_checks` gives, for each scored rule that has an automated check, its
``(score, evidence)``; a forbidden text found in the output also gives a score to its rule
even when that rule otherwise needs judgement (a hit is 0; no hit decides nothing). A
check may also decide nothing on a given case (it returns ``None``): C1 without an
enumeration, C8 on an item that is neither short nor has a running-text enumeration,
A12 unless the output is empty or below the similarity floor. Such rules need judgement.

:func:`known_answer` recognises an output that is, up to width and whitespace, one of the
case's expected outputs (every rule 2) or one of its alternatives (the listed rules get
the listed scores, every other rule 2). Whitespace is part of layout, so a match that
holds only when whitespace is ignored decides no :data:`LAYOUT_RULES` rule (line breaks,
paragraphs, lists, headings, spacing around Latin letters): those keep their automated
score or stay unjudged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ...text.japanese import bare, fold, squash
from .casedata import RubricCase
from .checkbase import PASS, Check, CheckInput, join_evidence
from .checks_layout import check_list_layout, check_list_separation, check_over_formatting
from .checks_omission import check_omission
from .checks_speech import check_correction_markers, check_fillers, check_repetitions
from .checks_words import (
    check_english_notation,
    check_homophones,
    check_must_words,
    check_number_notation,
    check_numbers_present,
    check_proper_nouns,
    forbidden_check,
    forbidden_hits,
)

__all__ = ["CHECKS", "LAYOUT_RULES", "KnownAnswer", "apply_known_answer", "known_answer",
           "run_checks"]

#: Rules about line breaks, paragraphs, lists, headings and spacing: a known answer
#: decides them only when the output has the same layout (see :func:`layout_key`).
LAYOUT_RULES = frozenset({f"C{n}" for n in range(1, 12)} | {"D14"})


def _self_corrections(inp: CheckInput) -> Check:
    """B2: decided by the case's ``forbid`` entries with rule B2 alone (see run_checks)."""
    return PASS


#: The automated check of each automated rule (``None``: nothing decided on this case).
CHECKS: dict[str, Callable[[CheckInput], Check | None]] = {
    "A1": check_must_words,
    "A2": check_proper_nouns,
    "A3": check_numbers_present,
    "B1": check_fillers,
    "B2": _self_corrections,
    "B3": check_correction_markers,
    "B4": check_repetitions,
    "C1": check_list_layout,
    "C4": check_list_separation,
    "C8": check_over_formatting,
    "D1": check_homophones,
    "D2": check_english_notation,
    "D3": lambda inp: check_number_notation(inp, "D3"),
    "D4": lambda inp: check_number_notation(inp, "D4"),
    "A12": check_omission,
}


def run_checks(
    case: RubricCase, output: str, rule_ids: Iterable[str] | None = None
) -> dict[str, Check]:
    """Automated ``(score, evidence)`` for each of ``rule_ids`` (default: the scored
    rules) that a check can decide on this output."""
    inp = CheckInput(case, output)
    forbidden = forbidden_hits(inp)
    results: dict[str, Check] = {}
    for rule in case.scored_rules if rule_ids is None else rule_ids:
        hits = forbidden.get(rule, [])
        own = CHECKS[rule](inp) if rule in CHECKS else None
        if own is not None:
            # a forbidden text the check already names is reported once
            hits = [f for f in hits if bare(f.text) not in bare(own[1])]
            results[rule] = join_evidence([own, forbidden_check(rule, hits)] if hits else [own])
        elif hits:
            results[rule] = forbidden_check(rule, hits)
    return results


@dataclass(frozen=True)
class KnownAnswer:
    """An output the case already scores: an expected output or an alternative."""

    label: str
    #: Rule scores the case lists for it (absent rules score 2).
    rules: Mapping[str, int]
    #: The output has the known answer's layout too (line breaks and spaces).
    same_layout: bool = True


def layout_key(text: str) -> str:
    """``text`` width-folded with its line breaks and inner spaces kept; only spaces at
    line ends and blank lines at either end are dropped."""
    lines = fold(text.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def known_answer(case: RubricCase, output: str) -> KnownAnswer | None:
    """The expected output or alternative ``output`` equals, ignoring width and spacing
    (a match with the same layout is preferred)."""
    key, layout = squash(output), layout_key(output)
    known = [(f"output equals expected output {n}", text, {})
             for n, text in enumerate(case.expected, 1)]
    known += [(f"output equals alternative {n}", a.text, a.rules)
              for n, a in enumerate(case.alternatives, 1)]
    matches = [(label, text, rules) for label, text, rules in known if squash(text) == key]
    for label, text, rules in matches:
        if layout_key(text) == layout:
            return KnownAnswer(label, rules)
    if matches:
        label, _, rules = matches[0]
        return KnownAnswer(f"{label} up to whitespace", rules, same_layout=False)
    return None


def apply_known_answer(
    checks: Mapping[str, Check], known: KnownAnswer, rules: Iterable[str]
) -> dict[str, Check]:
    """Lower each rule to the known answer's score; every one of ``rules`` becomes decided
    (a :data:`LAYOUT_RULES` rule only when the layout matched too).

    On a tie the check's own evidence is kept when it has any.
    """
    combined = dict(checks)
    for rule in rules:
        if not known.same_layout and rule in LAYOUT_RULES:
            continue
        listed = known.rules.get(rule, 2)
        note = f"{known.label} ({rule} = {listed} listed)" if rule in known.rules else known.label
        current = combined.get(rule)
        if current is None or listed < current[0] or (listed == current[0] and not current[1]):
            combined[rule] = (listed, note)
    return combined
