"""The ``rubric`` scoring method: four layers, 46 rules, a meaning gate.

Per item: run the automated checks for the scored rules (common rules plus the case's
own), let a known answer (an expected output or a listed alternative) decide the rest,
combine with any judge verdicts from ``ctx.judged``, and score (see :mod:`.scoring`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

from ...errors import SuiteError
from ...model import Case, ItemResult, Output, ScoreContext, Suite
from ...text.diff import diff_against_closest
from ..base import ItemRecord
from .aggregate import aggregate_records
from .casedata import RubricCase
from .checks import apply_known_answer, known_answer, run_checks
from .lint import lint_case
from .rules import RULES
from .scoring import RubricParams, build_result, combine

__all__ = ["RubricMethod"]


class RubricMethod:
    """Japanese dictation rubric: meaning (A), disfluencies (B), structure (C), notation (D).

    Suite parameters (``[params]`` in ``suite.toml``)::

        weights = {A = 50, B = 25, C = 10, D = 15}   # the defaults
        gate = "A"                                    # layer(s) whose failure zeroes an item
    """

    name = "rubric"
    #: Version of the rules and scoring; part of every judge cache key.
    version = "1.0"
    case_schema = "case-rubric.schema.json"
    #: One-line meaning of every rule, shown to LLM judges.
    rule_meanings: ClassVar[Mapping[str, str]] = MappingProxyType(
        {rule.id: rule.meaning for rule in RULES.values()})
    headline = "score"
    leaderboard_columns = ("layer_A", "layer_B", "layer_C", "layer_D", "meaning_errors")
    higher_is_better = True

    def score(self, case: Case, output: Output, ctx: ScoreContext) -> ItemResult:
        """Score one output of one case (0-100; failed items score 0)."""
        params = RubricParams.from_mapping(ctx.params)
        rubric_case = RubricCase.from_case(case)
        scored = rubric_case.scored_rules
        checks = run_checks(rubric_case, output.text, scored)
        known = known_answer(rubric_case, output.text)
        if known is not None:
            checks = apply_known_answer(checks, known, scored)
        scores = [combine(rule, checks.get(rule), ctx.judged.get(rule)) for rule in scored]
        diff = ""
        if known is None or known.rules:
            diff = diff_against_closest(output.text, rubric_case.expected)
        return build_result(scores, params, diff)

    def check_params(self, suite: Suite) -> None:
        """Refuse bad ``[params]`` when the suite is loaded (raises ``SuiteError``)."""
        try:
            RubricParams.from_mapping(suite.params)
        except SuiteError as exc:
            raise SuiteError(str(exc), path=suite.root / "suite.toml") from None

    def check_case(self, case: Case) -> list[str]:
        """Consistency problems of a case (for ``--dictbench-verify``)."""
        return lint_case(case)

    def aggregate(self, records: Sequence[ItemRecord], suite: Suite) -> dict[str, Any]:
        """Tables: summary, by_genre, by_source, by_short, rule_failures, unjudged,
        failing_items (see :mod:`.aggregate`)."""
        return aggregate_records(records, suite)
