"""``--judge-estimate``: what judging this selection would cost, with nothing sent.

Registered by the plugin as its own pytest plugin when the option is given. After
collection it builds the judge requests of every selected item exactly as a run would
(same prompts, same cache keys), drops those with a cached verdict or held by an open
batch, and estimates the rest per judge (see :mod:`.judge.estimate`); then it deselects
every item, so nothing is captured, judged or scored, and no report is written.

Only outputs that need no capture are estimated: items of live products are counted as
not estimated (their outputs do not exist before they run). ``--capture-estimate``
counts the judge requests with this same plugin (:meth:`JudgeEstimate.count`).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import pytest

__all__ = ["JudgeEstimate"]


class JudgeEstimate:
    """The estimate plugin; ``how`` is ``local`` or ``api`` (token counting endpoint)."""

    def __init__(self, state: Any, how: str) -> None:
        self.state = state  # the DictbenchSession
        self.how = how
        self.estimates: dict[str, Any] = {}
        self.budgets: dict[str, float] = {}
        self.not_estimated = 0
        self.in_batches = 0
        self.cached = 0
        self.counted = False

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        self.count(items)
        config.hook.pytest_deselected(items=list(items))
        items[:] = []

    def needed(self) -> bool:
        """Whether any selected item has judged rules (so there is an estimate to show)."""
        return bool(self.estimates or self.cached or self.in_batches or self.not_estimated)

    def count(self, items: Sequence[pytest.Item]) -> None:
        """Estimate the judge requests of ``items`` (once: a second call does nothing)."""
        if self.counted:
            return
        self.counted = True
        from ..judge.batch import BOOK_FILE, BatchBook
        from ..judge.cache import VerdictCache
        from ..judge.estimate import Estimate
        from ..judge.request import cache_key, task_of
        from .judge import VERDICTS_FILE, has_judged_rules

        folder = self.state.judging.folder
        cache = VerdictCache(folder / VERDICTS_FILE)
        book = BatchBook.load(folder / BOOK_FILE)
        todo: list[tuple[Any, Any, Any, int]] = []  # (settings, config, prompt, rules)
        seen: set[tuple[str, str]] = set()
        groups: dict[tuple[str, str], Any] = {}
        for item in items:
            if hasattr(item, "suite"):
                groups.setdefault((item.suite.id, item.product.name), item)
        for first in groups.values():
            settings = self.state.judge_settings.get(first.suite.id)
            method = self.state.method(first.suite)
            if settings is None or not has_judged_rules(method):
                continue
            if settings.budget_usd is not None:
                self.budgets[first.suite.id] = settings.budget_usd
            if first.product.adapter != "cache":
                self.not_estimated += sum(
                    1 for i in items if getattr(i, "suite", None) is first.suite
                    and i.product.name == first.product.name)
                continue
            for _, request in self.state.judging.requests(first, method, items):
                for judge in settings.judges:
                    chash = cache_key(request, judge)
                    if chash in cache:
                        self.cached += 1
                    elif book.holding(judge.name, chash) is not None:
                        self.in_batches += 1
                    elif (judge.name, chash) not in seen:
                        seen.add((judge.name, chash))
                        prompt = task_of(request).prompt(request, judge)
                        todo.append((settings, judge, prompt, len(request.rules)))
        cache.close()
        if self.how == "api":
            import asyncio  # here: a run that counts nothing starts without it

            counted = asyncio.run(self._count(todo))
        else:
            counted = [None] * len(todo)
        for (_, judge, prompt, rules), tokens in zip(todo, counted, strict=True):
            estimate = self.estimates.setdefault(judge.name, Estimate(judge.name, judge.model))
            estimate.add(judge, prompt, rules, tokens)

    async def _count(self, todo: Sequence[tuple[Any, Any, Any, int]]) -> list[int | None]:
        """Input tokens by the API's own count (Anthropic judges; others stay local)."""
        import asyncio

        from ..judge.client import JudgeClientFactory

        clients: dict[str, Any] = {}
        semaphore = asyncio.Semaphore(8)

        async def one(settings: Any, judge: Any, prompt: Any) -> int | None:
            if judge.family != "anthropic":
                return None
            if judge.name not in clients:
                clients[judge.name] = JudgeClientFactory(
                    base_url=settings.base_url, timeout=settings.timeout)(judge)
            async with semaphore:
                return await clients[judge.name].count_tokens(prompt)

        try:
            return list(await asyncio.gather(*(one(s, j, p) for s, j, p, _ in todo)))
        finally:
            for client in clients.values():
                await client.aclose()

    def lines(self) -> list[str]:
        """The printed estimate."""
        source = ("input tokens counted by the API" if self.how == "api"
                  else "input tokens estimated locally")
        out = [f"judge estimate ({source}; nothing was sent, no item ran)"]
        live = batch = Decimal(0)
        unpriced = []
        for name, e in sorted(self.estimates.items()):
            if e.cost_live_usd is None or e.cost_batch_usd is None:
                unpriced.append(name)
                cost = "live unknown (no price), batch unknown (no price)"
            else:
                live += Decimal(str(e.cost_live_usd))
                batch += Decimal(str(e.cost_batch_usd))
                cost = f"live ${e.cost_live_usd:.4f}, batch ${e.cost_batch_usd:.4f}"
            out.append(f"  {name} ({e.model}): {e.requests} uncached requests, "
                       f"{e.input_tokens} input tokens, {e.output_tokens} output tokens; "
                       + cost)
        requests = sum(e.requests for e in self.estimates.values())
        partial = (f" (incomplete: no price for {', '.join(unpriced)})" if unpriced else "")
        out.append(f"  total: {requests} uncached requests; live ${live:.4f}, "
                   f"batch ${batch:.4f}{partial}; {self.cached} cached, {self.in_batches} "
                   f"in open batches, {self.not_estimated} items of live products not "
                   "estimated")
        for suite, limit in sorted(self.budgets.items()):
            verdict = "within" if live <= limit else "OVER"
            out.append(f"  {suite}: budget_usd {limit} - the live estimate is {verdict} it")
        return out

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminalreporter.write_sep("=", "dictbench judge estimate")
        for line in self.lines():
            terminalreporter.write_line(line)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            session.exitstatus = pytest.ExitCode.OK
