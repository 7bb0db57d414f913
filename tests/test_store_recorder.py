"""A run recorded by a child process (``report.recorder``): it follows the item spool
while the tests run, writes the run once the report is made, and commits only when
told; the store holds what a recording in the run's own process would, secrets
scrubbed alike; a child that fails or dies leaves the run to the run's own process."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_support import facts, record, report_for, store_url

from pytest_dictbench.plugin import session as session_module
from pytest_dictbench.plugin import store as plugin_store
from pytest_dictbench.redact import register_secret
from pytest_dictbench.report.items import ItemStore
from pytest_dictbench.report.recorder import Recorded, StoreRecorder
from pytest_dictbench.store import open_store, store_location


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from store_url(request.param, tmp_path)


def _spooled(records: list[dict]) -> ItemStore:
    items = ItemStore()
    items.expect(len(records))
    for i, r in enumerate(records):
        items.add(f"n{i}", json.dumps(r, sort_keys=True, separators=(",", ":")))
    return items


def _started(url: str, items: ItemStore, follow: bool = True) -> StoreRecorder:
    recorder = StoreRecorder.start(url, items.spool_fd(), follow)
    assert recorder is not None
    return recorder


RECORDS = [record("c1", 90.0), record("c2", 40.0), record("c3", None, status="error",
                                                           text=None)]


@pytest.mark.parametrize("follow", [True, False], ids=["following", "at-the-end"])
def test_the_child_records_what_this_process_would(url: str, follow: bool) -> None:
    items = _spooled(RECORDS[:1])
    recorder = _started(url, items, follow)
    for i, r in enumerate(RECORDS[1:], start=1):  # added after the child started
        items.add(f"n{i}", json.dumps(r, sort_keys=True, separators=(",", ":")))
    items.add("n0", json.dumps(RECORDS[0] | {"score": 95.0}, sort_keys=True,
                               separators=(",", ":")))  # a rerun: the last line wins
    items.records()
    expected = [RECORDS[0] | {"score": 95.0}, *RECORDS[1:]]
    report = json.dumps(report_for(expected))
    assert recorder.record(facts("child", expected), report, "{}\n", items.places(), 5)
    done = recorder.finish(commit=True)
    recorder.close()
    assert isinstance(done, Recorded) and done.run_id == "child" and done.store_error is None
    store = open_store(url)
    try:
        store.record_run(facts("here", expected), report, "{}\n",
                         [(json.loads(line), line.rstrip("\n")) for line in items.lines()])
        assert store.item_lines("child") == store.item_lines("here")
        assert [json.loads(line)["score"] for line in store.item_lines("child")] == \
            [95.0, 40.0, None]
        assert store.report("child") == store.report("here") == report
        assert store.summaries("s1", "p1")[0].score == store.summaries("s1", "p1")[1].score
    finally:
        store.close()
        items.close()


def test_the_child_scrubs_the_secrets_this_process_knows(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/store.sqlite"
    items = _spooled(RECORDS)
    recorder = _started(url, items)
    secret = "sk-recorder-" + os.urandom(8).hex()
    register_secret(secret, "RECORDER_KEY")  # registered here after the child started
    report = json.dumps(report_for(RECORDS) | {"note": f"key {secret} leaked"})
    items.records()
    assert recorder.record(facts("r1", RECORDS), report, f'{{"x": "{secret}"}}\n',
                           items.places(), 5)
    assert recorder.finish(commit=True) is not None
    recorder.close()
    store = open_store(url)
    try:
        assert secret not in store.report("r1") and "<redacted>" in store.report("r1")
        assert secret not in store.run_info("r1")
    finally:
        store.close()
        items.close()


def test_abandoned_or_dead_children_record_nothing(url: str) -> None:
    items = _spooled(RECORDS)
    items.records()
    report = json.dumps(report_for(RECORDS))
    abandoned = _started(url, items)
    assert abandoned.record(facts("gone", RECORDS), report, "{}\n", items.places(), 5)
    assert abandoned.finish(commit=False) is None  # rolled back: record it here
    dead = _started(url, items)
    assert dead.record(facts("dead", RECORDS), report, "{}\n", items.places(), 5)
    assert dead._child is not None
    dead._child.process.kill()
    assert dead.finish(commit=True) is None
    store = open_store(url)
    try:
        assert store.runs() == []
    finally:
        store.close()
        items.close()


@pytest.fixture
def recorded_by_child(monkeypatch: pytest.MonkeyPatch) -> list[Recorded | None]:
    """Any run of at least 2 items records through the child (not from 2,000); what each
    child answered."""
    monkeypatch.setattr(session_module, "HELPER_ITEMS", 2)
    answers: list[Recorded | None] = []
    finish = StoreRecorder.finish

    def spy(self: StoreRecorder, commit: bool) -> Recorded | None:
        answers.append(finish(self, commit))
        return answers[-1]

    monkeypatch.setattr(StoreRecorder, "finish", spy)
    return answers


@pytest.mark.parametrize("parsed_items", [20_000, 2], ids=["following", "large-run"])
def test_a_run_recorded_by_the_child_is_the_run_recorded_here(
        mini: pytest.Pytester, recorded_by_child: list[Recorded | None],
        monkeypatch: pytest.MonkeyPatch, parsed_items: int) -> None:
    monkeypatch.setattr(plugin_store, "PARSED_ITEMS", parsed_items)  # 2: read at the end
    mini.runpytest("--product=p1", "--dictbench-store=child.sqlite")
    [answer] = recorded_by_child
    assert answer is not None and answer.run_id is not None
    monkeypatch.setattr(session_module, "HELPER_ITEMS", 10**9)  # no child now
    mini.runpytest("--product=p1", "--dictbench-store=here.sqlite")
    assert len(recorded_by_child) == 1  # no child the second time
    child = open_store(store_location("child.sqlite", mini.path))
    here = open_store(store_location("here.sqlite", mini.path))
    try:
        [a], [b] = child.runs(), here.runs()
        assert a.run_id == answer.run_id
        assert child.item_lines(a.run_id) == here.item_lines(b.run_id)
        assert child.report(a.run_id) == here.report(b.run_id)
        assert (a.items, a.exit_status, a.complete) == (b.items, b.exit_status, b.complete)
        assert child.case_scores("mini", "p1", [a.run_id])[a.run_id] == \
            here.case_scores("mini", "p1", [b.run_id])[b.run_id]
    finally:
        child.close()
        here.close()


def test_a_child_that_dies_leaves_the_run_to_this_process(
        mini: pytest.Pytester, recorded_by_child: list[Recorded | None],
        monkeypatch: pytest.MonkeyPatch) -> None:
    record_in_child = StoreRecorder.record

    def die_first(self: StoreRecorder, *args: object) -> bool:
        assert self._child is not None
        self._child.process.kill()
        self._child.process.wait()
        return record_in_child(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(StoreRecorder, "record", die_first)
    result = mini.runpytest("--product=p1")
    assert "was not recorded" not in result.stdout.str()
    result.stdout.fnmatch_lines(["dictbench: recorded run * in *store.sqlite*"])
    store = open_store(store_location(".dictbench/store.sqlite", mini.path))
    try:
        [run] = store.runs()
        assert run.items == 4 and len(store.item_lines(run.run_id)) == 4
    finally:
        store.close()


def test_a_run_the_child_committed_is_never_recorded_twice(
        mini: pytest.Pytester, recorded_by_child: list[Recorded | None],
        monkeypatch: pytest.MonkeyPatch) -> None:
    finish = StoreRecorder.finish

    def answer_lost(self: StoreRecorder, commit: bool) -> None:
        finish(self, commit)  # committed; its answer never arrives
        return None

    monkeypatch.setattr(StoreRecorder, "finish", answer_lost)
    result = mini.runpytest("--product=p1")
    result.stdout.fnmatch_lines(["*the run was not recorded*: run * is already recorded*"])
    store = open_store(store_location(".dictbench/store.sqlite", mini.path))
    try:
        [run] = store.runs()  # the child's, once
        assert run.items == 4
    finally:
        store.close()
