"""Method ``rig``: the preregistered Mac rig methodology (one item = one results row).

Each complete run is scored by :func:`scoring.run_metrics`; the suite's tables (median
of repetitions, mean of fixture medians, per-metric ranks) come from
:func:`tables.rig_tables`. Pure: no pytest, no file I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...model import Case, ItemResult, Output, ScoreContext, Suite
from ...text.rig import NORMALIZATION, char_tokens, word_tokens
from .scoring import run_metrics
from .tables import NO_OVERALL, rig_tables

__all__ = ["RigMethod"]


class RigMethod:
    """Scores rig runs; ranks per metric table, never overall."""

    name = "rig"
    case_schema = None
    version = "rig-1"
    headline = "score"
    higher_is_better = True
    #: Rig suites rank per metric table (``suite_tables``), never over all metrics.
    overall_ranking = False
    no_overall_reason = NO_OVERALL
    #: Reports are made of the results rows alone, not of product files, so a live run
    #: and the import of its exported CSV report the same.
    uses_product_files = False

    def score(self, case: Case, output: Output, ctx: ScoreContext) -> ItemResult:
        """Figures of one complete run; a near-miss correction or an incomplete meeting
        capture is below the gate (reported, kept, excluded from ranks)."""
        values = dict(output.meta.get("rig_values", {}))
        values.setdefault("raw_transcript", output.text)
        notes: list[str] = []
        metrics = run_metrics(case.data, values, notes)
        if case.data["workflow"] == "correction":
            passed = metrics["correction_exact"] == 1.0
            message = "" if passed else (
                f"final transcript is not the exact target (remaining edit distance "
                f"{int(metrics['final_strict_edit_distance'])})")
            return ItemResult(passed=passed, score=100.0 if passed else 0.0,
                              metrics=metrics, message=message)
        passed = metrics.get("capture_complete", 1.0) == 1.0
        score = 100.0 * max(0.0, 1.0 - metrics["wer"])
        return ItemResult(passed=passed, score=score, metrics=metrics,
                          message="; ".join(_meeting_notes(passed, metrics, values) + notes))

    def aggregate(self, records: Sequence[Mapping[str, Any]], suite: Suite) -> dict[str, Any]:
        return {}

    def suite_tables(self, records: Sequence[Mapping[str, Any]], suite: Suite
                     ) -> dict[str, Any]:
        """The per-metric tables of every product of the suite (``dictbench.json``
        ``suites[].rig``), with what the run checked before scoring (``checks``: set
        by the collector, :mod:`pytest_dictbench.rig.checks`)."""
        return rig_tables(records, suite.manifest["package"], suite.manifest.get("checks"))

    def check_case(self, case: Case) -> list[str]:
        """A fixture's reference must keep words and characters after ``rig-v1``."""
        locale, reference = case.data["locale"], case.data["reference"]
        if case.data["workflow"] == "correction":
            return [] if reference else ["the correction target is empty"]
        if not word_tokens(reference, locale) or not char_tokens(reference, locale):
            return [f"the reference is empty after {NORMALIZATION} normalisation"]
        return []


def _meeting_notes(passed: bool, metrics: Mapping[str, float],
                   values: Mapping[str, Any]) -> list[str]:
    """What an item message says of a meeting run: an incomplete capture, and a computed
    speaker-turn count that disagrees with the operator's."""
    notes = [] if passed else ["meeting capture incomplete"]
    if metrics.get("speaker_turns_operator_disagrees"):
        notes.append(
            f"the results CSV says {values.get('speaker_turns_correct')} of "
            f"{values.get('speaker_turns_total')} speaker turns correct, the labelled "
            f"transcript gives {int(metrics['speaker_turns_correct_computed'])} of "
            f"{int(metrics['speaker_turns_total_computed'])}")
    return notes
