"""Streaming captures: 200 items at concurrency 8 against a loopback Deepgram-live server
with a scripted timeline (issue 43).

A server in its own process speaks Deepgram's live protocol and replays, on every
session, the same timeline against the audio it has received: a partial at 0.6 s of
audio, a final at 1.0 s, a partial at 1.2 s and, once CloseStream arrives, the last final
and Metadata. Each item is 1.6 s of audio (a 1 s tone between 0.3 s silences) sent in
100 ms chunks at real-time pace by one ``deepgram-live`` product at ``--concurrency``.

The scripted truth of each item, from its own audio marks: time to first partial
0.6 s - first audible; to first final 1.0 s - first audible; final latency 1.6 s (the
end of the audio, when CloseStream goes out) - last audible. Prints the p95 of
|measured - truth| over all three timings of all items (target: 5 ms), the p95 of the
items' pacing p95 (target: 10 ms), and the adapter's CPU time (``time.process_time`` of
this process, which does no serving) over the audio's duration (target: 2%).

    python benchmarks/bench_streaming.py [--items 200] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.streaming.kinds import STREAMING_ADAPTERS
from pytest_dictbench.model import Case, Product, Suite
from pytest_dictbench.stats import percentile

KEY = "bench-key-0123456789"
RATE = 16000


def _results(text: str, final: bool, end: float) -> str:
    return json.dumps({"type": "Results", "is_final": final, "speech_final": final,
                       "channel": {"alternatives": [{"transcript": text, "words": [
                           {"word": text.split()[-1], "start": end - 0.2, "end": end}]}]}})


TIMELINE = ((0.6, _results("hello", False, 0.55)), (1.0, _results("hello world", True, 0.9)),
            (1.2, _results("again", False, 1.15)))
ON_END = (_results("again", True, 1.25),
          json.dumps({"type": "Metadata", "request_id": "bench", "duration": 1.6}))


def serve(port: Any) -> None:
    from websockets.asyncio.server import serve as ws_serve

    async def handler(ws: Any) -> None:
        received, timeline = 0, list(TIMELINE)
        async for message in ws:
            if isinstance(message, str):  # CloseStream
                for _, text in timeline:
                    await ws.send(text)
                for text in ON_END:
                    await ws.send(text)
                await ws.close()
                return
            received += len(message)
            while timeline and timeline[0][0] <= received / (2 * RATE) + 1e-9:
                await ws.send(timeline.pop(0)[1])

    async def main() -> None:
        async with ws_serve(handler, "127.0.0.1", 0, compression=None) as server:
            port.value = server.sockets[0].getsockname()[1]
            await asyncio.Future()

    asyncio.run(main())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    port = multiprocessing.Value("i", 0)
    server = multiprocessing.Process(target=serve, args=(port,), daemon=True)
    server.start()
    while port.value == 0:
        time.sleep(0.05)
    import os

    os.environ["BENCH_STREAM_KEY"] = KEY
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "suite"
        (root / "audio").mkdir(parents=True)
        t = np.arange(RATE) / RATE
        audio = np.concatenate([np.zeros(int(0.3 * RATE)), 0.5 * np.sin(2 * np.pi * 300 * t),
                                np.zeros(int(0.3 * RATE))]).astype(np.float32)
        sf.write(str(root / "audio" / "a.wav"), audio, RATE, subtype="PCM_16")
        cases = tuple(Case(f"c{i:04d}", {"id": f"c{i:04d}", "audio": "audio/a.wav",
                                          "reference": "hello world again"}, i + 1)
                      for i in range(args.items))
        suite = Suite(id="bench", version="1", title="bench", method="error_rate",
                      locale="en-US", canary="", root=root, cases=cases)
        product = Product(name="dg-live", version="1", adapter="deepgram-live",
                          path=Path(tmp) / "products" / "dg-live.toml", settings={
                              "base_url": f"ws://127.0.0.1:{port.value}",
                              "api_key_env": "BENCH_STREAM_KEY",
                              "concurrency": args.concurrency})
        adapter = STREAMING_ADAPTERS["deepgram-live"](product, suite,
                                                      AdapterOptions(warmup=False))
        adapter.plan([(case, 1) for case in cases])
        cpu, wall = time.process_time(), time.perf_counter()
        outputs = [adapter.get(case, 1) for case in cases]
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    server.terminate()
    errors, pacing, failed = [], [], 0
    for output in outputs:
        if output is None or output.status != "complete":
            failed += 1
            continue
        s = output.meta["streaming"]
        marks = s["marks"]
        truth = {"ttfp_audible_ms": (0.6 - marks["first_audible_s"]) * 1000,
                 "ttff_ms": (1.0 - marks["first_audible_s"]) * 1000,
                 "final_latency_ms": (1.6 - marks["last_audible_s"]) * 1000}
        errors += [abs(s[k] - v) for k, v in truth.items()]
        pacing.append(s["pacing"]["p95_ms"])
    audio_s = 1.6 * args.items
    print(f"{args.items} items at concurrency {args.concurrency}: {wall:.1f} s wall "
          f"(ideal {audio_s / args.concurrency:.1f} s), {failed} not complete")
    print(f"timing error p50 {percentile(errors, 50):.2f} ms, p95 {percentile(errors, 95):.2f}"
          f" ms, max {max(errors):.2f} ms "
          "(target p95 <= 5 ms)")
    print(f"pacing p95 of items' p95 {percentile(pacing, 95):.2f} ms (target <= 10 ms)")
    print(f"adapter CPU {cpu:.2f} s = {100 * cpu / audio_s:.2f}% of the audio's "
          f"{audio_s:.0f} s (target <= 2%)")
    missed = [what for what, bad in (
        ("items not complete", failed > 0),
        ("timing error p95 (<= 5 ms)", percentile(errors, 95) > 5),
        ("pacing p95 (<= 10 ms)", percentile(pacing, 95) > 10),
        ("adapter CPU (<= 2% of the audio)", cpu > 0.02 * audio_s)) if bad]
    if missed:
        sys.exit(f"missed its target: {', '.join(missed)}")


if __name__ == "__main__":
    main()
