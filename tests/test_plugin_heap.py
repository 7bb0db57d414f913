"""A dictbench run keeps its collected objects out of the full garbage collections
from the start of its tests until pytest's last cleanup, and only then."""

from __future__ import annotations

import gc

import pytest

from pytest_dictbench.heap import HeldHeap


def test_the_heap_is_frozen_while_the_tests_run_and_unfrozen_after(
        mini: pytest.Pytester) -> None:
    mini.makeconftest("""
import gc, pytest
SEEN = []

@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    SEEN.append(("collected", gc.get_freeze_count()))

def pytest_runtest_call(item):
    SEEN.append(("test", gc.get_freeze_count()))

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    SEEN.append(("finished", gc.get_freeze_count()))

def pytest_terminal_summary(terminalreporter):
    SEEN.append(("summary", gc.get_freeze_count()))

@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    SEEN.append(("unconfigured", gc.get_freeze_count()))

def pytest_configure(config):  # a cleanup like pytest's own (unraisableexception's)
    def cleanup():
        SEEN.append(("cleanup", gc.get_freeze_count()))
        print("SEEN", [(w, n > 0) for w, n in SEEN])
    config.add_cleanup(cleanup)
""")
    assert gc.get_freeze_count() == 0
    result = mini.runpytest("--product=p1", "--dictbench-item-failures=report", "-s")
    result.assert_outcomes(passed=3, skipped=1)
    seen = result.stdout.str().split("SEEN ", 1)[1].splitlines()[0]
    # held through unconfigure: pytest's own end-of-run collections skip it; a cleanup
    # registered before pytest's plugins configure lets it go after theirs
    assert seen == str([("collected", False)] + [("test", True)] * 3 + [
        ("finished", True), ("summary", True), ("unconfigured", True), ("cleanup", True)])
    assert gc.get_freeze_count() == 0  # the in-process run left nothing frozen


def test_a_heap_frozen_by_someone_else_stays_frozen(mini: pytest.Pytester) -> None:
    """An embedding program's freeze is its own: the run neither adds to it nor ends it."""
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        mini.runpytest("--product=p1", "--dictbench-item-failures=report").assert_outcomes(
            passed=3, skipped=1)
        # still frozen, nothing added (frozen objects freed by their last reference
        # leave the count as ever)
        assert 0 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


def test_a_held_heap_takes_more_at_each_hold_and_lets_go_once() -> None:
    heap = HeldHeap()
    try:
        heap.hold()
        first = gc.get_freeze_count()
        kept = [[i] for i in range(1000)]  # objects made after the first hold
        heap.hold()
        assert gc.get_freeze_count() >= first + len(kept)
    finally:
        heap.let_go()
    heap.let_go()  # a second let-go changes nothing
    assert gc.get_freeze_count() == 0 and not heap.holding


def test_a_run_without_dictbench_is_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
import gc

def test_one():
    assert gc.get_freeze_count() == 0
""")
    pytester.runpytest().assert_outcomes(passed=1)
