"""Judging many requests with several judges: cache, concurrency, backoff, spend.

Modes: ``off`` judges nothing; ``replay`` answers from the verdict cache only and never
builds a client (a miss leaves the request unjudged); ``live`` uses the cache and calls
the API for the misses; ``batch`` submits the misses of Anthropic judges as Message
Batches and collects them in a later pass (see :mod:`.batch`). With a batch book, live
passes also collect finished batches, and leave jobs held by open batches pending.
Requests whose content hash is equal for a judge (the same output of the same case from
two products, say) are judged once.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..errors import JudgeError
from ..heap import long_lived_heap
from .backoff import GaveUp, with_backoff
from .batch import BUDGET_DETAIL, BatchBook, BatchPass
from .cache import VerdictCache
from .client import (
    BudgetExceeded,
    ClientFactory,
    JudgeClient,
    ask_judge,
    shorten,
)
from .estimate import Budget
from .records import (
    JudgeConfig,
    JudgeOutcome,
    JudgeRequest,
    ModelSpend,
    RetryPolicy,
    SpendMeter,
    TokenUsage,
    Verdict,
)
from .request import cache_key, cached_problem

__all__ = [
    "JudgeMode",
    "JudgeRun",
    "RetryPolicy",
    "judge_all",
    "judge_all_sync",
    "rejudge_sample",
]

JudgeMode = Literal["off", "replay", "live", "batch"]
_MODES = ("off", "replay", "live", "batch")

@dataclass
class JudgeRun:
    """Everything one :func:`judge_all` call produced."""

    mode: JudgeMode
    judges: tuple[JudgeConfig, ...]
    #: The requests by key, in the order given.
    requests: dict[str, JudgeRequest] = field(default_factory=dict)
    #: key -> judge name -> outcome (empty in mode ``off``).
    outcomes: dict[str, dict[str, JudgeOutcome]] = field(default_factory=dict)
    cache_hits: int = 0
    #: HTTP calls, tokens and cost actually spent in this run.
    meter: SpendMeter = field(default_factory=SpendMeter)
    #: What the verdicts taken from the cache cost when they were made.
    cached: SpendMeter = field(default_factory=SpendMeter)
    #: Results of collected batches that matched no request of this run.
    batch_dropped: int = 0

    @property
    def spend(self) -> dict[str, ModelSpend]:
        """This run's spend per model."""
        return self.meter.by_model

    @property
    def cached_spend(self) -> dict[str, ModelSpend]:
        """The cached verdicts' spend per model."""
        return self.cached.by_model

    @property
    def calls(self) -> int:
        """HTTP requests sent (retries and invalid-answer retries included)."""
        return self.meter.calls

    @property
    def cost_usd(self) -> float:
        return self.meter.cost_usd

    def outcome(self, key: str, judge: str) -> JudgeOutcome | None:
        return self.outcomes.get(key, {}).get(judge)

    def count(self, status: str) -> int:
        """How many (request, judge) outcomes have this status."""
        return sum(o.status == status for per in self.outcomes.values() for o in per.values())

    def summary(self) -> dict[str, Any]:
        """Plain JSON for reports: counts, spend and cached spend per model."""
        return {
            "mode": self.mode,
            "judges": [
                {**j.settings(), "family": j.family, "price_in_per_mtok": j.price_in_per_mtok,
                 "price_out_per_mtok": j.price_out_per_mtok}
                for j in self.judges
            ],
            "requests": len(self.requests),
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "judged": self.count("judged"),
            "missing": self.count("missing"),
            "pending": self.count("pending"),
            "errors": self.count("error"),
            "cost_usd": round(self.cost_usd, 6),
            "spend": [s.to_json() for _, s in sorted(self.spend.items())],
            "cached_spend": [s.to_json() for _, s in sorted(self.cached_spend.items())],
        }


Sleep = Callable[[float], Awaitable[Any]]


class _Judging:
    """The state of one live or replay pass (clients, semaphore, meter)."""

    def __init__(
        self,
        cache: VerdictCache | None,
        client_factory: ClientFactory | None,
        concurrency: int,
        retry: RetryPolicy,
        sleep: Sleep,
        budget: Budget | None = None,
    ):
        self.budget = budget if budget is not None else Budget()
        self.cache = cache
        self.client_factory = client_factory
        #: HTTP calls in flight; and jobs past their queue (prompt built, in flight or
        #: answer being read), so that a freed slot is refilled at once.
        self.semaphore = asyncio.Semaphore(concurrency)
        self.ahead = asyncio.Semaphore(2 * concurrency)
        self.retry = retry
        self.sleep = sleep
        self.meter = SpendMeter()
        self.clients: dict[str, JudgeClient] = {}

    def client(self, config: JudgeConfig) -> JudgeClient:
        if config.name not in self.clients:
            if self.client_factory is None:
                raise JudgeError("live judging needs a client factory")
            self.clients[config.name] = self.client_factory(config)
        return self.clients[config.name]

    async def judge(self, request: JudgeRequest, config: JudgeConfig, chash: str,
                    earlier: TokenUsage | None = None) -> JudgeOutcome:
        """One (content, judge) job with our backoff; the verdict is cached on success.
        ``earlier``: tokens of unusable batch answers to it, kept in the verdict's cost."""
        client = self.client(config)

        async def ask() -> Verdict:  # the slot is not held while backing off
            return await ask_judge(client, request, config, self.meter, self.budget,
                                   slot=self.semaphore)

        rng = random.Random(f"{self.retry.seed}:{config.name}:{chash}")
        try:
            async with self.ahead:  # prompts ready for the next free slots, no more
                verdict = await with_backoff(ask, self.retry, rng, self.sleep)
        except BudgetExceeded:
            return JudgeOutcome(config.name, "missing", detail=BUDGET_DETAIL)
        except JudgeError as exc:
            return _error_outcome(config, exc, client)
        except GaveUp as exc:
            return _error_outcome(config, exc.error, client, exc.attempts)
        if earlier is not None:
            verdict = replace(verdict, batch_usage=earlier)
        if self.cache is not None:
            self.cache.put(verdict)
        return JudgeOutcome(config.name, "judged", verdict)

    async def close(self) -> None:
        for client in self.clients.values():
            await client.aclose()


def _error_outcome(
    config: JudgeConfig, exc: BaseException, client: JudgeClient, attempts: int = 1
) -> JudgeOutcome:
    text = shorten(client.redact(str(exc)))
    if attempts > 1:
        text = f"after {attempts} attempts: {text}"
    return JudgeOutcome(config.name, "error", error=type(exc).__name__, detail=text)


def _add_spend(into: SpendMeter, config: JudgeConfig, verdict: Verdict) -> None:
    into.add_usage(config, verdict.usage, batch=verdict.batch)
    if verdict.batch_usage != TokenUsage():
        into.add_usage(config, verdict.batch_usage, batch=True)


def _check_inputs(requests: Sequence[JudgeRequest], judges: Sequence[JudgeConfig]) -> None:
    names = [j.name for j in judges]
    if len(set(names)) != len(names):
        raise JudgeError(f"judge names must be unique, got {names}")
    counts = Counter(r.key for r in requests)
    duplicates = sorted(k for k, n in counts.items() if n > 1)
    if duplicates:
        raise JudgeError(f"duplicate judge request keys: {duplicates[:5]}")


async def judge_all(
    requests: Sequence[JudgeRequest],
    judges: Sequence[JudgeConfig],
    *,
    mode: JudgeMode,
    cache: VerdictCache | None,
    client_factory: ClientFactory | None = None,
    concurrency: int = 16,
    retry: RetryPolicy | None = None,
    sleep: Sleep = asyncio.sleep,
    budget: Budget | None = None,
    book: BatchBook | None = None,
    batch_wait: float = 0.0,
    batch_poll: float = 5.0,
    batch_failures: str = "live",
    progress: Callable[[str], None] | None = None,
) -> JudgeRun:
    """Judge every request with every judge; see the module docstring for the modes.

    ``concurrency`` bounds the HTTP calls in flight across all judges (a call waiting
    out its backoff does not hold a slot). A request that still fails after the retry
    policy gives an ``error`` outcome naming the error class; it never gets a score.
    ``budget`` is checked before every call and batch submission (a refused request
    stays ``missing``). ``book`` lists open batches (required in mode ``batch``);
    ``batch_wait`` seconds are spent polling them (a ``progress`` line each
    ``batch_poll`` seconds); a request that failed in its batch is judged live
    (``batch_failures="live"``) or reported as an error (``"report"``).
    """
    if mode not in _MODES:
        raise JudgeError(f"unknown judge mode {mode!r}; expected one of {', '.join(_MODES)}")
    if concurrency < 1:
        raise JudgeError(f"judge concurrency must be at least 1, got {concurrency}")
    _check_inputs(requests, judges)
    run = JudgeRun(mode, tuple(judges), {r.key: r for r in requests})
    if mode == "off":
        return run

    if mode == "batch" and book is None:
        book = BatchBook(None)
    state = _Judging(cache, client_factory, concurrency, retry or RetryPolicy(), sleep, budget)
    jobs: dict[tuple[str, str], list[str]] = {}  # (judge, hash) -> request keys
    firsts: dict[tuple[str, str], tuple[JudgeRequest, JudgeConfig]] = {}
    for request in requests:
        per = run.outcomes.setdefault(request.key, {})
        for config in judges:
            chash = cache_key(request, config)
            cached = cache.get(chash) if cache is not None else None
            problem = cached_problem(cached, request) if cached is not None else ""
            if problem and cache is not None:  # a tampered line: a miss, with a warning
                cache.discard(chash, problem)
                cached = None
            if cached is not None:
                per[config.name] = JudgeOutcome(config.name, "cached", cached)
                run.cache_hits += 1
                _add_spend(run.cached, config, cached)
            elif mode == "replay":
                per[config.name] = JudgeOutcome(
                    config.name, "missing", detail="no cached verdict (replay mode)"
                )
            else:
                jobs.setdefault((config.name, chash), []).append(request.key)
                firsts.setdefault((config.name, chash), (request, config))

    decided: dict[tuple[str, str], JudgeOutcome] = {}
    try:
        for config in judges:  # build clients first: a missing key fails before any call
            if any(name == config.name for name, _ in firsts):
                state.client(config)
        live, earlier = list(firsts), {}
        if book is not None and firsts:
            batches = BatchPass(state, book, wait=batch_wait, poll=batch_poll,
                                progress=progress, failures=batch_failures)
            decided, live = await batches.run(mode, firsts)
            run.batch_dropped, earlier = batches.dropped, batches.earlier
        with long_lived_heap():  # the run's requests and outcomes stay out of full passes
            results = await asyncio.gather(*(state.judge(*firsts[job], job[1],
                                                         earlier.get(job)) for job in live))
        decided.update(zip(live, results, strict=True))
    finally:
        await state.close()
    for job, outcome in decided.items():
        for key in jobs[job]:
            run.outcomes[key][job[0]] = outcome
    run.meter = state.meter
    return run


def judge_all_sync(
    requests: Sequence[JudgeRequest], judges: Sequence[JudgeConfig], **options: Any
) -> JudgeRun:
    """:func:`judge_all` for callers without an event loop (pytest hooks)."""
    return asyncio.run(judge_all(requests, judges, **options))


async def rejudge_sample(
    requests: Sequence[JudgeRequest],
    judge: JudgeConfig,
    *,
    cache: VerdictCache,
    client_factory: ClientFactory,
    n: int,
    seed: int = 0,
    concurrency: int = 16,
    retry: RetryPolicy | None = None,
) -> tuple[list[tuple[Verdict, Verdict]], JudgeRun]:
    """Judge again, bypassing the cache, ``n`` requests that have a cached verdict.

    The sample is drawn with ``random.Random(seed)`` from the distinct cached contents
    in key order. Returns the (cached, fresh) verdict pairs where the fresh call
    succeeded, and the fresh run (for its spend). The cache is not modified.
    """
    candidates: dict[str, JudgeRequest] = {}
    for request in sorted(requests, key=lambda r: r.key):
        chash = cache_key(request, judge)
        if chash in cache and chash not in candidates:
            candidates[chash] = request
    chosen = sorted(random.Random(seed).sample(sorted(candidates), min(n, len(candidates))))
    sample = [candidates[h] for h in chosen]
    fresh = await judge_all(
        sample, [judge], mode="live", cache=None, client_factory=client_factory,
        concurrency=concurrency, retry=retry,
    )
    pairs: list[tuple[Verdict, Verdict]] = []
    for chash, request in zip(chosen, sample, strict=True):
        outcome = fresh.outcome(request.key, judge.name)
        old = cache.get(chash)
        if outcome is not None and outcome.verdict is not None and old is not None:
            pairs.append((old, outcome.verdict))
    return pairs, fresh
