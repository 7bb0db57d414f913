"""Running the LLM judges for the items of a run (plugin side: I/O and batching).

Judging is batched per (suite, product) in each process: the first item of a group to
run asks for verdicts on every selected item of that group, so requests go out
concurrently. Only items whose preliminary score leaves a rule unjudged are sent; the
judges then score every rule of the item (automated results shown to them), and the
method keeps the lower of an automated and a judged score.

What the controller needs travels on the item record: each judge's scores (for kappa),
pending adjudications, the cost of the verdicts used, and judge errors.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import DictbenchError
from .files import file_lock
from .judge.records import JudgeRequest
from .judge.settings import JudgeSettings
from .model import Output, RuleScore, ScoreContext

if TYPE_CHECKING:
    from .collect import CaseItem

__all__ = ["JUDGE_MODES", "Judgement", "Judging"]

#: Values of ``--judge``.
JUDGE_MODES = ("off", "replay", "live")

#: Name of the verdict cache and of the human decisions file in the judge folder.
VERDICTS_FILE = "verdicts.jsonl"
DECISIONS_FILE = "adjudications.jsonl"


@dataclass(frozen=True)
class Judgement:
    """What the judges decided for one item."""

    judged: Mapping[str, RuleScore] = field(default_factory=dict)
    #: Fields added to the item record (judge scores, pending, spend).
    record: Mapping[str, Any] = field(default_factory=dict)
    #: Set when a judge request failed: the item is an error, never a score.
    error: str | None = None


def _group(item: CaseItem) -> tuple[str, str]:
    return (item.suite.id, item.product.name)


class Judging:
    """Per-process judge runner; one per dictbench session."""

    def __init__(self, mode: str, folder: Path, audit: int = 0) -> None:
        self.mode = mode
        self.folder = folder
        self.audit = audit
        #: per group: each item's judgement, or why the group could not be judged
        self._done: dict[tuple[str, str], dict[tuple[str, int], Judgement] | str] = {}
        self.calls = 0
        self.cache_hits = 0

    def for_item(self, item: CaseItem, output: Output) -> Judgement:
        """The judgement of ``item`` (judging its whole group on first use)."""
        method = item.session_state.method(item.suite)
        if self.mode == "off" or not (hasattr(method, "rule_meanings")
                                      or hasattr(method, "judge_protocol")):
            return Judgement()
        settings = item.session_state.judge_settings.get(item.suite.id)
        if settings is None:
            return Judgement()
        group = _group(item)
        if group not in self._done:
            try:
                self._done[group] = self._judge_group(item, settings)
            except (DictbenchError, OSError) as exc:
                self._done[group] = f"{type(exc).__name__}: {exc}"
        done = self._done[group]
        if isinstance(done, str):  # the group could not be judged: every item errs
            return Judgement(error=done)
        return done.get((item.case.id, item.repetition), Judgement())

    # -- batching ----------------------------------------------------------------------

    def _requests(self, first: CaseItem) -> list[tuple[CaseItem, JudgeRequest]]:
        method = first.session_state.method(first.suite)
        version = f"{method.name}-{getattr(method, 'version', '0')}"
        protocol = getattr(method, "judge_protocol", None)  # a method's own guide and tool
        requests = []
        for item in first.session.items:
            if getattr(item, "suite", None) is not first.suite or _group(item) != _group(first):
                continue
            output = item.adapter.get(item.case, item.repetition)
            if output is None or output.is_error or output.status != "complete":
                continue
            preliminary = method.score(item.case, output, ScoreContext(item.suite))
            if all(r.source != "unjudged" for r in preliminary.rules):
                continue
            if protocol is not None:
                rules, auto = method.judge_rules(item.case), {}
            else:
                rules = [(r.rule, method.rule_meanings[r.rule]) for r in preliminary.rules]
                auto = {r.rule: {"score": r.score, "evidence": r.evidence}
                        for r in preliminary.rules if r.source == "auto"}
            requests.append((item, JudgeRequest(
                suite=item.suite.id, product=item.product.name, repetition=item.repetition,
                case=dict(item.case.data), output_text=output.text, rules=rules,
                auto_results=auto, rubric_version=version, protocol=protocol)))
        return requests

    def _judge_group(self, first: CaseItem, settings: JudgeSettings
                     ) -> dict[tuple[str, int], Judgement]:
        from .judge import (  # the anthropic SDK loads only when judges run
            AnthropicClientFactory,
            VerdictCache,
            combine,
            judge_all_sync,
            load_decisions,
        )

        pairs = self._requests(first)
        if not pairs:
            return {}
        requests = [request for _, request in pairs]
        factory = AnthropicClientFactory(base_url=settings.base_url, timeout=settings.timeout)
        # One process at a time judges against the cache, reloaded under the lock: xdist
        # workers reuse each other's verdicts instead of paying for them twice.
        with file_lock(self.folder / f".{VERDICTS_FILE}.lock"):
            cache = VerdictCache(self.folder / VERDICTS_FILE)
            try:
                run = judge_all_sync(requests, settings.judges, mode=self.mode, cache=cache,
                                     client_factory=factory,
                                     concurrency=settings.concurrency, retry=settings.retry)
                audit = self._audit(requests, settings, cache, factory)
            finally:
                cache.close()
        self.calls += run.calls
        self.cache_hits += run.cache_hits
        decisions_path = self.folder / DECISIONS_FILE
        decisions = load_decisions(decisions_path) if decisions_path.is_file() else []
        combined = combine(run, decisions)
        results = {}
        listed: set[tuple[str, ...]] = set()  # a pending rule is listed once per output
        for item, request in pairs:
            results[(item.case.id, item.repetition)] = _judgement(
                run, combined, request, audit.get(request.key, {}), listed)
        return results

    def _audit(self, requests: Sequence[JudgeRequest], settings: JudgeSettings,
               cache: Any, factory: Any) -> dict[str, dict[str, Any]]:
        """Re-judge ``audit`` cached requests per judge; pairs keyed by request."""
        if not self.audit or self.mode != "live":
            return {}
        from .judge import rejudge_sample
        found: dict[str, dict[str, Any]] = {}
        for judge in settings.judges:
            pairs, fresh = asyncio.run(rejudge_sample(requests, judge, cache=cache,
                                               client_factory=factory, n=self.audit,
                                               concurrency=settings.concurrency,
                                               retry=settings.retry))
            self.calls += fresh.calls
            by_hash = {cached.content_hash: (cached, new) for cached, new in pairs}
            for request in requests:
                outcome = fresh.outcome(request.key, judge.name)
                if outcome is None or outcome.verdict is None:
                    continue
                cached, new = by_hash.get(outcome.verdict.content_hash, (None, None))
                if cached is None:
                    continue
                found.setdefault(request.key, {})[judge.name] = {
                    rule: [cached.rules[rule].score, new.rules[rule].score]
                    for rule in cached.rules if rule in new.rules}
        return found


def _judgement(run: Any, combined: Any, request: JudgeRequest,
               audit: Mapping[str, Any], listed: set[tuple[str, ...]]) -> Judgement:
    errors, scores, spend = [], {}, {}
    for config in run.judges:
        outcome = run.outcome(request.key, config.name)
        if outcome is None:
            continue
        if outcome.status == "error":
            errors.append(f"judge {config.name!r}: {outcome.error}: {outcome.detail}")
        if outcome.verdict is not None:
            scores[config.name] = {r: v.score for r, v in outcome.verdict.rules.items()}
            usage = outcome.verdict.usage
            entry = spend.setdefault(config.model, {"input_tokens": 0, "output_tokens": 0,
                                                    "cost_usd": 0.0, "verdicts": 0})
            entry["input_tokens"] += usage.input_tokens
            entry["output_tokens"] += usage.output_tokens
            entry["cost_usd"] += config.cost_usd(usage)
            entry["verdicts"] += 1
    pending = []
    for p in combined.pending:
        target = (p.suite, p.case, p.product, p.output_hash, p.rule)
        if target[:4] == (request.suite, request.case_id, request.product,
                          request.output_hash) and target not in listed:
            listed.add(target)
            pending.append(p.to_json())
    record = {"judges": scores, "pending": pending, "judge_spend": spend}
    if audit:
        record["judge_audit"] = dict(audit)
    if errors:
        return Judgement(record=record, error="; ".join(errors))
    return Judgement(judged=combined.final.get(request.key, {}), record=record)
