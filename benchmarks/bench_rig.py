"""Scoring a large rig results CSV against computing the same WER and CER with jiwer.

Writes a seeded results CSV of ``--rows`` complete rows (default 30,000) for a copy of
the bundled ``cases/mac-rig`` package that lists 400 apps and 5 test profiles (a
package of five apps holds only 75 cells per profile); rows cover its dictation and
file-transcription fixtures, each hypothesis its reference with seeded word
substitutions, deletions and insertions.

- **ours**: read and check the CSV (``read_results``), score every row
  (``run_metrics``: rig-v1 normalisation, ICU words, WER, CER, strict edit distance)
  and build every per-metric table (``rig_tables``);
- **baseline**: ``jiwer.wer`` and ``jiwer.cer`` of every (reference, hypothesis) pair,
  jiwer's default transforms, texts already in memory.

Times are CPU seconds of this process (``time.process_time``), each side timed
``--rounds`` times, interleaved, fastest round kept. Prints both and the ratio
ours / baseline (target: <= 2).

With ``--memory``, it shows instead that reading stays flat in rows: for files of
``--rows`` and 10 x ``--rows`` rows it prints the peak Python memory (tracemalloc) of
streaming every record (``rig.csvfile.records``) and of importing a file refused at row 3
(a second row for one cell, then all the other rows: the read stops at the refusal).
The two peaks per kind should be about equal, whatever the row count. Then, for files of
``--rows`` and 10 x ``--rows`` distinct complete rows, the peak RSS of a process that
imports and checks every row (``rig.results.iter_results``), each size in its own
process; target: the larger file's peak <= 1.5 x the smaller's (issue 49: 60,000 and
600,000 rows).

Run: ``python benchmarks/bench_rig.py [--rows N] [--seed S] [--rounds R] [--memory]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import jiwer

from pytest_dictbench.errors import DictbenchError
from pytest_dictbench.methods.rig.scoring import run_metrics
from pytest_dictbench.methods.rig.tables import rig_tables
from pytest_dictbench.rig.csvfile import records
from pytest_dictbench.rig.package import load_package
from pytest_dictbench.rig.results import iter_results, read_results, render_results
from pytest_dictbench.rig.rows import COLUMNS

BUNDLED = Path(__file__).resolve().parent.parent / "cases" / "mac-rig"
APPS, PROFILES = 400, 5
#: The larger import file's peak RSS over the smaller's, at most (``--memory``).
IMPORT_TARGET = 1.5
FILLERS = ("uh", "the", "and", "so", "well", "okay")


def _hypothesis(reference: str, rng: random.Random) -> str:
    words = []
    for word in reference.split():
        roll = rng.random()
        if roll < 0.04:
            continue
        words.append(rng.choice(FILLERS) if roll < 0.08 else word)
        if rng.random() < 0.03:
            words.append(rng.choice(FILLERS))
    return " ".join(words)


def make_package(folder: Path, apps: int = APPS) -> Path:
    """A copy of the bundled package (no audio) with more apps and profiles."""
    root = folder / "package"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("*.wav", "*.csv.*"))
    path = root / "benchmark-manifest-v1.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["products"] = [f"app{i:03d}" for i in range(apps)]
    manifest["protocol"]["run_order"] = dict.fromkeys(("block_1", "block_2", "block_3"),
                                                      manifest["products"])
    manifest["protocol"]["profiles"] = {f"p{i}": "profile" for i in range(PROFILES)}
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


def make_csv(rows: int, seed: int, package_path: Path) -> tuple[Path, list[tuple[str, str]]]:
    """The CSV path and the (reference, hypothesis) pairs it holds."""
    suite = load_package(package_path)
    package = suite.manifest["package"]
    fixtures = [c for c in suite.cases if c.data["workflow"] in ("dictation",
                                                                  "file_transcription")]
    rng = random.Random(seed)
    cells, pairs = [], []
    for number in range(rows):
        fixture = fixtures[(number // 3) % len(fixtures)]
        cell, rep = divmod(number, 3)
        app = package["products"][(cell // len(fixtures)) % APPS]
        profile = f"p{cell // (len(fixtures) * APPS) % PROFILES}"
        reference = fixture.data["reference"]
        hypothesis = _hypothesis(reference, rng)
        row = dict.fromkeys(COLUMNS, "")
        row.update(benchmark_version=package["schema_version"], status="complete", app_id=app,
                   run_id=f"run-{number}", fixture_id=fixture.id,
                   repetition=str(rep + 1), app_version="1.0", plan="free",
                   test_profile=profile,
                   raw_transcript=hypothesis, elapsed_seconds=f"{rng.uniform(2, 9):.3f}",
                   processing_path="on_device", privacy_mode="local",
                   app_language_setting="auto", tested_at="2026-11-20T10:00:00Z",
                   hardware="Mac14,7", macos_version="15.1 (24B83)",
                   price_snapshot="USD 0", pricing_source_url="https://example.com/p")
        cells.append(row)
        pairs.append((reference, hypothesis))
    path = package_path.parent / "results.csv"
    path.write_text(render_results(cells), encoding="utf-8")
    return path, pairs


def ours(path: Path, package_path: Path) -> int:
    suite = load_package(package_path)
    records: list[dict[str, Any]] = []
    for row in read_results(path, suite):
        fixture = suite.case(row.fixture_id).data
        records.append({"product": row.app_id, "case_id": row.fixture_id,
                        "repetition": row.repetition, "status": "passed",
                        "metrics": run_metrics(fixture, row.values),
                        "rig": {**row.cells, "status": row.status,
                                "locale": fixture["locale"]}})
    return len(rig_tables(records, suite.manifest["package"])["tables"])


def baseline(pairs: list[tuple[str, str]]) -> float:
    total = 0.0
    for reference, hypothesis in pairs:
        total += jiwer.wer(reference, hypothesis) + jiwer.cer(reference, hypothesis)
    return total


def _peak(job: Any) -> int:
    """Peak traced bytes while ``job`` runs."""
    tracemalloc.start()
    try:
        job()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _refused_at_row_3(path: Path, suite: Any) -> None:
    try:
        read_results(path, suite)
    except DictbenchError:
        return
    raise AssertionError("the file should be refused at row 3")


def distinct_rows_csv(path: Path, rows: int, package_path: Path) -> None:
    """A results CSV of ``rows`` complete rows, each its own cell and run id, each
    transcript its fixture's reference."""
    suite = load_package(package_path)
    package = suite.manifest["package"]
    fixtures = [c for c in suite.cases if c.data["workflow"] in ("dictation",
                                                                  "file_transcription")]
    header = render_results([])
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(header)
        chunk = []
        for number in range(rows):
            number, rep = divmod(number, 3)
            number, fixture_index = divmod(number, len(fixtures))
            app_index, profile = divmod(number, PROFILES)
            fixture = fixtures[fixture_index]
            row = dict.fromkeys(COLUMNS, "")
            row.update(benchmark_version=package["schema_version"], status="complete",
                       app_id=package["products"][app_index], run_id=f"run-{app_index}-"
                       f"{profile}-{fixture_index}-{rep}",
                       fixture_id=fixture.id, repetition=str(rep + 1), app_version="1.0",
                       plan="free", test_profile=f"p{profile}",
                       raw_transcript=fixture.data["reference"], elapsed_seconds="3.000",
                       processing_path="on_device", privacy_mode="local",
                       app_language_setting="auto", tested_at="2026-11-20T10:00:00Z",
                       hardware="Mac14,7", macos_version="15.1 (24B83)",
                       price_snapshot="USD 0", pricing_source_url="https://example.com/p")
            chunk.append(row)
            if len(chunk) == 5000:
                out.write(render_results(chunk)[len(header):])
                chunk = []
        out.write(render_results(chunk)[len(header):])


def import_peak(csv: Path, package_path: Path) -> None:
    """(child) Import and check every row of ``csv``; print the rows and peak RSS (MB)."""
    suite = load_package(package_path)
    count = sum(1 for _ in iter_results(csv, suite))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{count} {peak:.1f}")


def import_memory(rows: int) -> None:
    """Peak RSS of importing ``rows`` and 10 x ``rows`` distinct rows, a process each."""
    sizes = (rows, 10 * rows)
    peaks = []
    with tempfile.TemporaryDirectory(prefix="bench-rig-import-") as tmp:
        fixtures = sum(1 for c in load_package(make_package(Path(tmp) / "count")).cases
                       if c.data["workflow"] in ("dictation", "file_transcription"))
        package_path = make_package(Path(tmp), apps=sizes[1] // (fixtures * 3 * PROFILES) + 1)
        for size in sizes:
            csv = Path(tmp) / f"distinct-{size}.csv"
            distinct_rows_csv(csv, size, package_path)
            proc = subprocess.run([sys.executable, __file__, "--import-peak", str(csv),
                                   str(package_path)], capture_output=True, text=True,
                                  env=os.environ.copy())
            if proc.returncode != 0:
                sys.exit(f"importing {size} rows failed:\n{proc.stderr[-2000:]}")
            count, peak = proc.stdout.split()
            if int(count) != size:
                sys.exit(f"{size} rows written, {count} imported")
            peaks.append(float(peak))
            csv.unlink()
    print(f"peak RSS importing {sizes[0]} rows: {peaks[0]:.0f} MB, {sizes[1]} rows: "
          f"{peaks[1]:.0f} MB")
    ratio = peaks[1] / peaks[0]
    print(f"import peak RSS ratio {sizes[1]} / {sizes[0]} rows: {ratio:.2f} "
          f"(target <= {IMPORT_TARGET})")
    if ratio > IMPORT_TARGET:
        sys.exit(f"import peak RSS ratio {ratio:.2f} misses its target (<= {IMPORT_TARGET})")


def memory(rows: int, seed: int) -> None:
    """Print peak memory of streaming and of an early refusal, for rows and 10 x rows."""
    with tempfile.TemporaryDirectory(prefix="bench-rig-mem-") as tmp:
        package_path = make_package(Path(tmp))
        suite = load_package(package_path)
        path, _ = make_csv(rows, seed, package_path)
        one = path.read_text(encoding="utf-8").splitlines(keepends=True)
        header, body = one[0], one[1:]
        peaks: dict[str, list[int]] = {"stream": [], "refused": []}
        for size in (rows, 10 * rows):
            big = package_path.parent / f"big-{size}.csv"
            with big.open("w", encoding="utf-8", newline="") as out:
                out.write(header)
                for index in range(size):
                    out.write(body[index % len(body)].replace(",run-", f",r{index}-", 1))
            peaks["stream"].append(_peak(lambda big=big: sum(1 for _ in records(big))))
            dup = package_path.parent / f"dup-{size}.csv"
            with dup.open("w", encoding="utf-8", newline="") as out:
                out.write(header + body[0])
                for index in range(size):  # row 3 repeats row 2's cell: refused there
                    out.write(body[0].replace(",run-0,", f",dup-{index},", 1))
            peaks["refused"].append(_peak(lambda dup=dup: _refused_at_row_3(dup, suite)))
    print(f"peak Python memory (tracemalloc), {rows} rows vs {10 * rows} rows")
    for kind, (small, large) in peaks.items():
        print(f"  {kind:8s}: {small / 1e6:8.2f} MB vs {large / 1e6:8.2f} MB  "
              f"ratio {large / small:.2f}  (flat: about 1)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memory", action="store_true",
                        help="show that reading stays flat in rows instead of timing")
    parser.add_argument("--import-peak", nargs=2, type=Path, metavar=("CSV", "PACKAGE"),
                        help=argparse.SUPPRESS)  # the child process of --memory
    args = parser.parse_args()
    if args.import_peak:
        import_peak(*args.import_peak)
        return
    if args.memory:
        memory(args.rows, args.seed)
        import_memory(args.rows)
        return
    with tempfile.TemporaryDirectory(prefix="bench-rig-") as tmp:
        package_path = make_package(Path(tmp))
        path, pairs = make_csv(args.rows, args.seed, package_path)
        best = {"ours": float("inf"), "jiwer": float("inf")}
        for _ in range(args.rounds):
            jobs = (("ours", lambda: ours(path, package_path)),
                    ("jiwer", lambda: baseline(pairs)))
            for name, job in jobs:
                start = time.process_time()
                job()
                best[name] = min(best[name], time.process_time() - start)
    print(f"rows: {args.rows}  rounds: {args.rounds}  (CPU seconds, fastest round)")
    print(f"ours  (read + check + score + tables): {best['ours']:.2f} s")
    print(f"jiwer (wer + cer of the same pairs):   {best['jiwer']:.2f} s")
    print(f"ratio ours / jiwer: {best['ours'] / best['jiwer']:.2f}  (target <= 2)")


if __name__ == "__main__":
    main()
