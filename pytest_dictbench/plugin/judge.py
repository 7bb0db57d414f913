"""Running the LLM judges for the items of a run (plugin side: I/O and batching).

Judging is batched per (suite, product) in each process: the first item of a group to
run asks for verdicts on every selected item of that group, so requests go out
concurrently (or, with ``--judge=batch``, as one Message Batch per judge). Only items
whose preliminary score leaves a rule unjudged are sent; the judges then score every
rule of the item (automated results shown to them), and their agreed score, or a
person's decision, is final over the automated one.

What the controller needs travels on the item record: each judge's scores (for kappa),
pending adjudications, the cost of the verdicts used, and judge errors. An item whose
verdicts are still in an open batch, or were not asked for because of ``budget_usd``,
is not scored (``Judgement.unscored``).

A suite that declares no judges still takes a person's decisions: lines of
``adjudications.jsonl`` in the judge folder whose suite, case, product and output hash
match an item give its rules their final (``human``) scores.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from ..adapters.base import Adapter
from ..errors import DictbenchError
from ..files import file_lock
from ..judge.adjudications import DECISIONS_FILE, unknown_rule_warnings
from ..judge.records import JudgeRequest
from ..judge.settings import JudgeSettings
from ..methods.base import Method
from ..model import ItemLike, Output, RuleScore, ScoreContext
from ..private import is_private, public_case_id
from .judge_budget import SuiteBudgets
from .judgement import NO_JUDGEMENT, Judgement, judgement_of

__all__ = ["JUDGE_MODES", "JudgeItem", "Judging", "has_judged_rules"]

#: Values of ``--judge``.
JUDGE_MODES = ("off", "replay", "live", "batch")



def has_judged_rules(method: Any) -> bool:
    """Whether ``method`` builds judge requests: rubric-style ``rule_meanings`` or a
    judge protocol of its own (keypoints). The estimate, the project-wide judge table and
    the judging pass all ask this one question."""
    return hasattr(method, "rule_meanings") or hasattr(method, "judge_protocol")

class JudgeItem(ItemLike, Protocol):
    """A benchmark item as the judges see it (``collect.CaseItem`` is one)."""

    adapter: Adapter

#: Name of the verdict cache in the judge folder.
VERDICTS_FILE = "verdicts.jsonl"


def _terminal_line(config: Any) -> Any:
    """A function printing one line on the terminal even while output is captured (the
    batch progress line is printed from inside an item's setup); ``None`` on workers."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None:
        return None

    def write(line: str) -> None:
        if capture is None:
            reporter.write_line(line)
            return
        with capture.global_and_fixture_disabled():
            reporter.write_line(line)

    return write


def _warn_short_answers(requests: Sequence[JudgeRequest], settings: JudgeSettings,
                        suite: Any) -> None:
    """Warn about a case whose expected answer (the estimate's ``20 + 30 x rules``
    tokens) exceeds a judge's ``max_tokens``: it would be cut off, asked again and fail,
    billed on every run."""
    from ..judge.estimate import OUTPUT_BASE, OUTPUT_PER_RULE

    warned: set[tuple[str, str]] = set()
    for request in requests:
        need = OUTPUT_BASE + OUTPUT_PER_RULE * len(request.rule_ids)
        for judge in settings.judges:
            if need > judge.max_tokens and (request.case_id, judge.name) not in warned:
                warned.add((request.case_id, judge.name))
                shown = public_case_id(suite, request.case_id) if is_private(suite) \
                    else request.case_id
                warnings.warn(f"suite {request.suite!r}: case {shown!r} needs about "
                              f"{need} output tokens ({len(request.rule_ids)} rules) but "
                              f"judge {judge.name!r} has max_tokens {judge.max_tokens}: its "
                              "answer would be cut off", UserWarning, stacklevel=2)


def _group(item: JudgeItem) -> tuple[str, str]:
    return (item.suite.id, item.product.name)


class Judging(SuiteBudgets):
    """Per-process judge runner; one per dictbench session (each suite's budget and its
    figures: :class:`~.judge_budget.SuiteBudgets`)."""

    def __init__(self, mode: str, folder: Path, audit: int = 0, *, batch_wait: float = 0.0,
                 budget_ledger: Path | None = None, progress: Any = None) -> None:
        self.mode = mode
        self.folder = folder
        self.audit = audit
        self.batch_wait = batch_wait
        #: The file in which xdist workers share each suite's budget (None: one process).
        self.budget_ledger = budget_ledger
        #: Called with a progress line while waiting for batches (or ``None``).
        self.progress = progress
        #: per group: each item's judgement, or why the group could not be judged
        self._done: dict[tuple[str, str], dict[tuple[str, int], Judgement] | str] = {}
        self._budgets: dict[str, Any] = {}
        #: The budget figures of the run's xdist workers, per suite (controller only).
        self.worker_budgets: dict[str, dict[str, Any]] = {}
        self.calls = 0
        self.cache_hits = 0
        self._human: dict[tuple[str, str, str, str], list[Any]] | None = None

    @classmethod
    def from_config(cls, config: Any, folder: Path) -> Judging:
        """The runner for a pytest config (``--judge``, ``--judge-audit``,
        ``--judge-batch-wait``, xdist worker count)."""
        ledger = (getattr(config, "workerinput", None) or {}).get("dictbench_budget_ledger")
        return cls(config.getoption("dictbench_judge"), folder,
                   config.getoption("dictbench_judge_audit"),
                   batch_wait=config.getoption("dictbench_judge_batch_wait"),
                   budget_ledger=Path(ledger) if ledger else None,
                   progress=_terminal_line(config))

    def for_item(self, item: JudgeItem, output: Output, method: Method,
                 settings: JudgeSettings | None, items: Sequence[Any]) -> Judgement:
        """The judgement of ``item`` (judging its whole group, among ``items``, on first
        use)."""
        if self.mode == "off" or not has_judged_rules(method):
            return NO_JUDGEMENT
        if settings is None:
            return self._human_only(item, output)
        group = _group(item)
        if group not in self._done:
            try:
                self._done[group] = self._judge_group(item, method, settings, items)
            except (DictbenchError, OSError) as exc:
                self._done[group] = f"{type(exc).__name__}: {exc}"
        done = self._done[group]
        if isinstance(done, str):  # the group could not be judged: every item errs
            return Judgement(error=done)
        found = done.get((item.case.id, item.repetition))
        # an item the judges were not asked about (a known answer decides every rule)
        # still takes a person's decisions
        return found if found is not None else self._human_only(item, output)

    def _human_only(self, item: JudgeItem, output: Output) -> Judgement:
        """A person's decisions on ``item`` (suites without judges)."""
        from ..judge.records import output_hash

        try:
            decisions = self._decisions()
        except (DictbenchError, OSError) as exc:
            return Judgement(error=f"{type(exc).__name__}: {exc}")
        key = (item.suite.id, item.case.id, item.product.name, output_hash(output.text))
        judged = {d.rule: RuleScore(d.rule, d.score, d.reason, "human")
                  for d in decisions.get(key, ())}
        return Judgement(judged=judged)

    def _decisions(self) -> dict[tuple[str, str, str, str], list[Any]]:
        """The decisions file, loaded once per process, by (suite, case, product, hash)."""
        if self._human is None:
            from ..judge.adjudications import load_decisions

            found: dict[tuple[str, str, str, str], list[Any]] = {}
            for d in load_decisions(self.folder / DECISIONS_FILE):
                found.setdefault((d.suite, d.case, d.product, d.output_hash), []).append(d)
            self._human = found
        return self._human

    def unused(self, records: Sequence[Mapping[str, Any]], cases: Mapping[str, frozenset[str]],
               root: Path) -> list[dict[str, str]]:
        """The decisions file's lines that decided nothing in this run, with
        ``file:line`` relative to ``root`` and why (none when judging is off, or the file
        cannot be read: its items already say so)."""
        from ..judge.adjudications import load_decisions, unused_decisions

        path = self.folder / DECISIONS_FILE
        if self.mode == "off" or not path.is_file():
            return []
        try:
            found = unused_decisions(load_decisions(path), records, cases)
        except (DictbenchError, OSError):
            return []
        shown = str(path)
        with contextlib.suppress(ValueError):
            shown = path.resolve().relative_to(root.resolve()).as_posix()
        return [{**d, "origin": d["origin"].replace(str(path), shown, 1)} for d in found]

    # -- batching ----------------------------------------------------------------------

    def requests(self, first: JudgeItem, method: Any, items: Sequence[Any]
                 ) -> list[tuple[JudgeItem, JudgeRequest]]:
        """The judge requests of ``first``'s group among ``items`` (outputs read through
        each item's adapter)."""
        from ..judge.protocol_task import ProtocolTask
        from ..judge.request import RubricTask

        version = f"{method.name}-{getattr(method, 'version', '0')}"
        protocol = getattr(method, "judge_protocol", None)  # a method's own guide and tool
        task = ProtocolTask(protocol) if protocol is not None else \
            RubricTask(tuple(sorted(method.rule_meanings.items())))
        requests = []
        for item in items:
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
                auto_results=auto, rubric_version=version, task=task)))
        return requests

    def _judge_group(self, first: JudgeItem, method: Method, settings: JudgeSettings,
                     items: Sequence[Any]) -> dict[tuple[str, int], Judgement]:
        from ..judge import (  # the anthropic SDK loads only when judges run
            JudgeClientFactory,
            VerdictCache,
            combine,
            judge_all_sync,
            load_decisions,
        )
        from ..judge.batch import BOOK_FILE, BatchBook

        pairs = self.requests(first, method, items)
        if not pairs:
            return {}
        requests = [request for _, request in pairs]
        _warn_short_answers(requests, settings, first.suite)
        factory = JudgeClientFactory(base_url=settings.base_url, timeout=settings.timeout)
        # One process at a time judges against the cache, reloaded under the lock: xdist
        # workers reuse each other's verdicts instead of paying for them twice (the
        # batch book is read and written under the same lock).
        with file_lock(self.folder / f".{VERDICTS_FILE}.lock"):
            cache = VerdictCache(self.folder / VERDICTS_FILE)
            book = BatchBook.load(self.folder / BOOK_FILE) if self.mode in (
                "live", "batch") else None
            try:
                run = judge_all_sync(
                    requests, settings.judges, mode=self.mode, cache=cache,
                    client_factory=factory, concurrency=settings.concurrency,
                    retry=settings.retry, budget=self.budget(first.suite.id, settings),
                    book=book, batch_wait=self.batch_wait, batch_poll=settings.batch_poll,
                    batch_failures=settings.batch_failures, progress=self.progress)
                audit = self._audit(requests, settings, cache, factory)
            finally:
                cache.close()
        self.calls += run.calls
        self.cache_hits += run.cache_hits
        self._say(first, run, self.budget(first.suite.id, settings))
        decisions_path = self.folder / DECISIONS_FILE
        decisions = load_decisions(decisions_path) if decisions_path.is_file() else []
        rules = {(r.suite, r.case_id): r.rule_ids for r in requests}
        for message in unknown_rule_warnings(decisions, rules):
            warnings.warn(message, UserWarning, stacklevel=1)
        combined = combine(run, decisions)
        results = {}
        listed: set[tuple[str, ...]] = set()  # a pending rule is listed once per output
        for item, request in pairs:
            results[(item.case.id, item.repetition)] = judgement_of(
                run, combined, request, audit.get(request.key, {}), listed)
        return results

    def _say(self, first: JudgeItem, run: Any, budget: Any) -> None:
        """Terminal lines after a group: the budget spent and what it stopped, and batch
        results that matched no request."""
        if self.progress is None:
            return
        if budget.limited:
            self.progress(f"[judge] {first.suite.id}: budget_usd {budget.limit}: spent "
                          f"${budget.spent:.4f} so far ({budget.reserved:.4f} reserved), "
                          f"{budget.refused} request(s) not sent")
        if run.batch_dropped:
            self.progress(f"[judge] {first.suite.id}/{first.product.name}: "
                          f"{run.batch_dropped} batch result(s) matched no request of this "
                          "run and were dropped")

    def _audit(self, requests: Sequence[JudgeRequest], settings: JudgeSettings,
               cache: Any, factory: Any) -> dict[str, dict[str, Any]]:
        """Re-judge ``audit`` cached requests per judge; pairs keyed by request."""
        if not self.audit or self.mode != "live":
            return {}
        import asyncio  # here: most runs judge nothing live, and start without it

        from ..judge import rejudge_sample
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
