"""How far the judges can be trusted: agreement figures on 0/1/2 rule scores.

Kappa is computed over verdict codes only. A rule in :data:`COUNT_RULES` (the
keypoints method's ``insertions``) carries a count, not a category: its pairs are
compared apart, as the share of exact matches and the mean absolute difference
(:func:`count_agreement`), and never pooled into kappa.

* :func:`judge_agreement` - Cohen's kappa between two judges, per rule and pooled over
  all (request, rule) pairs both judged;
* :func:`human_agreement` - each judge (and the judges' consensus, where they agreed)
  against the human decisions that match the run's outputs;
* :func:`self_consistency` - cached versus fresh verdicts of the same judge on the same
  content (see :func:`~.runner.rejudge_sample`).

Pure: no I/O. A kappa over no pairs is ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..stats import cohen_kappa
from .double import Decision
from .records import Verdict

if TYPE_CHECKING:
    from .runner import JudgeRun

__all__ = [
    "COUNT_RULES",
    "Agreement",
    "AgreementTable",
    "CountAgreement",
    "agreement",
    "count_agreement",
    "human_agreement",
    "judge_agreement",
    "self_consistency",
]

SCORE_LABELS = (0, 1, 2)
#: Rules whose score is a count (keypoints: the number of insertions), not a verdict.
COUNT_RULES = frozenset({"insertions"})


@dataclass(frozen=True)
class Agreement:
    """Agreement of two raters over ``n`` paired scores."""

    n: int
    agreed: int
    kappa: float | None

    @property
    def share(self) -> float | None:
        """Raw proportion of identical scores."""
        return self.agreed / self.n if self.n else None

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "agreed": self.agreed,
            "share": None if self.share is None else round(self.share, 6),
            "kappa": None if self.kappa is None else round(self.kappa, 6),
        }


@dataclass(frozen=True)
class CountAgreement:
    """Two raters' counts over ``n`` pairs: exact matches and mean absolute difference."""

    n: int
    exact: int
    total_abs_diff: int

    @property
    def share(self) -> float | None:
        return self.exact / self.n if self.n else None

    @property
    def mean_abs_diff(self) -> float | None:
        return self.total_abs_diff / self.n if self.n else None

    def to_json(self) -> dict[str, Any]:
        share, mad = self.share, self.mean_abs_diff
        return {"n": self.n, "exact": self.exact,
                "share": None if share is None else round(share, 6),
                "mean_abs_diff": None if mad is None else round(mad, 6)}


@dataclass(frozen=True)
class AgreementTable:
    """Pooled agreement plus one figure per rule (rules in sorted order); count rules
    (:data:`COUNT_RULES`) apart in ``counts``."""

    overall: Agreement
    by_rule: Mapping[str, Agreement]
    counts: Mapping[str, CountAgreement] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "overall": self.overall.to_json(),
            "rules": {rule: a.to_json() for rule, a in sorted(self.by_rule.items())},
        }
        if self.counts:
            out["counts"] = {rule: c.to_json() for rule, c in sorted(self.counts.items())}
        return out


def agreement(pairs: Iterable[tuple[int, int]]) -> Agreement:
    """Kappa and raw agreement of paired scores (labels 0, 1, 2)."""
    pairs = list(pairs)
    if not pairs:
        return Agreement(0, 0, None)
    first = [a for a, _ in pairs]
    second = [b for _, b in pairs]
    agreed = sum(a == b for a, b in pairs)
    return Agreement(len(pairs), agreed, cohen_kappa(first, second, labels=SCORE_LABELS))


def count_agreement(pairs: Iterable[tuple[int, int]]) -> CountAgreement:
    """Exact matches and summed absolute difference of paired counts."""
    pairs = list(pairs)
    return CountAgreement(len(pairs), sum(a == b for a, b in pairs),
                          sum(abs(a - b) for a, b in pairs))


def agreement_table(pairs_by_rule: Mapping[str, list[tuple[int, int]]]) -> AgreementTable:
    """Kappa per verdict rule and pooled over them; count rules compared apart."""
    verdicts = {r: p for r, p in pairs_by_rule.items() if r not in COUNT_RULES}
    pooled = [pair for pairs in verdicts.values() for pair in pairs]
    return AgreementTable(
        agreement(pooled), {rule: agreement(p) for rule, p in verdicts.items()},
        {rule: count_agreement(p) for rule, p in pairs_by_rule.items() if rule in COUNT_RULES},
    )


def judge_agreement(
    run: JudgeRun, first: str | None = None, second: str | None = None
) -> AgreementTable:
    """Kappa between two judges of ``run`` (by default the first two configured)."""
    if first is None or second is None:
        if len(run.judges) < 2:
            raise ValueError("judge agreement needs two judges")
        first, second = run.judges[0].name, run.judges[1].name
    pairs: dict[str, list[tuple[int, int]]] = {}
    for key, request in run.requests.items():
        a, b = run.outcome(key, first), run.outcome(key, second)
        if a is None or b is None or a.verdict is None or b.verdict is None:
            continue
        for rule in request.rule_ids:
            va, vb = a.verdict.rules.get(rule), b.verdict.rules.get(rule)
            if va is not None and vb is not None:
                pairs.setdefault(rule, []).append((va.score, vb.score))
    return agreement_table(pairs)


def human_agreement(run: JudgeRun, decisions: Sequence[Decision]) -> dict[str, Agreement]:
    """Each judge's score against the human's, on decisions matching the run's outputs.

    Count rules (:data:`COUNT_RULES`) are left out: a count is not a verdict code.
    Also ``"consensus"``: the judges' common score where they all agreed (decisions on
    such rules come from audits, since agreeing rules need no adjudication). Each
    decision counts once even if several repetitions produced the same output.
    """
    index = {}
    for key, request in run.requests.items():
        item = (request.suite, request.case_id, request.product, request.output_hash)
        index.setdefault(item, key)
    pairs: dict[str, list[tuple[int, int]]] = {j.name: [] for j in run.judges}
    pairs["consensus"] = []
    for decision in decisions:
        key = index.get(decision.target[:4])
        if key is None or decision.rule in COUNT_RULES:
            continue
        scores = []
        for config in run.judges:
            outcome = run.outcome(key, config.name)
            verdict = outcome.verdict if outcome else None
            if verdict is not None and decision.rule in verdict.rules:
                score = verdict.rules[decision.rule].score
                pairs[config.name].append((score, decision.score))
                scores.append(score)
        if scores and len(scores) == len(run.judges) and len(set(scores)) == 1:
            pairs["consensus"].append((scores[0], decision.score))
    return {name: agreement(p) for name, p in pairs.items()}


def self_consistency(pairs: Sequence[tuple[Verdict, Verdict]]) -> AgreementTable:
    """Kappa between earlier (cached) and fresh verdicts of one judge, per rule and pooled."""
    by_rule: dict[str, list[tuple[int, int]]] = {}
    for old, new in pairs:
        for rule, verdict in old.rules.items():
            if rule in new.rules:
                by_rule.setdefault(rule, []).append((verdict.score, new.rules[rule].score))
    return agreement_table(by_rule)
