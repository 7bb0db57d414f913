"""Throughput of a pipeline's refine steps against a loopback model that answers late.

Starts a loopback Messages API server in a subprocess (this file with ``--serve``, so
its threads do not share this process's GIL) whose every answer takes ``--delay``
seconds, then refines ``--items`` recognised texts with ``--variants`` pipelines (the
same recogniser, one instruction each) at ``--concurrency`` calls at a time, through the
real anthropic SDK, as a run does: each variant's items planned, then fetched.

Prints the wall time, the ideal time (items x variants x delay / concurrency) and their
ratio (target <= 1.15), then runs again with the warm refine cache and prints the
requests it made (must be 0).

Run: ``python benchmarks/bench_refine.py [--items 500] [--variants 2] [--concurrency 8]
[--delay 0.2]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-bench-refine-0000"


def serve(delay: float) -> None:
    """The server side: print the URL, serve until stdin closes, print the requests."""
    sys.path.insert(0, str(ROOT / "tests"))
    from judge_server import MessagesServer
    from refine_support import refine_responder

    with MessagesServer(refine_responder(delay=delay)) as server:
        print(server.url, flush=True)
        sys.stdin.read()
        print(len(server.requests), flush=True)


def make_project(folder: Path, items: int, variants: int, url: str, concurrency: int) -> None:
    """Recogniser ``asr`` (cache) with ``items`` distinct texts, pipelines v1..vN."""
    (folder / "asr").mkdir(parents=True)
    (folder / "asr.toml").write_text('name = "asr"\nversion = "1"\nadapter = "cache"\n')
    (folder / "asr" / "bench.jsonl").write_text("".join(
        json.dumps({"case_id": f"c{i}", "text": f"um item number {i} of the run"}) + "\n"
        for i in range(items)))
    for v in range(1, variants + 1):
        template = json.dumps(f"Variant {v}: clean this up.\n<text>{{text}}</text>")
        (folder / f"v{v}.toml").write_text(
            f'name = "v{v}"\nversion = "1"\nadapter = "pipeline"\n[settings]\n'
            f"concurrency = {concurrency}\n[asr]\nproduct = \"asr\"\n[[refine]]\n"
            f'client = "anthropic"\nmodel = "fixer"\nbase_url = "{url}"\n'
            f'api_key_env = "BENCH_REFINE_KEY"\ntemplate = {template}\n')


def run(folder: Path, items: int, variants: int) -> float:
    """Refine every item of every variant as a run would; the wall time in seconds."""
    from pytest_dictbench.adapters.base import AdapterOptions
    from pytest_dictbench.adapters.cache import CacheAdapter
    from pytest_dictbench.adapters.pipeline import PipelineAdapter, load_products
    from pytest_dictbench.model import Case, Suite

    cases = tuple(Case(f"c{i}", {"id": f"c{i}", "reference": "x"}, i + 1)
                  for i in range(items))
    suite = Suite(id="bench", version="1", title="b", method="error_rate", locale="en-US",
                  canary="DICTBENCH-CANARY bench", root=folder, cases=cases)
    options = AdapterOptions()
    start = time.perf_counter()
    for v in range(1, variants + 1):
        [product] = load_products(f"v{v}", folder)
        adapter = PipelineAdapter(product, suite, options, {"cache": CacheAdapter})
        adapter.plan([(case, 1) for case in cases])
        outputs = [adapter.get(case, 1) for case in cases]
        bad = [o for o in outputs if o is None or o.status != "complete"]
        if bad:
            raise SystemExit(f"variant v{v}: {len(bad)} items failed, e.g. {bad[0]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--variants", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.delay)
        return
    server = subprocess.Popen([sys.executable, __file__, "--serve", "--delay", str(args.delay)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None and server.stdin is not None
    url = server.stdout.readline().strip()
    os.environ["BENCH_REFINE_KEY"] = KEY
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "products"
            make_project(folder, args.items, args.variants, url, args.concurrency)
            cold = run(folder, args.items, args.variants)
            ideal = args.items * args.variants * args.delay / args.concurrency
            print(f"refine: {args.items} items x {args.variants} variants at concurrency "
                  f"{args.concurrency}, {args.delay * 1000:.0f} ms per answer")
            print(f"  wall {cold:.2f} s, ideal {ideal:.2f} s, ratio {cold / ideal:.3f} "
                  "(target <= 1.15)")
            warm = run(folder, args.items, args.variants)
            server.stdin.close()
            requests = int(server.stdout.readline().strip())
            expected = args.items * args.variants
            print(f"  second run: {warm:.2f} s, {requests - expected} requests "
                  f"(first run made {expected}; target 0)")
    finally:
        server.stdin.close() if not server.stdin.closed else None
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
