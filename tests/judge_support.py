"""Helpers shared by the judge tests: requests, judges and a run against the server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

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

#: ``[judge]`` with JUDGE_A and JUDGE_B, as a suite or judge file holds it; quick retries.
JUDGES_TOML = """
[judge]
concurrency = 4
timeout = 5.0
max_attempts = 2
base_delay = 0.01
batch_poll = 0.2

[[judge.judges]]
name = "judge-a"
model = "model-a"
price_in_per_mtok = 3.0
price_out_per_mtok = 15.0

[[judge.judges]]
name = "judge-b"
model = "model-b"
price_in_per_mtok = 1.0
price_out_per_mtok = 5.0
"""

JA_SUITE = Path(__file__).parents[1] / "cases" / "ja-dictation"


def write_ja_project(root: Path, judges: str = JUDGES_TOML) -> list[dict[str, Any]]:
    """A project in ``root``: the first three ja-dictation cases as suite ``cases/ja``
    with ``judges``, and product ``p`` whose outputs drop the final 。 (so that none is a
    known answer and every item needs the judges). Returns the cases; the caller writes
    the ini file (``dictbench_suites = cases/ja``)."""
    lines = (JA_SUITE / "cases.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    cases = [json.loads(line) for line in lines]
    suite = root / "cases" / "ja"
    suite.mkdir(parents=True)
    (suite / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    manifest = (JA_SUITE / "suite.toml").read_text(encoding="utf-8").split("[[files]]")[0]
    (suite / "suite.toml").write_text(manifest + judges, encoding="utf-8")
    products = root / "products"
    (products / "p").mkdir(parents=True)
    (products / "p.toml").write_text('name = "p"\nversion = "1"\nadapter = "cache"\n')
    outputs = [{"case_id": c["id"], "text": c["expected"][0].rstrip("。")} for c in cases]
    (products / "p" / "ja-dictation.jsonl").write_text(
        "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in outputs), encoding="utf-8")
    return cases


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


def run_judged(project: pytest.Pytester, server: Any, key: str, *args: str
               ) -> pytest.RunResult:
    """``pytest --product=p ARGS`` in a subprocess whose judges talk to the loopback
    ``server`` with the API key ``key``."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", key)
        env.setenv("ANTHROPIC_BASE_URL", server.url)
        return project.runpytest_subprocess("--product=p", *args)
