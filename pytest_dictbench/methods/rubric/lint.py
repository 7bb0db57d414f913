"""Consistency checks for rubric cases, for suite authors.

A case is consistent when the automated checks give every expected output full marks,
give no alternative a lower score than the case lists for it, and every rule the case's
data feeds (homophones -> D1, terms -> D2, forbid -> its rule, alternatives -> their
rules) is among the rules scored on the item.
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


def lint_case(case: Case | Mapping[str, Any]) -> list[str]:
    """Problems found in one case (an empty list when it is consistent)."""
    typed = RubricCase.from_case(case) if isinstance(case, Case) else RubricCase.from_mapping(case)
    problems = _unscored(typed)
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
