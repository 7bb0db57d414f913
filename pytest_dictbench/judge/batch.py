"""Message Batches: the book of submitted batches, submission and collection.

``batches.json`` in the judge folder lists every batch submitted and not yet collected:
its id, the judge, and the content hashes it holds (each request's ``custom_id`` *is*
its verdict cache key, so a result lands in the cache exactly as a live answer would).
The book is rewritten atomically after each submission and each collection, under the
verdict cache's lock (the plugin holds it), so a crash between submitting and recording
can at worst lose track of a batch - never record one twice. A hash held by an open
batch is never submitted again, in batch or live mode: nothing is charged twice.

The book holds ids, names and hashes only: no key, no header, no prompt. Every batch
API call (submission, status, results) backs off on rate limits, overloads and lost
connections as live judging does (:mod:`.backoff`).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from ..errors import JudgeError
from .backoff import GaveUp, with_backoff
from .batch_book import BOOK_FILE, BatchBook, BatchEntry
from .batch_results import BatchResult, check_results_url, parse_results
from .client import AnthropicJudgeClient
from .estimate import worst_case_cost
from .records import JudgeConfig, JudgeOutcome, JudgeRequest, RetryPolicy, TokenUsage, Verdict
from .request import task_of
from .transport import shorten

#: Why a request was not sent: the budget would have been exceeded.
BUDGET_DETAIL = "not sent: budget_usd would be exceeded"

__all__ = [
    "BOOK_FILE",
    "BUDGET_DETAIL",
    "MAX_BATCH_BYTES",
    "MAX_BATCH_REQUESTS",
    "BatchBook",
    "BatchEntry",
    "BatchPass",
    "BatchResult",
    "BatchStatus",
    "BatchTooLarge",
    "check_results_url",
    "fetch_results",
    "fetch_status",
    "parse_results",
    "split_batches",
    "submit",
]

@dataclass(frozen=True)
class BatchStatus:
    """Where a batch stands: ``in_progress``, ``canceling`` or ``ended``."""

    id: str
    processing: str
    counts: Mapping[str, int]
    #: When the API gives up on the batch (``None``: not said).
    expires_at: datetime | None = None

    @property
    def ended(self) -> bool:
        return self.processing == "ended"

    @property
    def past_expiry(self) -> bool:
        """Still open although its ``expires_at`` has passed: it will never end well."""
        return (not self.ended and self.expires_at is not None
                and self.expires_at <= datetime.now(UTC))

    @property
    def done(self) -> int:
        return sum(n for k, n in self.counts.items() if k != "processing")

    @property
    def total(self) -> int:
        return sum(self.counts.values())


Sleep = Callable[[float], Awaitable[Any]]

#: The Message Batches API's limits per batch: requests, and bytes of the create body.
MAX_BATCH_REQUESTS = 100_000
MAX_BATCH_BYTES = 256_000_000


class BatchTooLarge(JudgeError):
    """The API refused a batch creation as too large (HTTP 413)."""


def split_batches(pairs: Sequence[tuple[Any, Mapping[str, Any]]], max_requests: int,
                  max_bytes: int) -> list[list[tuple[Any, Mapping[str, Any]]]]:
    """``(job, params)`` pairs in consecutive groups within both limits (the size of a
    request counted as its JSON params)."""
    groups: list[list[tuple[Any, Mapping[str, Any]]]] = []
    size = 0
    for pair in pairs:
        weight = len(json.dumps(pair[1], ensure_ascii=False).encode("utf-8")) + 64
        if not groups or len(groups[-1]) >= max_requests or size + weight > max_bytes:
            groups.append([])
            size = 0
        groups[-1].append(pair)
        size += weight
    return groups


async def _guarded(client: AnthropicJudgeClient, what: str,
                   make: Callable[[], Awaitable[Any]], retry: RetryPolicy | None,
                   sleep: Sleep) -> Any:
    """Await ``make()`` with our backoff (one attempt without a ``retry`` policy); an API
    failure that stays becomes a redacted :class:`JudgeError`."""
    policy = retry or RetryPolicy(max_attempts=1)
    try:
        return await with_backoff(make, policy, random.Random(f"{policy.seed}:batch:{what}"),
                                  sleep)
    except GaveUp as exc:
        tries = f" after {exc.attempts} attempts" if exc.attempts > 1 else ""
        status = getattr(exc.error, "status_code", None)
        error = (BatchTooLarge if status == 413 else JudgeError)(
            f"batch {what} failed{tries}: {type(exc.error).__name__}: "
            f"{shorten(client.redact(str(exc.error)))}")
        error.answered = status is not None  # type: ignore[attr-defined]
        raise error from None


async def submit(client: AnthropicJudgeClient,
                 requests: Sequence[tuple[str, Mapping[str, Any]]],
                 retry: RetryPolicy | None = None, sleep: Sleep = asyncio.sleep) -> str:
    """Create one batch of ``(custom_id, params)`` requests; returns its id."""
    batch = await _guarded(client, "submission", lambda: client.sdk.messages.batches.create(
        requests=[{"custom_id": cid, "params": dict(params)} for cid, params in requests]),
        retry, sleep)
    return str(batch.id)


async def fetch_status(client: AnthropicJudgeClient, batch_id: str,
                       retry: RetryPolicy | None = None, sleep: Sleep = asyncio.sleep
                       ) -> BatchStatus:
    batch = await _guarded(client, f"status of {batch_id}",
                           lambda: client.sdk.messages.batches.retrieve(batch_id), retry, sleep)
    counts = batch.request_counts
    expires = getattr(batch, "expires_at", None)
    if isinstance(expires, datetime) and expires.tzinfo is None:
        expires = expires.replace(tzinfo=UTC)
    return BatchStatus(batch.id, batch.processing_status, {
        name: int(getattr(counts, name, 0) or 0)
        for name in ("processing", "succeeded", "errored", "canceled", "expired")},
        expires if isinstance(expires, datetime) else None)


async def fetch_results(client: AnthropicJudgeClient, batch_id: str,
                        tool_name: Callable[[str], str], retry: RetryPolicy | None = None,
                        sleep: Sleep = asyncio.sleep) -> list[BatchResult]:
    """Every result of an ended batch (``tool_name(custom_id)`` names the answer tool).

    The results are downloaded from ``/v1/messages/batches/{id}/results`` on the
    configured base URL, never from wherever the batch's ``results_url`` points: that
    URL must name the same host (:func:`check_results_url`) or nothing is fetched.
    """
    batch = await _guarded(client, f"status of {batch_id}",
                           lambda: client.sdk.messages.batches.retrieve(batch_id), retry, sleep)
    base = str(client.sdk.base_url)
    check_results_url(getattr(batch, "results_url", None), base, batch_id)
    path = f"/v1/messages/batches/{quote(batch_id, safe='')}/results"
    text = await _guarded(client, f"results of {batch_id}", lambda: client.sdk.get(
        path, cast_to=str, options={"headers": {"Accept": "application/binary"}}),
        retry, sleep)
    return parse_results(str(text), batch_id, tool_name)


#: (judge name, content hash): one verdict to obtain.
Job = tuple[str, str]


class BatchPass:
    """Batch side of one judging pass: collect open batches holding this pass's jobs,
    submit the rest (mode ``batch``), wait up to ``wait`` seconds, and say which jobs
    are pending, answered, or to be judged live (failed in their batch)."""

    def __init__(self, state: Any, book: BatchBook, *, wait: float = 0.0, poll: float = 5.0,
                 progress: Callable[[str], None] | None = None, failures: str = "live"):
        self.state = state  # runner._Judging: client(), cache, meter, budget, sleep
        self.book = book
        self.wait = wait
        self.poll = poll
        self.progress = progress
        self.failures = failures
        #: Results of collected batches with no job in this pass (selection changed).
        self.dropped = 0
        #: Tokens of unusable batch answers per job sent again live (kept in its cost).
        self.earlier: dict[Job, TokenUsage] = {}

    #: Per-batch limits used when submitting (the API's; see :data:`MAX_BATCH_REQUESTS`).
    max_requests = MAX_BATCH_REQUESTS
    max_bytes = MAX_BATCH_BYTES

    async def run(self, mode: str, jobs: Mapping[Job, tuple[JudgeRequest, JudgeConfig]]
                  ) -> tuple[dict[Job, JudgeOutcome], list[Job]]:
        """Outcomes decided here, and the jobs left for live judging."""
        outcomes: dict[Job, JudgeOutcome] = {}
        open_entries: dict[str, BatchEntry] = {}
        for job in jobs:
            entry = self.book.holding(*job)
            if entry is not None:
                open_entries[entry.id] = entry
        live = [job for job in jobs if self.book.holding(*job) is None]
        if mode == "batch":
            live = await self._submit(live, jobs, outcomes, open_entries)
        retry: dict[Job, str] = {}
        statuses = await self._wait(open_entries, jobs, outcomes, retry)
        for entry in open_entries.values():
            status = statuses[entry.id]
            for chash in entry.hashes:
                if (entry.judge, chash) in jobs:
                    outcomes[(entry.judge, chash)] = JudgeOutcome(
                        entry.judge, "pending",
                        detail=f"in batch {entry.id} ({status.done}/{status.total} done)")
        for job, reason in sorted(retry.items()):
            if self.failures == "live":
                live.append(job)
            else:
                outcomes[job] = JudgeOutcome(job[0], "error", error="BatchRequestFailed",
                                             detail=reason)
        return outcomes, live

    async def _submit(self, candidates: list[Job],
                      jobs: Mapping[Job, tuple[JudgeRequest, JudgeConfig]],
                      outcomes: dict[Job, JudgeOutcome], open_entries: dict[str, BatchEntry]
                      ) -> list[Job]:
        live: list[Job] = []
        by_judge: dict[str, list[tuple[Job, Mapping[str, Any]]]] = {}
        for job in candidates:
            request, config = jobs[job]
            if config.family != "anthropic":  # no Message Batches there: judged live
                live.append(job)
                continue
            client = self.state.client(config)
            prompt = task_of(request).prompt(request, config)
            budget = self.state.budget
            held = worst_case_cost(config, prompt, batch=True) if budget.limited else 0.0
            if not budget.reserve(held):
                outcomes[job] = JudgeOutcome(config.name, "missing", detail=BUDGET_DETAIL)
                continue
            by_judge.setdefault(config.name, []).append((job, client.params(prompt)))
        for name, pairs in by_judge.items():
            config = jobs[pairs[0][0]][1]
            for group in split_batches(pairs, self.max_requests, self.max_bytes):
                await self._create(name, config, group, open_entries)
        return live

    async def _create(self, name: str, config: JudgeConfig,
                      pairs: list[tuple[Job, Mapping[str, Any]]],
                      open_entries: dict[str, BatchEntry]) -> None:
        """Submit ``pairs`` as one batch; a 413 splits them in halves and submits each.
        The submission is in the book before it is sent (see :attr:`BatchBook.submitting`)."""
        record = self.book.begin(name, config.model, [job[1] for job, _ in pairs])
        try:
            batch_id = await submit(self.state.client(config),
                                    [(job[1], params) for job, params in pairs],
                                    self.state.retry, self.state.sleep)
        except JudgeError as exc:
            if getattr(exc, "answered", False):  # refused with a status: nothing created
                self.book.settle(record, None)
            if not isinstance(exc, BatchTooLarge) or len(pairs) < 2:
                raise  # a connection lost mid-create keeps its record (warned next run)
            half = len(pairs) // 2
            await self._create(name, config, pairs[:half], open_entries)
            await self._create(name, config, pairs[half:], open_entries)
            return
        entry = BatchEntry(batch_id, name, config.model, [job[1] for job, _ in pairs])
        self.book.settle(record, entry)
        open_entries[batch_id] = entry

    async def _wait(self, open_entries: dict[str, BatchEntry],
                    jobs: Mapping[Job, tuple[JudgeRequest, JudgeConfig]],
                    outcomes: dict[Job, JudgeOutcome], retry: dict[Job, str]
                    ) -> dict[str, BatchStatus]:
        clock = asyncio.get_running_loop().time
        deadline = clock() + self.wait
        statuses: dict[str, BatchStatus] = {}
        while open_entries:
            for batch_id, entry in sorted(open_entries.items()):
                config = self._config(entry, jobs)
                statuses[batch_id] = await fetch_status(self.state.client(config), batch_id,
                                                        self.state.retry, self.state.sleep)
                if statuses[batch_id].ended:
                    await self._collect(entry, config, jobs, outcomes, retry)
                    del open_entries[batch_id]
                elif statuses[batch_id].past_expiry:  # never ends well: give it up
                    when = statuses[batch_id].expires_at
                    for chash in entry.hashes:
                        if (entry.judge, chash) in jobs:
                            retry[(entry.judge, chash)] = (
                                f"expired in batch {batch_id} (still in progress past its "
                                f"expires_at {when:%Y-%m-%dT%H:%M:%SZ})")
                    self.book.remove(entry)
                    del open_entries[batch_id]
            left = deadline - clock()
            if not open_entries or left <= 0:
                break
            if self.progress is not None:
                done = sum(statuses[i].done for i in open_entries)
                total = sum(statuses[i].total for i in open_entries)
                self.progress(f"[judge] {len(open_entries)} batch(es) open: {done}/{total} "
                              f"requests done; waiting up to {left:.0f} s more")
            await self.state.sleep(min(self.poll, left))
        return statuses

    @staticmethod
    def _config(entry: BatchEntry, jobs: Mapping[Job, tuple[JudgeRequest, JudgeConfig]]
                ) -> JudgeConfig:
        return next(cfg for (name, _), (_, cfg) in jobs.items() if name == entry.judge)

    async def _collect(self, entry: BatchEntry, config: JudgeConfig,
                       jobs: Mapping[Job, tuple[JudgeRequest, JudgeConfig]],
                       outcomes: dict[Job, JudgeOutcome], retry: dict[Job, str]) -> None:
        names: dict[int, str] = {}  # tool name per task (a prompt is built once per task)

        def tool(custom_id: str) -> str:
            job = jobs.get((entry.judge, custom_id))
            if job is None:
                return ""
            task = task_of(job[0])
            if id(task) not in names:
                names[id(task)] = task.prompt(job[0], config).tool_name
            return names[id(task)]

        results = await fetch_results(self.state.client(config), entry.id, tool,
                                      self.state.retry, self.state.sleep)
        seen = set()
        for result in results:
            job = (entry.judge, result.custom_id)
            seen.add(result.custom_id)
            if result.answer is not None:  # billed whether or not it is usable
                self.state.meter.count_call(config)
                self.state.meter.add_usage(config, result.answer.usage, batch=True)
            if job not in jobs:
                self.dropped += 1
                continue
            if result.answer is None:
                retry[job] = f"{result.kind} in batch {entry.id}: {result.detail}"
                continue
            request = jobs[job][0]
            problem = result.answer.problem
            if not problem:
                try:
                    rules, extra = task_of(request).parse(result.answer.tool_input, request)
                except ValueError as exc:
                    problem = str(exc)
                else:
                    verdict = Verdict(config.name, config.model, result.custom_id, rules,
                                      result.answer.usage, batch=True, extra=extra)
                    if self.state.cache is not None:
                        self.state.cache.put(verdict)
                    outcomes[job] = JudgeOutcome(config.name, "judged", verdict)
                    continue
            retry[job] = f"invalid answer in batch {entry.id}: {problem}"
            self.earlier[job] = self.earlier.get(job, TokenUsage()) + result.answer.usage
        for chash in entry.hashes:
            if chash not in seen and (entry.judge, chash) in jobs:
                retry[(entry.judge, chash)] = f"no result in batch {entry.id}"
        self.book.remove(entry)
