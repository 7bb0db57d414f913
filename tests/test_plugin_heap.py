"""A dictbench run keeps its collected objects out of the full garbage collections
while its tests run, and only then."""

from __future__ import annotations

import gc

import pytest


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
    print("SEEN", [(w, n > 0) for w, n in SEEN])
""")
    assert gc.get_freeze_count() == 0
    result = mini.runpytest("--product=p1", "--dictbench-item-failures=report", "-s")
    result.assert_outcomes(passed=3, skipped=1)
    seen = result.stdout.str().split("SEEN ", 1)[1].splitlines()[0]
    assert seen == str([("collected", False)] + [("test", True)] * 3 + [("finished", False)])
    assert gc.get_freeze_count() == 0  # the in-process run left nothing frozen


def test_a_run_without_dictbench_is_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
import gc

def test_one():
    assert gc.get_freeze_count() == 0
""")
    pytester.runpytest().assert_outcomes(passed=1)
