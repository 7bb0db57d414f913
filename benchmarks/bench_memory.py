"""Memory at scale: peak RSS and time of a cached suite vs bare pytest over the same number
of trivial parametrized tests (the project, baseline and warm-up of
``bench_plugin_overhead.py``). Target: memory ratio <= 1.25 (exit status 1 when missed).

Each pytest runs as its own subprocess; its peak RSS is read from ``wait4``'s resource
usage for that process alone.

With ``--scale N`` it shows instead that a much larger run completes with memory linear
in items: bare pytest at ``--items`` and one cached dictbench run of N items (issue 49:
1,000,000), each run once after a warm-up of bare pytest; the target is the dictbench
run's peak RSS <= 1.25 x bare pytest's x N / ``--items``.

    python benchmarks/bench_memory.py [--items 100000] [--rounds 1]
    python benchmarks/bench_memory.py --scale 1000000 [--items 100000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_plugin_overhead import BASELINE, ENV, PLUGIN, alternate_rounds, make_project

#: Peak RSS of the dictbench run over that of the trivial tests, at most.
TARGET = 1.25


def measured(args: list[str], cwd: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one pytest run."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 *args], cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                env=ENV)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            out.seek(0)
            sys.exit(f"pytest {' '.join(args)} exited {proc.returncode}:\n"
                     f"{out.read()[-2000:].decode(errors='replace')}")
    return elapsed, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def scaled(items: int, scale: int) -> None:
    """Bare pytest at ``items``, dictbench at ``scale`` items, once each (see the doc)."""
    with tempfile.TemporaryDirectory() as small, tempfile.TemporaryDirectory() as large:
        make_project(Path(small), items)
        measured(BASELINE, Path(small))  # bytecode written, caches warm
        bt, bm = measured(BASELINE, Path(small))
        make_project(Path(large), scale)
        pt, pm = measured(PLUGIN, Path(large))
    allowed = TARGET * bm * scale / items
    print(f"bare pytest, trivial tests ({items}): {bt:.2f} s, peak RSS {bm:.0f} MB")
    print(f"dictbench cached suite     ({scale}): {pt:.2f} s, peak RSS {pm:.0f} MB "
          f"({pm / bm * items / scale:.2f} x bare pytest scaled linearly)")
    print(f"peak RSS {pm:.0f} MB at {scale} items (target <= {TARGET} x {bm:.0f} MB x "
          f"{scale / items:g} = {allowed:.0f} MB)")
    if pm > allowed:
        sys.exit(f"peak RSS {pm:.0f} MB misses its target (<= {allowed:.0f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--scale", type=int, default=0, metavar="N",
                        help="one dictbench run of N items against bare pytest at --items")
    args = parser.parse_args()
    if args.scale:
        scaled(args.items, args.scale)
        return
    baseline, plugin = alternate_rounds(args.items, args.rounds, measured)
    bt, bm = (statistics.median(v) for v in zip(*baseline, strict=True))
    pt, pm = (statistics.median(v) for v in zip(*plugin, strict=True))
    print(f"bare pytest, trivial tests ({args.items}): {bt:.2f} s, peak RSS {bm:.0f} MB")
    print(f"dictbench cached suite     ({args.items}): {pt:.2f} s, peak RSS {pm:.0f} MB")
    print(f"time ratio dictbench / trivial:   {pt / bt:.2f}")
    print(f"memory ratio dictbench / trivial: {pm / bm:.2f} (target <= {TARGET})")
    if pm / bm > TARGET:
        sys.exit(f"memory ratio {pm / bm:.2f} misses its target (<= {TARGET})")


if __name__ == "__main__":
    main()
