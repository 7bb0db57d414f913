"""Throughput of the judge runner against a loopback server that answers after a delay.

Starts ``tests/judge_server.py`` in a subprocess (so the server's threads do not share
this process's GIL), judges ``--items`` distinct outputs with two judges at
``--concurrency`` through the real anthropic SDK, and prints the wall time, the ideal
time (items x 2 x delay / concurrency), their ratio (target <= 1.05, issue 49), then re-runs with
the now warm verdict cache and prints its request count (must be 0). The exit status is
1 when the ratio misses its target or the warm run sends a request.

Batch case (``--batch-items``, default 2,000): the same requests, two judges, submitted
as Message Batches to a server that ends each batch ``--batch-delay`` (2 s) after
creation, then collected with a wait and a 0.25 s poll. It prints the HTTP requests
made, the wall time, and the cost of the verdicts against the same tokens at live list
prices (expect 0.5). ``--case live|batch|both`` chooses what runs.

Run: ``python benchmarks/bench_judge.py [--items 500] [--concurrency 16] [--delay 0.2]
[--batch-items 2000] [--batch-delay 2] [--case both]``
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
    BatchBook,
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
#: Wall time of the live case over the ideal time, at most.
TARGET = 1.05
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


def start_server(delay: float, batch_delay: float = 2.0) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "judge_server.py"), "--delay", str(delay),
         "--batch-delay", str(batch_delay)],
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


def stop_server(server: subprocess.Popen[str]) -> int:
    """Close the server's stdin; it prints how many requests it saw, then exits."""
    assert server.stdin is not None and server.stdout is not None
    server.stdin.close()
    served = int(server.stdout.readline().strip() or -1)
    server.wait(timeout=10)
    return served


def batch_case(items: int, batch_delay: float) -> None:
    """Submit and collect ``items`` x 2 judges as batches; print requests, time, cost."""
    requests = make_requests(items)
    server, url = start_server(0.0, batch_delay)
    try:
        with tempfile.TemporaryDirectory() as folder:
            factory = AnthropicClientFactory(api_key="bench-key", base_url=url, timeout=120.0)
            started = time.perf_counter()
            with VerdictCache(Path(folder) / "verdicts.jsonl") as cache:
                run = asyncio.run(judge_all(
                    requests, JUDGES, mode="batch", cache=cache, client_factory=factory,
                    book=BatchBook.load(Path(folder) / "batches.json"),
                    batch_wait=600.0, batch_poll=0.25))
            wall = time.perf_counter() - started
            verdicts = [o.verdict for per in run.outcomes.values() for o in per.values()
                        if o.verdict is not None]
    finally:
        served = stop_server(server)
    by_name = {j.name: j for j in JUDGES}
    live = sum(by_name[v.judge].cost_usd(v.usage) for v in verdicts)
    batch = sum(by_name[v.judge].cost_usd(v.usage, batch=True) for v in verdicts)
    print(f"batch run: {len(requests)} items x {len(JUDGES)} judges = "
          f"{len(requests) * len(JUDGES)} requests in {len(JUDGES)} batches, server ends "
          f"each batch {batch_delay:.1f} s after creation")
    print(f"  verdicts   {len(verdicts):8d}   judged {run.count('judged')}, "
          f"pending {run.count('pending')}, errors {run.count('error')}")
    print(f"  HTTP       {served:8d}   requests to the server (create, poll, results)")
    print(f"  wall time  {wall:8.2f} s  (floor {batch_delay:.1f} s)")
    print(f"  cost       ${batch:.4f} batch vs ${live:.4f} for the same tokens live: "
          f"ratio {batch / live if live else float('nan'):.3f} (expect 0.5)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--batch-items", type=int, default=2000)
    parser.add_argument("--batch-delay", type=float, default=2.0)
    parser.add_argument("--case", choices=("live", "batch", "both"), default="both")
    args = parser.parse_args(argv)
    if args.case in ("live", "both"):
        live_case(args)
    if args.case in ("batch", "both"):
        batch_case(args.batch_items, args.batch_delay)


def live_case(args: argparse.Namespace) -> None:
    """The live throughput case (see the module docstring)."""
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
        served = stop_server(server)

    calls = len(requests) * len(JUDGES)
    ideal = calls * args.delay / args.concurrency
    print(f"cold run: {calls} judge calls ({args.items} items x {len(JUDGES)} judges), "
          f"concurrency {args.concurrency}, server delay {args.delay * 1000:.0f} ms")
    print(f"  wall time  {wall:8.2f} s")
    print(f"  ideal      {ideal:8.2f} s  ({calls} x {args.delay} s / {args.concurrency})")
    ratio = wall / ideal if ideal else float("nan")
    print(f"  ratio      {ratio:8.3f}   (target <= {TARGET})")
    print(f"  requests   {cold.calls:8d}   judged {cold.count('judged')}, "
          f"errors {cold.count('error')}, cost ${cold.cost_usd:.4f}")
    print(f"warm run: requests {warm.calls} (must be 0), cache hits {warm.cache_hits}, "
          f"wall {warm_wall:.2f} s")
    print(f"server saw {served} requests in total")
    if not ratio <= TARGET or warm.calls:
        sys.exit(f"live judging: ratio {ratio:.3f} (target <= {TARGET}), warm requests "
                 f"{warm.calls} (must be 0)")


if __name__ == "__main__":
    main()
