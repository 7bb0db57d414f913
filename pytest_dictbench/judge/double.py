"""Double judging: turn two judges' verdicts and human decisions into final rule scores.

Per request and rule:

1. a human decision for the same suite, case, product, output hash and rule wins
   (source ``human``);
2. otherwise, when every configured judge answered and all gave the same score, that
   score is final (source ``judge``; the reason is the first judge's);
3. otherwise, when they all answered but disagree, the rule stays unjudged and a
   :class:`PendingDecision` is listed for a human;
4. otherwise (a judge errored, had no cached verdict, or judging is off) the rule stays
   unjudged and the evidence says why.

A decision whose (suite, case, product) is in the run but whose output hash matches none
of that item's outputs is *stale*: ignored and reported. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..model import PENDING_ADJUDICATION, RuleScore
from .records import JudgeRequest

if TYPE_CHECKING:
    from .runner import JudgeRun

__all__ = ["Combined", "Decision", "PendingDecision", "combine"]


@dataclass(frozen=True)
class Decision:
    """A human decision on one rule of one output (a line of ``adjudications.jsonl``)."""

    suite: str
    case: str
    product: str
    output_hash: str
    rule: str
    score: int
    reason: str
    decided_by: str
    #: ``file:line`` it was read from.
    origin: str = ""

    @property
    def item(self) -> tuple[str, str, str]:
        return (self.suite, self.case, self.product)

    @property
    def target(self) -> tuple[str, str, str, str, str]:
        return (self.suite, self.case, self.product, self.output_hash, self.rule)


@dataclass(frozen=True)
class PendingDecision:
    """A rule the judges disagreed on, waiting for a human."""

    suite: str
    case: str
    product: str
    output_hash: str
    rule: str
    #: ``(judge name, score, reason)`` for each judge, in configuration order.
    opinions: tuple[tuple[str, int, str], ...]

    def to_json(self) -> dict[str, Any]:
        """A line for ``pending.jsonl``: fill in score, reason and decided_by to decide it."""
        return {
            "suite": self.suite,
            "case": self.case,
            "product": self.product,
            "output_hash": self.output_hash,
            "rule": self.rule,
            "judges": [{"name": n, "score": s, "reason": r} for n, s, r in self.opinions],
            "score": None,
            "reason": "",
            "decided_by": "",
        }


@dataclass(frozen=True)
class Combined:
    """Final rule scores per request key, plus what needs or lost a human decision."""

    final: Mapping[str, Mapping[str, RuleScore]]
    pending: tuple[PendingDecision, ...] = ()
    applied: tuple[Decision, ...] = ()
    stale: tuple[Decision, ...] = ()
    #: Rules per source (judge, human, unjudged), for the report.
    counts: Mapping[str, int] = field(default_factory=dict)


def _why_unjudged(run: JudgeRun, key: str) -> str:
    if run.mode == "off":
        return "judging is off"
    parts = []
    for config in run.judges:
        outcome = run.outcome(key, config.name)
        if outcome is None or outcome.verdict is None:
            status = (outcome.error or outcome.status) if outcome else "not run"
            parts.append(f"{config.name}: {status}")
    return "not judged (" + "; ".join(parts) + ")"


def _rule_score(
    run: JudgeRun, request: JudgeRequest, rule: str, human: Decision | None
) -> tuple[RuleScore, PendingDecision | None]:
    if human is not None:
        return RuleScore(rule, human.score, human.reason, "human"), None
    verdicts = []
    for config in run.judges:
        outcome = run.outcome(request.key, config.name)
        if outcome is None or outcome.verdict is None or rule not in outcome.verdict.rules:
            return RuleScore(rule, None, _why_unjudged(run, request.key), "unjudged"), None
        verdicts.append((config.name, outcome.verdict.rules[rule]))
    if not verdicts:
        return RuleScore(rule, None, "no judge configured", "unjudged"), None
    scores = {v.score for _, v in verdicts}
    if len(scores) == 1:
        return RuleScore(rule, verdicts[0][1].score, verdicts[0][1].reason, "judge"), None
    opinions = tuple((name, v.score, v.reason) for name, v in verdicts)
    pending = PendingDecision(
        request.suite, request.case_id, request.product, request.output_hash, rule, opinions
    )
    said = ", ".join(f"{name}={score}" for name, score, _ in opinions)
    return RuleScore(rule, None, f"{PENDING_ADJUDICATION} ({said})", "unjudged"), pending


def _index(decisions: Iterable[Decision]) -> dict[tuple[str, str, str, str, str], Decision]:
    return {d.target: d for d in decisions}


def combine(run: JudgeRun, decisions: Sequence[Decision] = ()) -> Combined:
    """Final scores for every request of ``run`` (see the module docstring)."""
    by_target = _index(decisions)
    final: dict[str, dict[str, RuleScore]] = {}
    pending: dict[tuple[str, str, str, str, str], PendingDecision] = {}
    applied: dict[tuple[str, str, str, str, str], Decision] = {}
    hashes_by_item: dict[tuple[str, str, str], set[str]] = {}
    counts = {"judge": 0, "human": 0, "unjudged": 0}
    for key, request in run.requests.items():
        item = (request.suite, request.case_id, request.product)
        hashes_by_item.setdefault(item, set()).add(request.output_hash)
        scores: dict[str, RuleScore] = {}
        for rule in request.rule_ids:
            target = (*item, request.output_hash, rule)
            human = by_target.get(target)
            score, waiting = _rule_score(run, request, rule, human)
            scores[rule] = score
            counts[score.source] += 1
            if human is not None:
                applied[target] = human
            if waiting is not None:
                pending.setdefault(target, waiting)
        final[key] = scores
    stale = tuple(
        d for d in decisions
        if d.item in hashes_by_item and d.output_hash not in hashes_by_item[d.item]
    )
    return Combined(
        final=final,
        pending=tuple(pending[t] for t in sorted(pending)),
        applied=tuple(applied[t] for t in sorted(applied)),
        stale=stale,
        counts=counts,
    )
