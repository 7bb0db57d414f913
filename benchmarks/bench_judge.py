"""Throughput of the judge runner against a loopback server that answers after a delay.

Starts ``tests/judge_server.py`` in a subprocess (so the server's threads do not share
this process's GIL), judges ``--items`` distinct outputs with two judges at
``--concurrency`` through the real anthropic SDK, and prints the wall time, the ideal
time (items x 2 x delay / concurrency), their ratio (target <= 1.3), then re-runs with
the now warm verdict cache and prints its request count (must be 0).

Run: ``python benchmarks/bench_judge.py [--items 500] [--concurrency 16] [--delay 0.2]``
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_dictbench.judge import (
    AnthropicClientFactory,
    JudgeConfig,
    JudgeRequest,
    JudgeRun,
    VerdictCache,
    judge_all,
)

ROOT = Path(__file__).resolve().parent.parent
JUDGES = (
    JudgeConfig("judge-a", "bench-model-a", price_in_per_mtok=3.0, price_out_per_mtok=15.0),
    JudgeConfig("judge-b", "bench-model-b", price_in_per_mtok=1.0, price_out_per_mtok=5.0),
)
RULES = (("A1", "content words kept"), ("A6", "conjecture kept"), ("B2", "corrections"))


def make_requests(items: int) -> list[JudgeRequest]:
    """``items`` distinct outputs of one case (distinct contents: no dedup help)."""
    case = {"id": "bench", "script": "let us meet on Friday at ten", "genre": "chat",
            "expected": ["Let's meet on Friday at 10."], "short": True}
    return [
        JudgeRequest("bench", f"p{i % 5}", i // 5 + 1, case, f"Let's meet on Friday at 10. #{i}",
                     RULES, {}, "bench-1")
        for i in range(items)
    ]


def start_server(delay: float) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "judge_server.py"), "--delay", str(delay)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def judge(requests: list[JudgeRequest], url: str, cache: VerdictCache, concurrency: int
          ) -> tuple[JudgeRun, float]:
    factory = AnthropicClientFactory(api_key="bench-key", base_url=url, timeout=30.0)
    started = time.perf_counter()
    run = asyncio.run(judge_all(requests, JUDGES, mode="live", cache=cache,
                                client_factory=factory, concurrency=concurrency))
    return run, time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args(argv)

    requests = make_requests(args.items)
    server, url = start_server(args.delay)
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "verdicts.jsonl"
            with VerdictCache(path) as cache:
                cold, wall = judge(requests, url, cache, args.concurrency)
            with VerdictCache(path) as cache:
                warm, warm_wall = judge(requests, url, cache, args.concurrency)
    finally:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.close()
        served = int(server.stdout.readline().strip() or -1)
        server.wait(timeout=10)

    calls = len(requests) * len(JUDGES)
    ideal = calls * args.delay / args.concurrency
    print(f"cold run: {calls} judge calls ({args.items} items x {len(JUDGES)} judges), "
          f"concurrency {args.concurrency}, server delay {args.delay * 1000:.0f} ms")
    print(f"  wall time  {wall:8.2f} s")
    print(f"  ideal      {ideal:8.2f} s  ({calls} x {args.delay} s / {args.concurrency})")
    ratio = wall / ideal if ideal else float("nan")
    print(f"  ratio      {ratio:8.3f}   (target <= 1.3)")
    print(f"  requests   {cold.calls:8d}   judged {cold.count('judged')}, "
          f"errors {cold.count('error')}, cost ${cold.cost_usd:.4f}")
    print(f"warm run: requests {warm.calls} (must be 0), cache hits {warm.cache_hits}, "
          f"wall {warm_wall:.2f} s")
    print(f"server saw {served} requests in total")


if __name__ == "__main__":
    main()
