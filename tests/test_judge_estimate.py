"""Cost before spending: the local token estimate, the API count, prompt-cache prices,
the estimate against what the server then bills, and the budget stop."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from judge_server import MessagesServer, PromptCache, count_tokens, counted_twos
from judge_support import API_KEY, FAST_RETRY, JUDGE_A, make_request

from pytest_dictbench.judge import (
    Budget,
    Estimate,
    JudgeClientFactory,
    JudgeConfig,
    TokenUsage,
    VerdictCache,
    judge_all,
)
from pytest_dictbench.judge.batch import BUDGET_DETAIL
from pytest_dictbench.judge.estimate import (
    TOOL_OVERHEAD,
    SharedBudget,
    estimate_output,
    estimate_prompt,
    estimate_text,
    worst_case_cost,
)
from pytest_dictbench.judge.request import RubricTask, task_of
from pytest_dictbench.judge.task import anthropic_params

RUBRIC = RubricTask((("A1", "content words kept"), ("A6", "strength of conjecture kept"),
                     ("B2", "self-corrections resolved"), ("C1", "paragraphs as spoken")))
REQUESTS = [
    make_request(f"c{i}", f"I think the cause is the cache, case {i}.", script=f"say {i}")
    for i in range(6)
]
REQUESTS = [replace(r, task=RUBRIC) for r in REQUESTS]


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer() as srv:
        srv.responder = counted_twos(PromptCache())
        yield srv


def test_local_estimate_by_hand() -> None:
    assert estimate_text("") == 0
    assert estimate_text("abcd") == 1 and estimate_text("abcde") == 2
    assert estimate_text("日本語") == 3
    assert estimate_text("ok 日本") == 1 + 2  # 3 ASCII chars -> 1, 2 others -> 2
    prompt = task_of(REQUESTS[0]).prompt(REQUESTS[0], JUDGE_A)
    prefix, rest = estimate_prompt(prompt)
    assert rest == estimate_text(prompt.user)
    assert prefix > TOOL_OVERHEAD
    assert estimate_output(prompt, 3) == 20 + 30 * 3


def test_costs_by_hand() -> None:
    judge = JudgeConfig("j", "m", price_in_per_mtok=3.0, price_out_per_mtok=15.0)
    # 1,000 input, 200 output, 2,000 cache writes (3.75/M), 10,000 cache reads (0.30/M)
    usage = TokenUsage(1000, 200, 2000, 10000)
    assert judge.cost_usd(usage) == pytest.approx(0.003 + 0.003 + 0.0075 + 0.003)
    assert judge.cost_usd(usage, batch=True) == pytest.approx(0.0165 / 2)
    own = JudgeConfig("j", "m", price_in_per_mtok=3.0, price_out_per_mtok=15.0,
                      price_cache_write_per_mtok=6.0,
                      price_cache_read_per_mtok=1.0, batch_discount=0.4)
    assert own.cost_usd(TokenUsage(0, 0, 1_000_000, 1_000_000)) == pytest.approx(7.0)
    assert own.cost_usd(TokenUsage(1_000_000), batch=True) == pytest.approx(1.2)


def test_estimate_sums_by_hand() -> None:
    judge = JudgeConfig("j", "m", price_in_per_mtok=3.0, price_out_per_mtok=15.0)
    prompt = task_of(REQUESTS[0]).prompt(REQUESTS[0], judge)
    prefix, rest = estimate_prompt(prompt)
    estimate = Estimate("j", "m")
    estimate.add(judge, prompt, 3)
    estimate.add(judge, prompt, 3)
    out = 110
    live = (2 * rest * 3.0 + prefix * 3.75 + prefix * 0.3 + 2 * out * 15.0) / 1e6
    batch = (2 * (prefix + rest) * 3.0 + 2 * out * 15.0) / 1e6 / 2
    assert estimate.requests == 2 and estimate.output_tokens == 2 * out
    assert estimate.cost_live_usd == pytest.approx(live)
    assert estimate.cost_batch_usd == pytest.approx(batch)


def test_estimate_against_server_tokens(server: MessagesServer) -> None:
    """The API count equals what the server then bills; the local estimate is near it."""
    factory = JudgeClientFactory(api_key=API_KEY, base_url=server.url, timeout=5.0)
    client = factory(JUDGE_A)
    prompts = [task_of(r).prompt(r, JUDGE_A) for r in REQUESTS]

    async def count() -> list[int]:
        try:
            return [await client.count_tokens(p) for p in prompts]  # type: ignore[attr-defined]
        finally:
            await client.aclose()

    counted = asyncio.run(count())
    assert [r.path for r in server.requests] == ["/v1/messages/count_tokens"] * 6
    assert counted == [count_tokens(anthropic_params(p)) for p in prompts]
    local = [sum(estimate_prompt(p)) for p in prompts]
    run = asyncio.run(judge_all(REQUESTS, [JUDGE_A], mode="live", cache=VerdictCache(None),
                                client_factory=factory, retry=FAST_RETRY, concurrency=1))
    spend = run.spend["model-a"]
    billed = spend.input_tokens + spend.cache_write_tokens + spend.cache_read_tokens
    assert billed == sum(counted)
    assert abs(sum(local) - billed) / billed < 0.25
    # one prefix written, five read: the cacheable part is the same in every request
    prefix = spend.cache_write_tokens
    assert prefix > 0 and spend.cache_read_tokens == 5 * prefix


def test_budget_stops_before_exceeding(server: MessagesServer) -> None:
    judge = JudgeConfig("j", "model-a", price_in_per_mtok=3.0, price_out_per_mtok=15.0,
                        max_tokens=200)
    prompts = [task_of(r).prompt(r, judge) for r in REQUESTS]
    worst = worst_case_cost(judge, prompts[0])
    limit = 2.2 * worst
    budget = Budget(limit)
    factory = JudgeClientFactory(api_key=API_KEY, base_url=server.url, timeout=5.0)
    run = asyncio.run(judge_all(REQUESTS, [judge], mode="live", cache=VerdictCache(None),
                                client_factory=factory, retry=FAST_RETRY, concurrency=1,
                                budget=budget))
    judged = run.count("judged")
    assert 2 <= judged < 6 and run.count("missing") == 6 - judged
    assert len(server.requests) == judged
    assert run.cost_usd <= limit and budget.spent == pytest.approx(run.cost_usd)
    assert budget.reserved == pytest.approx(0.0, abs=1e-12)
    left = [o for per in run.outcomes.values() for o in per.values() if o.status == "missing"]
    assert all(o.detail == BUDGET_DETAIL for o in left)
    # each refused request would have overrun: spent + its worst case > limit
    assert budget.spent + min(worst_case_cost(judge, p) for p in prompts) > limit


def test_zero_budget_sends_nothing(server: MessagesServer) -> None:
    factory = JudgeClientFactory(api_key=API_KEY, base_url=server.url, timeout=5.0)
    run = asyncio.run(judge_all(REQUESTS, [JUDGE_A], mode="batch", cache=VerdictCache(None),
                                client_factory=factory, retry=FAST_RETRY, budget=Budget(0.0)))
    assert run.count("missing") == 6 and server.requests == []


def _spend_from(ledger: str, attempts: int, amount: float, out: Any) -> None:
    """One process of the shared-budget test: reserve ``attempts`` times, settle each at
    the reserved amount, and report how many fitted."""
    from pathlib import Path

    budget = SharedBudget(3.0, ledger=Path(ledger), key="suite")
    fitted = 0
    for _ in range(attempts):
        if budget.reserve(amount):
            fitted += 1
            budget.settle(amount, amount)
    out.put(fitted)


def test_a_shared_budget_holds_across_processes(tmp_path: Path) -> None:
    """Three real processes share one ledger: 30 reservations of 0.25 against 3.0 fit 12
    times in all, however the processes interleave."""
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    ledger = str(tmp_path / "budget.json")
    workers = [context.Process(target=_spend_from, args=(ledger, 10, 0.25, out))
               for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    assert sum(out.get(timeout=5) for _ in workers) == 12
    totals = json.loads((tmp_path / "budget.json").read_text())
    # exact decimals, kept as text in the ledger
    assert {k: float(v) for k, v in totals["suite"].items()} == {"reserved": 0.0, "spent": 3.0}
    # another key (suite) has its own account
    other = SharedBudget(3.0, ledger=tmp_path / "budget.json", key="other")
    assert other.reserve(3.0) and not other.reserve(0.01)
