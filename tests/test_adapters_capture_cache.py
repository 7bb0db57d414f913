"""The capture cache file: atomic replace, locking across processes, resume after kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from adapter_support import make_suite

from pytest_dictbench.adapters.capture_cache import CaptureCache, line_key
from pytest_dictbench.errors import OutputError
from pytest_dictbench.model import Suite
from pytest_dictbench.products import read_outputs

CASE_IDS = [f"c{n}" for n in range(1, 9)]


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return make_suite(tmp_path / "suite", {c: f"audio/{c}.wav" for c in CASE_IDS})


def lines_of(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_put_replaces_the_line_of_the_same_case_and_repetition(tmp_path: Path,
                                                               suite: Suite) -> None:
    cache = CaptureCache(tmp_path / "out" / "mini.jsonl", suite)
    assert cache.read() == {}
    cache.put({"case_id": "c1", "repetition": 1, "text": "one"})
    cache.put({"case_id": "c2", "repetition": 1, "text": "two"})
    cache.put({"case_id": "c1", "repetition": 2, "text": "one again"})
    cache.put({"case_id": "c1", "repetition": 1, "text": "ONE"})
    rows = lines_of(cache.path)
    assert sorted((r["case_id"], r["repetition"], r["text"]) for r in rows) == [
        ("c1", 1, "ONE"), ("c1", 2, "one again"), ("c2", 1, "two")]
    assert {k: o.text for k, o in cache.read().items()} == {
        ("c1", 1): "ONE", ("c1", 2): "one again", ("c2", 1): "two"}
    assert list(cache.path.parent.glob("*.tmp")) == []


def test_hand_written_lines_are_kept_verbatim(tmp_path: Path, suite: Suite) -> None:
    path = tmp_path / "mini.jsonl"
    path.write_text('{"id": "c3", "text": "by hand",   "latency_ms": 5}\n', encoding="utf-8")
    CaptureCache(path, suite).put({"case_id": "c1", "repetition": 1, "text": "x"})
    assert path.read_text(encoding="utf-8").splitlines()[0] == (
        '{"id": "c3", "text": "by hand",   "latency_ms": 5}')


def test_torn_tail_and_stale_temporaries_are_cleaned_on_the_next_write(
        tmp_path: Path, suite: Suite) -> None:
    path = tmp_path / "mini.jsonl"
    path.write_text('{"case_id": "c1", "text": "kept"}\n{"case_id": "c2", "te',
                    encoding="utf-8")
    (tmp_path / ".mini.jsonl.abc123.tmp").write_text("half a file")
    cache = CaptureCache(path, suite)
    assert set(cache.read()) == {("c1", 1)}  # the torn tail is tolerated when reading
    cache.put({"case_id": "c3", "repetition": 1, "text": "new"})
    assert [r["case_id"] for r in lines_of(path)] == ["c1", "c3"]
    assert not (tmp_path / ".mini.jsonl.abc123.tmp").exists()


def test_a_malformed_line_in_the_middle_is_an_error_naming_the_line(
        tmp_path: Path, suite: Suite) -> None:
    path = tmp_path / "mini.jsonl"
    path.write_text('{"case_id": "c1", "text": "a"}\nnot json\n{"case_id": "c2", "text": "b"}\n',
                    encoding="utf-8")
    with pytest.raises(OutputError, match=r"mini\.jsonl:2: malformed JSON"):
        CaptureCache(path, suite).read()


def test_line_key_defaults_the_repetition_and_accepts_id() -> None:
    assert line_key({"id": "a"}) == ("a", 1)
    assert line_key({"case_id": "a", "repetition": 3}) == ("a", 3)
    assert line_key({"text": "no id"}) is None


WRITER = """
import sys
from pathlib import Path
from pytest_dictbench.adapters.capture_cache import CaptureCache
from pytest_dictbench.model import Case, Suite
ids = [f"w{w}-{n}" for w in (1, 2) for n in range(40)]
suite = Suite("mini", "1", "t", "error_rate", "en-US", "canary-xx", Path("."),
              tuple(Case(i, {"id": i}) for i in ids))
cache = CaptureCache(Path(sys.argv[1]), suite)
for n in range(40):
    cache.put({"case_id": f"w{sys.argv[2]}-{n}", "repetition": 1, "text": "x" * 2000})
"""


def test_two_processes_writing_at_once_lose_no_line(tmp_path: Path) -> None:
    path = tmp_path / "mini.jsonl"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w)])
               for w in (1, 2)]
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    keys = [(r["case_id"], r["repetition"]) for r in lines_of(path)]
    assert len(keys) == len(set(keys)) == 80


DRIVER = """
import json, sys
from pathlib import Path
from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.command import command_adapter
from pytest_dictbench.model import Case, Product, Suite
config = json.loads(sys.argv[1])
root = Path(config["root"])
Path(config["products"]).mkdir(exist_ok=True)
suite = Suite("mini", "1", "t", "error_rate", "en-US", "canary-xx", root, tuple(
    Case(c, {"id": c, "audio": f"audio/{c}.wav"}, n) for n, c in enumerate(config["cases"], 1)))
product = Product("slow", "1.0", "command", Path(config["products"]) / "slow.toml",
                  {"command": [sys.executable, config["script"], "{audio}", "{case_id}"]})
adapter = command_adapter(product, suite, AdapterOptions())
for case in suite.cases:
    output = adapter.get(case, 1)
    print("got", case.id, output.status, flush=True)
"""

SLOW_PRODUCT = """
import sys, time
with open(sys.argv[0] + ".calls", "a") as log:
    log.write(sys.argv[2] + "\\n")
time.sleep(0.2)
print("heard", sys.argv[2])
"""


def test_a_run_killed_with_sigkill_resumes_without_duplicates_or_losses(
        tmp_path: Path, suite: Suite) -> None:
    script = tmp_path / "slow_product.py"
    script.write_text(SLOW_PRODUCT, encoding="utf-8")
    config = json.dumps({"root": str(suite.root), "cases": CASE_IDS,
                         "products": str(tmp_path / "products"), "script": str(script)})
    out_file = tmp_path / "products" / "slow" / "mini.jsonl"
    calls = Path(f"{script}.calls")

    first = subprocess.Popen([sys.executable, "-c", DRIVER, config], stdout=subprocess.PIPE,
                             text=True)
    assert first.stdout is not None
    got = [first.stdout.readline() for _ in range(3)]
    deadline = time.monotonic() + 10
    while "c4" not in calls.read_text().split() and time.monotonic() < deadline:
        time.sleep(0.01)  # wait until the fourth capture is under way
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    assert all(g.startswith("got c") for g in got)
    before = {r["case_id"]: r for r in lines_of(out_file)}
    assert 3 <= len(before) < len(CASE_IDS)
    assert all(r["status"] == "complete" for r in before.values())
    first_calls = calls.read_text().split()

    second = subprocess.run([sys.executable, "-c", DRIVER, config], capture_output=True,
                            text=True, timeout=60)
    assert second.returncode == 0, second.stderr
    rows = lines_of(out_file)
    assert sorted(r["case_id"] for r in rows) == sorted(CASE_IDS)  # each exactly once
    outputs = read_outputs(out_file, suite)  # the file parses and has no duplicate
    assert {k[0]: o.text for k, o in outputs.items()} == {c: f"heard {c}" for c in CASE_IDS}
    for row in rows:  # lines written before the kill were kept untouched
        if row["case_id"] in before:
            assert row == before[row["case_id"]]
    # The resumed run captured only what was missing (plus its own warm-up on c1).
    second_calls = calls.read_text().split()[len(first_calls):]
    assert sorted(second_calls[1:]) == sorted(set(CASE_IDS) - set(before))
    assert second_calls[0] == "c1"


def test_a_new_capture_is_appended_not_a_rewrite_of_the_file(tmp_path: Path,
                                                             suite: Suite) -> None:
    cache = CaptureCache(tmp_path / "mini.jsonl", suite)
    cache.put({"case_id": "c1", "repetition": 1, "text": "one"})
    inode, before = cache.path.stat().st_ino, cache.path.read_bytes()
    cache.put({"case_id": "c2", "repetition": 1, "text": "two"})
    assert cache.path.stat().st_ino == inode  # the same file, grown in place
    assert cache.path.read_bytes().startswith(before)
    # A writer in another process added a line: the next put sees it, adds no duplicate.
    other = CaptureCache(cache.path, suite)
    other.put({"case_id": "c3", "repetition": 1, "text": "three"})
    cache.put({"case_id": "c3", "repetition": 1, "text": "THREE"})
    rows = lines_of(cache.path)
    assert [(r["case_id"], r["text"]) for r in rows] == [
        ("c1", "one"), ("c2", "two"), ("c3", "THREE")]


def test_a_torn_tail_is_cut_off_before_appending_and_a_hand_line_gets_its_newline(
        tmp_path: Path, suite: Suite) -> None:
    path = tmp_path / "mini.jsonl"
    path.write_bytes('{"case_id": "c1", "text": "kept"}\n{"case_id": "c2", "text": "東'
                     .encode()[:-1])  # cut inside a UTF-8 sequence
    cache = CaptureCache(path, suite)
    assert set(cache.read()) == {("c1", 1)}
    cache.put({"case_id": "c2", "repetition": 1, "text": "again"})
    assert [(r["case_id"], r["text"]) for r in lines_of(path)] == [("c1", "kept"),
                                                                   ("c2", "again")]
    path.write_text('{"case_id": "c1", "text": "no newline"}', encoding="utf-8")
    CaptureCache(path, suite).put({"case_id": "c2", "repetition": 1, "text": "b"})
    assert [r["case_id"] for r in lines_of(path)] == ["c1", "c2"]
