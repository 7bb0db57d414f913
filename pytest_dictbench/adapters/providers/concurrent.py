"""Captures of a cloud product made ahead, ``concurrency`` at a time, with the cache lines
and outputs exactly as a run at concurrency 1 would give them.

The plugin tells each provider adapter the items it will ask for, in order
(:meth:`ProviderAdapter.plan`). When an item's output is not cached, the adapter starts
the provider requests of that item and of the next uncached planned items, up to
``concurrency`` in flight, on a thread pool. Each answer waits for its own item: the
live adapter still builds, writes and returns one item at a time in plan order, so the
cache file's lines come in the same order with the same content; only the timing fields
differ, as between any two runs. Each capture's latency is measured on its own thread.

When the run stops before the items of captures made ahead (``-x``, ``--maxfail``, a
crash of the items before them), those captures were sent and paid for: :meth:`finish`,
called at the end of the session, writes their lines to the cache in plan order, as
their items would have, so the next run does not send them again.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

from ...errors import DictbenchError
from ...model import Case
from ..live import CaptureRequest, LiveAdapter

__all__ = ["DEFAULT_CONCURRENCY", "Ahead", "ProviderAdapter", "timed"]

#: Requests of one product in flight at once (``concurrency``).
DEFAULT_CONCURRENCY = 4

_Key = tuple[str, Path | None]


class Ahead:
    """The captures a transcriber makes ahead of their items (one pool per product)."""

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency
        self._pool: ThreadPoolExecutor | None = None
        self._futures: dict[_Key, deque[Future[Mapping[str, Any]]]] = {}
        self._lock = threading.Lock()

    def pending(self) -> int:
        with self._lock:
            return sum(len(q) for q in self._futures.values())

    def submit(self, request: CaptureRequest, capture: Any) -> None:
        """Start ``capture(request)`` now; the request's own item collects it."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="dictbench")
        future = self._pool.submit(timed, capture, request)
        with self._lock:
            self._futures.setdefault(_key(request), deque()).append(future)

    def take(self, request: CaptureRequest) -> Future[Mapping[str, Any]] | None:
        """The capture started for ``request`` (identical requests are interchangeable:
        repetitions of a case take theirs in order), or ``None``."""
        with self._lock:
            queue = self._futures.get(_key(request))
            return queue.popleft() if queue else None

    def peek(self, request: CaptureRequest) -> Future[Mapping[str, Any]] | None:
        """The capture :meth:`take` would return next for ``request``, left in place."""
        with self._lock:
            queue = self._futures.get(_key(request))
            return queue[0] if queue else None

    def close(self, wait: bool) -> None:
        """Cancel the captures not started yet and release the threads."""
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)


def _key(request: CaptureRequest) -> _Key:
    return request.case_id, request.audio


def timed(capture: Any, request: CaptureRequest) -> Mapping[str, Any]:
    """``capture(request)`` with its own latency (``latency_s``) when it completed."""
    start = time.perf_counter()
    answer = capture(request)
    return {**answer, "latency_s": time.perf_counter() - start} \
        if answer.get("status", "complete") == "complete" else answer


class ProviderAdapter(LiveAdapter):
    """A live adapter that captures planned items ahead (see module doc)."""

    def __init__(self, *args: Any, concurrency: int, key_env: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.concurrency = concurrency
        #: The variable naming the key (``api_key_env``), for :meth:`missing_key`.
        self.key_env = key_env
        self._plan: list[tuple[Case, int]] = []
        self._index: dict[tuple[str, int], int] = {}
        self._started: set[tuple[str, int]] = set()
        self._finishing = False

    def plan(self, items: Sequence[tuple[Case, int]]) -> None:
        """The (case, repetition) pairs this adapter will be asked for, in order."""
        self._plan = list(items)
        self._index = {(c.id, r): i for i, (c, r) in enumerate(self._plan)}

    def get(self, case: Case, repetition: int) -> Any:
        if self.concurrency > 1 and not self._finishing \
                and (case.id, repetition) in self._index:
            self._start_ahead(self._index[case.id, repetition])
        return super().get(case, repetition)

    def spend_line(self) -> str | None:
        """After a run that captured: the captures made, what the estimate would have
        said of them, and what they were billed (PV17); None when nothing was captured."""
        from .estimate import estimated_cost  # the estimate's own rule, imported late

        made = [o for o in self._captured.values()  # this run's captures, none cached
                if isinstance(o.meta.get("provider"), dict)]
        if not made:
            return None
        price = getattr(self._transcriber, "price", None)
        options = getattr(self._transcriber, "options", {})
        estimate: Decimal | None = Decimal(0) if price is not None else None
        billed: Decimal | None = Decimal(0)
        for output in made:
            seconds = output.meta.get("audio_duration_s")
            cost = output.meta["provider"].get("cost_usd")
            billed = None if billed is None or cost is None else billed + Decimal(cost)
            if estimate is not None and isinstance(seconds, (int, float)):
                guess, _ = estimated_cost(price, self.product.adapter, seconds, options)
                estimate = None if guess is None else estimate + guess
            else:
                estimate = None
        retries = sum(len(o.meta["provider"].get("retry_waits_s", ())) for o in made)
        holds = sum(len(o.meta["provider"].get("rate_limit_holds_s", ())) for o in made)
        waits = f"; {retries} retries, {holds} held for a rate limit" if retries or holds \
            else ""
        return (f"{self.product.name}: {len(made)} captured; estimated {_usd(estimate)}, "
                f"billed {_usd(billed)}{waits}")

    def finish(self, wait: bool = True) -> int:
        """Cache the captures made ahead whose items never ran (see module doc); the
        number written. ``wait``: also wait for those still in flight (each is bounded
        by its ``timeout_s``); otherwise (an interrupted run) only the finished ones are
        kept. Captures not started yet are cancelled."""
        ahead: Ahead | None = getattr(self._transcriber, "ahead", None)
        if ahead is None or not self._started:
            return 0
        self._finishing = True
        written = 0
        for case, repetition in self._plan:
            key = (case.id, repetition)
            if key not in self._started or key in self._captured:
                continue
            request = CaptureRequest(case.id, (self.suite.root / case.data["audio"]).resolve(),
                                     "")
            future = ahead.peek(request)
            if future is None or future.cancelled() or not (wait or future.done()):
                continue
            try:
                self.get(case, repetition)
            except DictbenchError:
                continue  # its item would have errored: nothing to keep
            written += 1
        ahead.close(wait=False)
        return written

    def _start_ahead(self, index: int) -> None:
        """Start the uncached planned items from ``index`` on, up to ``concurrency``."""
        transcriber: Any = None  # made at the first uncached item: a cached run needs no key
        for case, repetition in self._plan[index:]:
            if transcriber is not None and transcriber.ahead.pending() >= self.concurrency:
                return
            key = (case.id, repetition)
            if key in self._started or key in self._captured:
                continue
            cached = None if self.options.recapture else self._cached.get(key)
            if (cached is not None and not cached.is_error) \
                    or not isinstance(case.data.get("audio"), str):
                continue  # served from the cache, or nothing to send
            if transcriber is None:
                transcriber = self._ready()
                if transcriber.ahead.pending() >= self.concurrency:
                    return
            ahead: Ahead = transcriber.ahead
            self._started.add(key)
            locale = str(case.data.get("locale") or self.suite.locale)
            audio = (self.suite.root / case.data["audio"]).resolve()
            ahead.submit(CaptureRequest(case.id, audio, locale,
                                        context=str(case.data.get("context", ""))),
                         transcriber.capture)  # type: ignore[attr-defined]


def _usd(value: Decimal | None) -> str:
    return "unknown" if value is None else f"${value:.6f}"
