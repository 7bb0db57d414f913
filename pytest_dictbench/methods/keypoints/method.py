"""The ``keypoints`` method: spoken journal entries scored by key points and by names.

Per item (see ``docs/keypoints.md``):

- the judges rule on every key point (present / missing / contradicted) and list the
  insertions (:mod:`.guide`); from these come proposition recall, precision and F-beta
  (:mod:`.metrics`);
- names, numbers and coined words are extracted locally from both texts and compared as
  sets (:mod:`.names`);
- overall = names weight x names F1 + propositions weight x F-beta when either side has
  an extracted item, else F-beta alone; the item score is 100 x overall;
- an empty transcript scores 0 without a judge;
- an item whose verdicts are not all known is *provisional*: it shows its names figures,
  has no score (``None``) and no proposition figures, and is never ranked.

The item passes when no critical key point is missing or contradicted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import SuiteError
from ...model import Case, ItemResult, Output, RuleScore, ScoreContext, Suite
from ..base import ItemRecord
from .aggregate import aggregate_records
from .casedata import KeypointsCase, case_problem
from .guide import INSERTIONS_RULE, KEYPOINTS_PROTOCOL
from .metrics import VERDICTS, proposition_counts, severity_misses
from .names import NameScores, compare_names
from .params import KeypointsParams

__all__ = ["Keypoints"]


def _names_metrics(names: NameScores) -> dict[str, float]:
    return {"names_tp": names.tp, "names_fp": names.fp, "names_fn": names.fn,
            "names_applies": int(names.applies), "names_precision": names.precision,
            "names_recall": names.recall, "names_f1": names.f1}


class Keypoints:
    """The ``keypoints`` method (see the module docstring)."""

    name = "keypoints"
    #: Version of the scoring; part of every judge cache key.
    version = "1.0"
    case_schema = "case-keypoints.schema.json"
    headline = "score"
    higher_is_better = True
    judge_protocol = KEYPOINTS_PROTOCOL
    #: The report adds ASR and judge cost per product for this method.
    reports_cost = True
    #: The score column is the overall score (0-100); the rest are in the report tables.
    leaderboard_columns = ("names_f1", "fbeta", "recall", "precision", "latency_median_ms",
                           "latency_p95_ms", "mean_rtf", "total_cost_usd")

    def judge_rules(self, case: Case) -> list[tuple[str, str]]:
        """What the judges rule on: every key point, then the insertions."""
        points = [(p.id, p.text) for p in KeypointsCase.from_case(case).key_points]
        return [*points, (INSERTIONS_RULE, "claims the reference does not support")]

    def score(self, case: Case, output: Output, ctx: ScoreContext) -> ItemResult:
        params = KeypointsParams.from_mapping(ctx.params)
        kcase = KeypointsCase.from_case(case)
        names = compare_names(kcase.reference, output.text, match=params.names_match)
        metrics: dict[str, float] = {"key_points": len(kcase.key_points),
                                     **_names_metrics(names)}
        if not output.text.strip():
            return self._empty(kcase, params, metrics)
        rules: list[RuleScore] = []
        verdicts: dict[str, str] = {}
        for point in kcase.key_points:
            judged = ctx.judged.get(point.id)
            if judged is None or judged.score is None:
                why = judged.evidence if judged is not None else "no verdict"
                rules.append(RuleScore(point.id, None, why, "unjudged"))
                continue
            verdicts[point.id] = VERDICTS[judged.score]
            rules.append(RuleScore(point.id, judged.score,
                                   f"{VERDICTS[judged.score]}: {judged.evidence}",
                                   judged.source))
        inserted = ctx.judged.get(INSERTIONS_RULE)
        if inserted is None or inserted.score is None:
            why = inserted.evidence if inserted is not None else "no verdict"
            rules.append(RuleScore(INSERTIONS_RULE, None, why, "unjudged"))
            return self._provisional(rules, metrics)
        rules.append(RuleScore(INSERTIONS_RULE, 2 if inserted.score == 0 else 0,
                               f"{inserted.score} insertions: {inserted.evidence}".rstrip(": "),
                               inserted.source))
        if len(verdicts) < len(kcase.key_points):
            return self._provisional(rules, metrics)
        return self._final(kcase, params, verdicts, inserted.score, names, rules, metrics)

    @staticmethod
    def _empty(kcase: KeypointsCase, params: KeypointsParams,
               metrics: dict[str, float]) -> ItemResult:
        """Scores 0 and counts 0 in every mean, the weighted ones too."""
        critical = sum(1 for p in kcase.key_points if p.severity == "critical")
        metrics.update({"present": 0, "missing": len(kcase.key_points), "contradicted": 0,
                        "insertions": 0, "recall": 0.0, "precision": 0.0, "fbeta": 0.0,
                        "overall": 0.0, "critical_missing": critical,
                        "critical_contradicted": 0, "provisional": 0})
        if params.severity_weights is not None:
            metrics.update({"weighted_recall": 0.0, "weighted_precision": 0.0,
                            "weighted_fbeta": 0.0})
        rules = tuple(RuleScore(p.id, 1, "missing: empty transcript") for p in kcase.key_points)
        return ItemResult(passed=False, score=0.0, rules=rules, metrics=metrics,
                          message="empty transcript")

    @staticmethod
    def _provisional(rules: list[RuleScore], metrics: dict[str, float]) -> ItemResult:
        """No score yet; ``provisional`` on the result counts the verdicts still
        missing (key points and the insertions), as items.jsonl reports it."""
        unjudged = [r.rule for r in rules if r.score is None]
        failures = sorted({r.evidence for r in rules
                           if r.score is None and r.evidence.startswith("judge error")})
        metrics["provisional"] = len(unjudged)  # the record's own count, one vocabulary
        message = f"provisional: no verdict on {', '.join(unjudged)}"
        return ItemResult(passed=True, score=None, rules=tuple(rules), metrics=metrics,
                          message="; ".join([message, *failures]),
                          provisional=len(unjudged))

    @staticmethod
    def _final(kcase: KeypointsCase, params: KeypointsParams, verdicts: dict[str, str],
               insertions: int, names: NameScores, rules: list[RuleScore],
               metrics: dict[str, float]) -> ItemResult:
        severities = {p.id: p.severity for p in kcase.key_points}
        counts = proposition_counts(verdicts, insertions)
        fbeta = counts.f_beta(params.beta)
        overall = (params.names_weight * names.f1 + params.propositions_weight * fbeta
                   if names.applies else fbeta)
        missing, contradicted = severity_misses(verdicts, severities)
        metrics.update({"present": counts.present, "missing": counts.missing,
                        "contradicted": counts.contradicted, "insertions": insertions,
                        "recall": counts.recall, "precision": counts.precision,
                        "fbeta": fbeta, "overall": overall,
                        "critical_missing": len(missing),
                        "critical_contradicted": len(contradicted), "provisional": 0})
        if params.severity_weights is not None:
            weighted = proposition_counts(verdicts, insertions, severities,
                                          params.severity_weights)
            metrics.update({"weighted_recall": weighted.recall,
                            "weighted_precision": weighted.precision,
                            "weighted_fbeta": weighted.f_beta(params.beta)})
        problems = [f"critical key point {p} missing" for p in missing]
        problems += [f"critical key point {p} contradicted" for p in contradicted]
        return ItemResult(passed=not problems, score=100.0 * overall, rules=tuple(rules),
                          metrics=metrics, message="; ".join(problems))

    def check_params(self, suite: Suite) -> None:
        """Refuse bad ``[params]`` and cases the schema cannot catch (file:line)."""
        try:
            KeypointsParams.from_mapping(suite.params)
        except SuiteError as exc:
            raise SuiteError(str(exc), path=suite.root / "suite.toml") from None
        cases_file = suite.root / suite.manifest.get("cases", "cases.jsonl")
        for case in suite.cases:
            problem = case_problem(case)
            if problem:
                raise SuiteError(problem, path=cases_file, line=case.line)

    def check_case(self, case: Case) -> list[str]:
        problem = case_problem(case)
        return [problem] if problem else []

    def aggregate(self, records: Sequence[ItemRecord], suite: Suite) -> dict[str, Any]:
        return aggregate_records(records, suite)
