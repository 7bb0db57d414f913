"""Helpers shared by the judge tests: requests, judges and a run against the server."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pytest_dictbench.judge import (
    AnthropicClientFactory,
    JudgeConfig,
    JudgeRequest,
    JudgeRun,
    RetryPolicy,
    VerdictCache,
    judge_all,
)

#: A fake key with a recognisable shape, scanned for in every file and message.
API_KEY = "sk-ant-test-7f3c9a1e5b2d4c6e8f0a1b3c5d7e9f11-SECRET"

RULES = (("A1", "content words kept"), ("A6", "strength of conjecture kept"),
         ("B2", "self-corrections resolved"))

JUDGE_A = JudgeConfig("judge-a", "model-a", price_in_per_mtok=3.0, price_out_per_mtok=15.0)
JUDGE_B = JudgeConfig("judge-b", "model-b", price_in_per_mtok=1.0, price_out_per_mtok=5.0)

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.05, seed=7)


SCRIPT = "I think the cause is the cache"


def make_case(case_id: str = "c1", script: str = SCRIPT) -> dict[str, Any]:
    return {
        "id": case_id,
        "canary": "DICTBENCH-CANARY judge-tests",
        "script": script,
        "expected": [script[0].upper() + script[1:] + "."],
        "genre": "chat",
        "short": True,
    }


def make_request(
    case_id: str = "c1",
    output: str = "I think the cause is the cache.",
    *,
    product: str = "p1",
    repetition: int = 1,
    rules: Sequence[tuple[str, str]] = RULES,
    suite: str = "s",
    rubric_version: str = "r1",
    script: str = SCRIPT,
) -> JudgeRequest:
    return JudgeRequest(
        suite=suite,
        product=product,
        repetition=repetition,
        case=make_case(case_id, script),
        output_text=output,
        rules=tuple(rules),
        auto_results={"A1": {"score": 2, "evidence": "all must-words present"}},
        rubric_version=rubric_version,
    )


def run_judges(
    requests: Sequence[JudgeRequest],
    url: str,
    *,
    judges: Sequence[JudgeConfig] = (JUDGE_A, JUDGE_B),
    mode: str = "live",
    cache: VerdictCache | None = None,
    concurrency: int = 4,
    retry: RetryPolicy = FAST_RETRY,
    timeout: float = 5.0,
    factory: Any = None,
) -> JudgeRun:
    """``judge_all`` against the loopback server with the test key."""
    factory = factory or AnthropicClientFactory(api_key=API_KEY, base_url=url, timeout=timeout)
    return asyncio.run(
        judge_all(
            list(requests), list(judges), mode=mode,  # type: ignore[arg-type]
            cache=cache if cache is not None else VerdictCache(None),
            client_factory=factory, concurrency=concurrency, retry=retry,
        )
    )
