"""``benchmarks/run_all.py``: every benchmark is listed, runs at a small size without
crashing (its timings at that size are not judged), and a full run's table lands between
the performance page's markers."""

from __future__ import annotations

import datetime as dt
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_run_all():
    spec = importlib.util.spec_from_file_location("run_all", ROOT / "benchmarks" / "run_all.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["run_all"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


run_all = _load_run_all()


def test_every_benchmark_is_listed() -> None:
    assert run_all.unlisted_scripts() == []
    runs = [(b.script, b.full) for b in run_all.BENCHMARKS]
    assert len(runs) == len(set(runs))  # a script twice only with other arguments


@pytest.mark.parametrize("benchmark", run_all.BENCHMARKS,
                         ids=lambda b: " ".join((b.script, *b.full)))
def test_each_benchmark_still_runs_at_a_small_size(benchmark) -> None:
    outcome = run_all.run_one(benchmark, benchmark.quick, timeout=600)
    assert not outcome.crashed, outcome.output[-3000:]


def test_a_crash_is_told_from_a_missed_target() -> None:
    def outcome(code: int, output: str):
        return run_all.Outcome(run_all.BENCHMARKS[0], (), code, (), 0.0, 0.0, output)

    assert not outcome(0, "").crashed
    assert not outcome(1, "time ratio 2.3 misses its target (<= 1.15)\n").crashed
    assert outcome(1, "Traceback (most recent call last):\nKeyError: 'x'\n").crashed
    assert outcome(2, "usage: ... target").crashed
    assert outcome(-9, "timed out after 600 s").crashed


def test_the_table_replaces_only_the_marked_block(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# T\n\nbefore\n{run_all.START}\nold table\n{run_all.END}\nafter\n")
    outcomes = [run_all.Outcome(run_all.BENCHMARKS[1], ("--items", "100000"), 0,
                                ("memory ratio dictbench / trivial: 1.42 (target <= 1.5)",),
                                1.04, 212.3, "")]
    block = run_all.table(outcomes, commit="abc1234",
                          when=dt.datetime(2026, 12, 4, 23, 0, tzinfo=dt.UTC))
    run_all.write_between_markers(readme, block)
    text = readme.read_text()
    assert text.startswith("# T\n\nbefore\n<!-- benchmarks:start -->\nFigures of 2026-12-04 23:00")
    assert "| `bench_memory.py --items 100000` | memory ratio dictbench / trivial: 1.42 " \
           "(target <= 1.5) | 0 | 1.04 | 212 s |" in text
    assert "old table" not in text and text.endswith("<!-- benchmarks:end -->\nafter\n")
    run_all.write_between_markers(readme, block)  # again: the same file
    assert readme.read_text() == text


def test_a_file_without_markers_is_refused(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    with pytest.raises(SystemExit, match="needs one <!-- benchmarks:start -->"):
        run_all.write_between_markers(readme, "x\n")
    assert readme.read_text() == "# no markers\n"


def test_a_full_run_refuses_a_file_without_markers_before_running_anything(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full run takes hours: a --write file it cannot fill stops it at the start."""
    ran: list[object] = []
    monkeypatch.setattr(run_all, "run_one", lambda *args: ran.append(args))
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    with pytest.raises(SystemExit, match="needs one <!-- benchmarks:start -->"):
        run_all.main(["--only", "bench_sweep", "--write", str(readme)])
    with pytest.raises(SystemExit, match="cannot be read"):
        run_all.main(["--only", "bench_sweep", "--write", str(tmp_path / "missing.md")])
    assert ran == [] and readme.read_text() == "# no markers\n"


def test_the_overhead_parts_run_every_side_and_name_each() -> None:
    """``bench_plugin_overhead.py --parts``: bare pytest, the whole plugin and each run
    with parts switched off finish (every knocked-out name still exists) and print one
    ratio each; it sets no target, so it exits 0."""
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_plugin_overhead.py"),
                           "--parts", "--items", "20", "--rounds", "1"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    labels = [line.split(" median ")[0].strip() for line in proc.stdout.splitlines()]
    assert labels == ["bare pytest", "dictbench, all of it", "dictbench without end",
                      "dictbench without end, scrub, order", "dictbench without end, record",
                      "dictbench without end, record, score"]
    assert all(" ratio to bare " in line for line in proc.stdout.splitlines())


def test_an_unknown_knockout_part_stops_the_run(pytester: pytest.Pytester,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    monkeypatch.setenv("DICTBENCH_KNOCKOUT", "end,everything")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(ROOT / "benchmarks"), os.environ.get("PYTHONPATH", "")) if p))
    result = pytester.runpytest_subprocess("-p", "overhead_knockouts")
    assert result.ret != 0
    assert "DICTBENCH_KNOCKOUT: unknown parts ['everything']; known: end, scrub" \
        in result.stderr.str()
