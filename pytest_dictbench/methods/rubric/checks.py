"""Run the automated checks a case calls for, and apply known answers.

:func:`run_checks` gives, for each scored rule that has an automated check, its
``(score, evidence)``; a forbidden text found in the output also gives a score to its rule
even when that rule otherwise needs judgement (a hit is 0; no hit decides nothing).

:func:`known_answer` recognises an output that is, up to width and whitespace, one of the
case's expected outputs (every rule 2) or one of its alternatives (the listed rules get
the listed scores, every other rule 2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ...text.japanese import bare, squash
from .casedata import RubricCase
from .checkbase import PASS, Check, CheckInput, join_evidence
from .checks_layout import check_list_layout, check_list_separation, check_over_formatting
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

__all__ = ["CHECKS", "KnownAnswer", "apply_known_answer", "known_answer", "run_checks"]


def _self_corrections(inp: CheckInput) -> Check:
    """B2: decided by the case's ``forbid`` entries with rule B2 alone (see run_checks)."""
    return PASS


def _spacing(inp: CheckInput) -> Check:
    """D14: spacing is ignored by every match, so it is never penalised automatically."""
    return PASS


#: The automated check of each automated rule.
CHECKS: dict[str, Callable[[CheckInput], Check]] = {
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
    "D14": _spacing,
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
        if rule in CHECKS:
            own = CHECKS[rule](inp)
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


def known_answer(case: RubricCase, output: str) -> KnownAnswer | None:
    """The expected output or alternative ``output`` equals, ignoring width and spacing."""
    key = squash(output)
    for n, text in enumerate(case.expected, 1):
        if squash(text) == key:
            return KnownAnswer(f"output equals expected output {n}", {})
    for n, alternative in enumerate(case.alternatives, 1):
        if squash(alternative.text) == key:
            return KnownAnswer(f"output equals alternative {n}", alternative.rules)
    return None


def apply_known_answer(
    checks: Mapping[str, Check], known: KnownAnswer, rules: Iterable[str]
) -> dict[str, Check]:
    """Lower each rule to the known answer's score; every one of ``rules`` becomes decided.

    On a tie the check's own evidence is kept when it has any.
    """
    combined = dict(checks)
    for rule in rules:
        listed = known.rules.get(rule, 2)
        note = f"{known.label} ({rule} = {listed} listed)" if rule in known.rules else known.label
        current = combined.get(rule)
        if current is None or listed < current[0] or (listed == current[0] and not current[1]):
            combined[rule] = (listed, note)
    return combined
