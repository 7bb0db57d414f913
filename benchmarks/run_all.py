"""Every benchmark in one go, and the performance table from what they printed.

Each ``bench_*.py`` beside this file is listed in :data:`BENCHMARKS` with the arguments of
its full run and of a quick run (a script with two modes is listed once per mode). A run
prints the lines a benchmark writes about its target (each benchmark states its ratio and
target on one line) and writes them as a Markdown table between the markers
``<!-- benchmarks:start -->`` and ``<!-- benchmarks:end -->`` of ``--write`` (default:
README.md, its performance table): the figures, the benchmark's exit status,
the one-minute load when it started, the date and the commit.

``--quick`` runs each benchmark at a small size to show that it still runs; timings at
that size mean nothing, so a quick run only fails on a crash: an exit other than 0, or
than 1 with a message about its target (a missed target). Nothing is written.

Run: ``python benchmarks/run_all.py [--quick] [--only NAME ...] [--write README.md]``
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
START, END = "<!-- benchmarks:start -->", "<!-- benchmarks:end -->"


@dataclass(frozen=True)
class Benchmark:
    """One benchmark script, how it runs in full and how at a small size."""

    script: str
    full: tuple[str, ...] = ()
    quick: tuple[str, ...] = ()


BENCHMARKS = (
    Benchmark("bench_plugin_overhead.py", (), ("--items", "100", "--rounds", "1")),
    Benchmark("bench_memory.py", ("--items", "100000"), ("--items", "200")),
    Benchmark("bench_memory.py", ("--items", "100000", "--scale", "1000000"),
              ("--items", "200", "--scale", "2000")),
    Benchmark("bench_sweep.py", ("--small", "100", "--large", "1000"),
              ("--small", "3", "--large", "12", "--cases", "4")),
    Benchmark("bench_judge.py", ("--case", "live", "--items", "1000"),
              ("--case", "live", "--items", "10", "--delay", "0.01", "--concurrency", "4")),
    Benchmark("bench_cloud_capture.py", ("--concurrency", "32"),
              ("--items", "20", "--delay", "0.01", "--concurrency", "4")),
    Benchmark("bench_refine.py", (),
              ("--items", "10", "--variants", "1", "--delay", "0.01", "--concurrency", "4")),
    Benchmark("bench_rig.py", (), ("--rows", "300", "--rounds", "1")),
    Benchmark("bench_rig.py", ("--memory", "--rows", "60000"), ("--memory", "--rows", "300")),
    Benchmark("bench_ssh_rigs.py", (), ("--cases", "2", "--delay", "0.01", "--rounds", "1")),
    Benchmark("bench_alignment.py", (), ("--pairs", "200", "--rounds", "1")),
    Benchmark("bench_bootstrap.py", (), ("--items", "50", "--resamples", "200")),
    Benchmark("bench_capture_cache.py", (), ("--sizes", "20", "--captures", "10")),
    Benchmark("bench_leakcheck_large.py", (), ("--mib", "4")),
    Benchmark("bench_long_form.py", (), ("--words", "300", "--rounds", "1")),
    Benchmark("bench_names.py", (), ("--texts", "20", "--rounds", "1")),
    Benchmark("bench_whisper_overhead.py", (), ("--rounds", "1")),
    Benchmark("bench_xdist_capture.py", (), ("--rounds", "1", "--cases", "2")),
    Benchmark("bench_desktop.py", (), ("--items", "1", "--app", "scripted", "--stable-s", "0.5")),
    Benchmark("bench_store.py", (),
              ("--items", "200", "--rounds", "1", "--runs", "20", "--run-items", "20")),
    Benchmark("bench_streaming.py", (), ("--items", "8", "--concurrency", "4")),
    Benchmark("bench_history.py", (), ("--runs", "4,8", "--run-items", "20", "--window", "3",
                                       "--resamples", "200", "--rounds", "1",
                                       "--products", "3,25", "--product-items", "10",
                                       "--product-runs", "2")),
    Benchmark("bench_viewer.py", (), ("--runs", "30", "--run-items", "10", "--rounds", "1")),
)

#: A line a benchmark prints about its target (``... (target <= 1.1)``, ``target: ...``).
_TARGET_LINE = re.compile(r"\btarget\b", re.IGNORECASE)


@dataclass(frozen=True)
class Outcome:
    """What one benchmark run gave."""

    benchmark: Benchmark
    args: tuple[str, ...]
    returncode: int
    figures: tuple[str, ...]
    load: float
    seconds: float
    output: str

    @property
    def crashed(self) -> bool:
        """Ended by something other than its own verdict on its target."""
        if self.returncode == 0:
            return False
        return not (self.returncode == 1 and _TARGET_LINE.search(self.output[-2000:]))


def listed_scripts() -> set[str]:
    return {b.script for b in BENCHMARKS}


def unlisted_scripts() -> list[str]:
    """``bench_*.py`` files beside this one that :data:`BENCHMARKS` does not list."""
    return sorted(p.name for p in HERE.glob("bench_*.py") if p.name not in listed_scripts())


def run_one(benchmark: Benchmark, args: tuple[str, ...], timeout: float) -> Outcome:
    load = os.getloadavg()[0]
    start = time.perf_counter()
    argv = [sys.executable, str(HERE / benchmark.script), *args]
    try:
        proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        code, output = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        code, output = -9, f"timed out after {timeout:.0f} s\n{exc.stdout or ''}"
    lines = tuple(line.strip() for line in output.splitlines() if _TARGET_LINE.search(line))
    return Outcome(benchmark, args, code, lines, load, time.perf_counter() - start, output)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(outcomes: list[Outcome], *, commit: str, when: dt.datetime) -> str:
    """The Markdown block written between the markers."""
    lines = [f"Figures of {when:%Y-%m-%d %H:%M} UTC at commit `{commit}`, written by "
             "`benchmarks/run_all.py`, one benchmark after another on this machine "
             f"({os.cpu_count()} cores); load is the one-minute average as each started.", "",
             "| benchmark | figures (as printed) | exit | load | time |",
             "|---|---|---|---|---|"]
    for o in outcomes:
        name = " ".join([o.benchmark.script, *o.args])
        figures = "<br>".join(_cell(f) for f in o.figures) or "(no target line printed)"
        lines.append(f"| `{_cell(name)}` | {figures} | {o.returncode} | {o.load:.2f} "
                     f"| {o.seconds:.0f} s |")
    return "\n".join(lines) + "\n"


def marked_text(path: Path) -> str:
    """The text of ``path``, refused unless it holds one start marker before one end one."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SystemExit(f"{path}: cannot be read ({exc.strerror})") from None
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise SystemExit(f"{path}: needs one {START} line followed by one {END} line")
    return text


def write_between_markers(path: Path, block: str) -> None:
    text = marked_text(path)
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n{block}{END}{tail}", encoding="utf-8")


def commit_of(root: Path) -> str:
    proc = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain"],
                           capture_output=True, text=True).stdout.strip()
    return (proc.stdout.strip() or "unknown") + (" (dirty)" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="each benchmark at a small size; fails only on a crash")
    parser.add_argument("--only", nargs="+", metavar="NAME", default=(),
                        help="only these scripts (bench_rig.py or bench_rig)")
    parser.add_argument("--write", type=Path, default=ROOT / "README.md",
                        help="the file whose marked block gets the table (full runs)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per benchmark (default: 600 quick, 7200 full)")
    args = parser.parse_args(argv)
    if unlisted := unlisted_scripts():
        parser.error(f"not listed in run_all.BENCHMARKS: {', '.join(unlisted)}")
    wanted = {n if n.endswith(".py") else f"{n}.py" for n in args.only}
    if unknown := wanted - listed_scripts():
        parser.error(f"no such benchmark: {', '.join(sorted(unknown))}")
    if not args.quick:
        marked_text(args.write)  # before hours of benchmarks, not after them
    timeout = args.timeout or (600 if args.quick else 7200)
    outcomes = []
    for benchmark in BENCHMARKS:
        if wanted and benchmark.script not in wanted:
            continue
        run_args = benchmark.quick if args.quick else benchmark.full
        outcome = run_one(benchmark, run_args, timeout)
        outcomes.append(outcome)
        verdict = "CRASHED" if outcome.crashed else f"exit {outcome.returncode}"
        print(f"{benchmark.script} {' '.join(run_args)}: {verdict}, {outcome.seconds:.1f} s",
              flush=True)
        for figure in outcome.figures:
            print(f"    {figure}")
        if outcome.crashed:
            print("    " + "\n    ".join(outcome.output.strip().splitlines()[-15:]))
    crashed = [o.benchmark.script for o in outcomes if o.crashed]
    if args.quick:
        print(f"{len(outcomes) - len(crashed)} ran, {len(crashed)} crashed"
              + (f": {', '.join(crashed)}" if crashed else ""))
        return 1 if crashed else 0
    block = table(outcomes, commit=commit_of(ROOT), when=dt.datetime.now(dt.UTC))
    write_between_markers(args.write, block)
    print(f"wrote the table to {args.write}")
    return 1 if crashed or any(o.returncode for o in outcomes) else 0


if __name__ == "__main__":
    raise SystemExit(main())
