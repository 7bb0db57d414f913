"""Constants and small helpers shared by the plugin tests."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest

CANARY = "DICTBENCH-CANARY test-suite 00000000-0000-4000-8000-000000000000"

#: conftest source of an adapter ``echo`` whose output is each case's reference (a
#: product that is not cached: ``adapter = "echo"``).
ECHO_ADAPTER = '''
from pytest_dictbench.model import Output

class Echo:
    def __init__(self, product, suite, options):
        pass
    def get(self, case, repetition):
        return Output(case.id, case.get("reference"), repetition)

def pytest_dictbench_adapters():
    return {"echo": Echo}
'''

MINI_CASES = [
    {"id": "c1", "genre": "chat", "tags": ["names"], "reference": "Hello Maria, see you at noon."},
    {"id": "c2", "genre": "email", "reference": "Please send the invoice by Friday."},
    {"id": "c3", "genre": "chat", "reference": "The meeting moved to room four."},
    {"id": "c4", "genre": "notes", "tags": ["list"], "reference": "Buy milk, eggs and bread."},
]


def jsonl(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def stopped_run(project: pytest.Pytester, line: str, *args: str) -> None:
    """A run with ``args`` (by default ``--product=p1``) is stopped (bad input found
    while collecting) with ``line`` in its output."""
    result = project.runpytest(*(args or ("--product=p1",)))
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([line])


def usage_error(project: pytest.Pytester, line: str, *args: str) -> None:
    """A run with ``args`` (by default ``--product=p1``) is a usage error with ``line``
    on stderr."""
    result = project.runpytest(*(args or ("--product=p1",)))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([line])
