"""``dictbench combine`` (issue 49): two rigs with no shared controller run at the same time,
each recording its run in one store (a SQLite file, or the PostgreSQL server .ci/run
starts); one command builds one report set from both runs, and refuses runs that do not
belong together."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from adapter_support import live_project
from store_support import store_url
from support import MINI_CASES

from pytest_dictbench.combine import output_line
from pytest_dictbench.store import StoreError, open_store

#: a says every reference; b drops the last word of each. Latencies are real.
CONFTEST = f'''
SAID = {json.dumps({c["id"]: c["reference"] for c in MINI_CASES})}

def pytest_dictbench_transcriber(product):
    def transcribe(request):
        words = SAID[request.case_id].split()
        return " ".join(words if product.name == "a" else words[:-1])
    return transcribe
'''


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from store_url(request.param, tmp_path)


@pytest.fixture
def project(pytester: pytest.Pytester, write_suite: Callable[..., Path]) -> Path:
    return live_project(pytester, write_suite, MINI_CASES, CONFTEST, ("a", "b")).path


def checkout(project: Path, name: str) -> Path:
    copy = project.parent / f"{project.name}-{name}"
    shutil.copytree(project, copy)
    return copy


def rig_runs(project: Path, url: str, products: dict[str, str]) -> dict[str, Path]:
    """Each rig (its own checkout) runs its product at the same time as the others."""
    folders = {rig: checkout(project, rig) for rig in products}
    procs = {rig: subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--product={p}",
         f"--dictbench-store={url}", "--dictbench-item-failures=report"],
        cwd=folders[rig], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for rig, p in products.items()}
    for rig, proc in procs.items():
        out, _ = proc.communicate(timeout=240)
        assert proc.returncode == 0, f"{rig}:\n{out}"
    return folders


def combine(cwd: Path, url: str, *runs: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest_dictbench.cli", "combine", *runs,
                           "--store", url, "--out", "combined"],
                          cwd=cwd, capture_output=True, text=True, timeout=240)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_two_rigs_combine_into_one_report_set(project: Path, url: str) -> None:
    rigs = rig_runs(project, url, {"rig1": "a", "rig2": "b"})
    store = open_store(url)
    runs = store.runs()
    store.close()
    assert sorted(p for r in runs for p in r.products) == ["a", "b"]
    controller = checkout(project, "controller")
    result = combine(controller, url, *(r.run_id for r in runs))
    assert result.returncode == 0, result.stdout + result.stderr
    reports = controller / "combined" / "reports"
    combined = json.loads((reports / "dictbench.json").read_text())
    [suite] = combined["suites"]
    entries = {e["product"]: e for e in suite["products"]}
    assert sorted(entries) == ["a", "b"]
    for rig, product in (("rig1", "a"), ("rig2", "b")):
        own = json.loads((rigs[rig] / "reports" / "dictbench.json").read_text())
        [own_entry] = own["suites"][0]["products"]
        for key in ("score", "score_ci", "passed", "failed", "items", "latency", "speed",
                    "environment", "version"):
            assert entries[product][key] == own_entry[key], (product, key)
        assert entries[product]["adapter"] == "cache"
        # item by item: the text, latency and score the rig measured
        mine = {r["case_id"]: r for r in records(rigs[rig] / "reports" / "items.jsonl")}
        for record in records(reports / "items.jsonl"):
            if record["product"] == product:
                theirs = mine[record["case_id"]]
                for key in ("text", "latency_ms", "rtf", "score", "status", "environment"):
                    assert record[key] == theirs[key], (product, record["case_id"], key)
    # the two products are compared in one report: the pair a–b, on every shared case
    [comparison] = suite["comparisons"]
    assert {comparison["a"], comparison["b"]} == {"a", "b"}
    assert entries["a"]["score"] == 100.0 and entries["b"]["score"] < 100.0


def test_runs_that_do_not_belong_together_are_refused(project: Path, url: str) -> None:
    rig_runs(project, url, {"rig1": "a"})
    store = open_store(url)
    [first] = store.runs()
    store.close()
    # the same product again, from another run
    rig_runs(project, url, {"rig2": "a"})
    # a rig whose suite is at another version
    other = checkout(project, "rig3")
    manifest = other / "cases" / "mini" / "suite.toml"
    manifest.write_text(manifest.read_text().replace('version = "1.0"', 'version = "1.1"'))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           "--product=b", f"--dictbench-store={url}",
                           "--dictbench-item-failures=report"],
                          cwd=other, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout
    store = open_store(url)
    first_id, twice, newer = (r.run_id for r in store.runs())
    store.close()
    assert first_id == first.run_id
    controller = checkout(project, "controller")
    for runs, message in (
            ((first_id, twice), "product 'a' is in runs"),
            ((first_id, newer), "different suites or suite versions (mini@1.0 vs mini@1.1)"),
            ((first_id,), "name two or more runs"),
            ((first_id, first_id), "a run is named twice")):
        result = combine(controller, url, *runs)
        assert result.returncode != 0
        assert message in result.stdout + result.stderr, result.stdout + result.stderr
        assert not (controller / "combined" / "reports").exists()


def test_an_output_line_from_each_kind_of_record() -> None:
    scored = {"case_id": "c1", "repetition": 2, "status": "failed", "output_status": "complete",
              "text": "hi", "latency_ms": 12.5, "rtf": 0.1, "audio_duration_s": 1.5,
              "environment": {"os": "x"}, "score": 0.0}
    assert output_line(scored) == {"case_id": "c1", "repetition": 2, "status": "complete",
                                   "text": "hi", "latency_ms": 12.5, "rtf": 0.1,
                                   "audio_duration_s": 1.5, "environment": {"os": "x"}}
    error = {"case_id": "c2", "status": "error", "output_status": "complete", "text": None,
             "message": "capture error: boom"}
    assert output_line(error) == {"case_id": "c2", "repetition": 1, "status": "error",
                                  "error": "capture error: boom"}
    skipped = {"case_id": "c3", "status": "not_tested", "output_status": "unsupported"}
    assert output_line(skipped)["status"] == "unsupported"
    assert issubclass(StoreError, Exception)
