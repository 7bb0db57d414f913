"""Leak-check of a large file (read in overlapping 1 MiB chunks): seconds per GiB and
the time a 2 GiB file would take, for a file of zeros (NUL-rich, the UTF-16 path) and
one of random bytes, each with a key planted near the end. Target: a 2 GiB file well
under a minute; the planted keys must be found.

    python benchmarks/bench_leakcheck_large.py [--mib 256]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from pytest_dictbench.workbench.leakcheck import leak_check

KEY = "sk-ant-" + "api03-" + "Q7" * 48


def make(path: Path, mib: int, kind: str) -> None:
    """``mib`` MiB of zeros or random bytes, with the key near the end (as UTF-16-LE in
    the zeros file, as ASCII in the random one)."""
    block = 1024 * 1024
    with path.open("wb") as out:
        for n in range(mib):
            data = bytes(block) if kind == "zeros" else os.urandom(block)
            if n == mib - 2:
                planted = KEY.encode("utf-16-le") if kind == "zeros" else KEY.encode()
                data = data[:1000] + planted + data[1000 + len(planted):]
            out.write(data)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", type=int, default=256)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for kind in ("zeros", "random"):
            path = Path(folder) / f"{kind}.bin"
            make(path, args.mib, kind)
            start = time.perf_counter()
            found = leak_check([path])
            seconds = time.perf_counter() - start
            per_gib = seconds * 1024 / args.mib
            kinds = sorted({f.kind for f in found})
            print(f"{kind:6}: {args.mib} MiB in {seconds:.1f} s = {per_gib:.1f} s/GiB; "
                  f"2 GiB ~ {2 * per_gib:.0f} s; found {kinds}")
            path.unlink()


if __name__ == "__main__":
    main()
