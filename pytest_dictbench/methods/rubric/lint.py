"""Consistency checks for rubric cases, for suite authors.

A case is consistent when the automated checks give every expected output full marks,
give no alternative a lower score than the case lists for it, every rule the case's
data feeds (homophones -> D1, terms -> D2, forbid -> its rule, alternatives -> their
rules) is among the rules scored on the item, and no homophone is also a must-keep word
(a homophone slip is a D1 notation error, not an A1 meaning error: a ``must`` entry
whose every spelling needs the right kanji would gate it as one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import Case
from .casedata import RubricCase
from .checks import run_checks

__all__ = ["lint_case"]


def _unscored(case: RubricCase) -> list[str]:
    scored = set(case.scored_rules)
    problems = []
    if case.homophones and "D1" not in scored:
        problems.append("homophones are given but D1 is not in rules")
    if case.terms and "D2" not in scored:
        problems.append("terms are given but D2 is not in rules")
    for entry in case.forbid:
        if entry.rule not in scored:
            problems.append(f"forbid {entry.text!r} feeds {entry.rule}, which is not scored")
    for n, alternative in enumerate(case.alternatives, 1):
        for rule in alternative.rules:
            if rule not in scored:
                problems.append(f"alternative {n} lists {rule}, which is not scored")
    return problems


def _homophones_as_must(case: RubricCase) -> list[str]:
    problems = []
    for homophone in case.homophones:
        for entry in (*case.must, *case.proper_nouns):
            needs_right = all(homophone.correct in v for v in entry)
            accepts_slip = any(w in v for v in entry for w in homophone.wrong)
            if needs_right and not accepts_slip:
                problems.append(
                    f"homophone {homophone.correct} is also required by must-keep "
                    f"{entry[0]!r}: a slip to {homophone.wrong[0]} would be an A1 meaning "
                    "error; homophones are scored under D1 only")
    return problems


def lint_case(case: Case | Mapping[str, Any]) -> list[str]:
    """Problems found in one case (an empty list when it is consistent)."""
    typed = RubricCase.from_case(case) if isinstance(case, Case) else RubricCase.from_mapping(case)
    problems = _unscored(typed) + _homophones_as_must(typed)
    for n, text in enumerate(typed.expected, 1):
        for rule, (score, evidence) in run_checks(typed, text).items():
            if score < 2:
                problems.append(f"expected output {n} scores {rule}={score}: {evidence}")
    for n, alternative in enumerate(typed.alternatives, 1):
        for rule, (score, evidence) in run_checks(typed, alternative.text).items():
            if score < alternative.rules.get(rule, 2):
                problems.append(
                    f"alternative {n} scores {rule}={score} but lists "
                    f"{alternative.rules.get(rule, 2)}: {evidence}"
                )
    return [f"{typed.id}: {p}" for p in problems]
