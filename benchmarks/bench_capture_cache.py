"""Capture cache: the cost of one capture's write must not grow with the suite.

For each suite size N, a capture cache already holding N - K lines (written as earlier
captures would have left them) takes K more captures through ``CaptureCache.put``, each
under the lock and fsynced, as a live run does. The mean cost per capture is printed
for every N with its ratio to the smallest N; flat means a ratio near 1. The same run
also times K captures done the old way (the whole file rewritten and renamed per
capture) as a baseline.

    python benchmarks/bench_capture_cache.py [--sizes 100 1000 2000] [--captures 100]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pytest_dictbench.adapters.capture_cache import CaptureCache, dump_line
from pytest_dictbench.files import atomic_write, file_lock
from pytest_dictbench.model import Case, Suite


def capture_line(n: int) -> dict:
    """A line shaped like a live capture's (about 600 bytes)."""
    return {"case_id": f"c{n:05d}", "repetition": 1, "status": "complete",
            "text": f"transcript number {n} " * 8, "error": None, "latency_ms": 812.5,
            "rtf": 0.1234, "started_utc": "2026-12-01T00:00:00.000Z",
            "product_version": "1.0", "settings": {"command": ["asr", "{audio}"]},
            "audio_sha256": "0" * 64, "audio_duration_s": 6.5, "warmup": "done",
            "engine": "asr", "engine_version": "2", "model": "base"}


def suite_of(size: int) -> Suite:
    cases = tuple(Case(f"c{n:05d}", {"id": f"c{n:05d}"}, n) for n in range(size))
    return Suite("bench", "1", "t", "error_rate", "en-US", "canary", Path("."), cases)


def per_capture(folder: Path, size: int, captures: int, *, rewrite: bool) -> float:
    """Seconds per capture for the last ``captures`` of ``size``."""
    path = folder / f"{'old' if rewrite else 'new'}-{size}.jsonl"
    lines = [dump_line(capture_line(n)) for n in range(size - captures)]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    cache = CaptureCache(path, suite_of(size))
    start = time.perf_counter()
    for n in range(size - captures, size):
        if rewrite:  # the former way: read, rebuild and rename the whole file per capture
            with file_lock(cache.lock_path):
                kept = path.read_text(encoding="utf-8").splitlines()
                atomic_write(path, "".join(x + "\n" for x in [*kept,
                                                              dump_line(capture_line(n))]))
        else:
            cache.put(capture_line(n))
    return (time.perf_counter() - start) / captures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 2000])
    parser.add_argument("--captures", type=int, default=100)
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        new = {n: per_capture(folder, n, min(args.captures, n), rewrite=False) for n in sizes}
        old = {n: per_capture(folder, n, min(args.captures, n), rewrite=True) for n in sizes}
    print(f"{'cases':>6}  {'append (ms/capture)':>20}  {'vs smallest':>11}  "
          f"{'rewrite (ms/capture)':>21}  {'vs smallest':>11}")
    for n in sizes:
        print(f"{n:>6}  {new[n] * 1000:>20.3f}  {new[n] / new[sizes[0]]:>10.2f}x  "
              f"{old[n] * 1000:>21.3f}  {old[n] / old[sizes[0]]:>10.2f}x")
    print(f"append cost ratio {sizes[-1]} / {sizes[0]} cases: "
          f"{new[sizes[-1]] / new[sizes[0]]:.2f} (flat is about 1); the former rewrite: "
          f"{old[sizes[-1]] / old[sizes[0]]:.2f}; rewrite / append at {sizes[-1]} cases: "
          f"{old[sizes[-1]] / new[sizes[-1]]:.1f}x")


if __name__ == "__main__":
    main()
