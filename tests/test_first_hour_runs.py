"""Findings of clarity-and-first-hour.md about live runs, in real pytest runs: the progress
line counts failed captures apart (CF4)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from adapter_support import write_tone

CASES = [{"id": f"c{i}", "reference": "hello there"} for i in range(1, 5)]
CONFTEST = '''
def pytest_dictbench_transcriber(product):
    def transcribe(request):
        if product.name == "broken":
            raise RuntimeError("the engine is not there")
        return "hello there"
    return transcribe
'''


@pytest.fixture
def live(pytester: pytest.Pytester, write_suite: Callable[..., Path]) -> pytest.Pytester:
    root = write_suite(cases=[dict(c, audio=f"audio/{c['id']}.wav") for c in CASES])
    for case in CASES:
        write_tone(root / "audio" / f"{case['id']}.wav", seconds=0.1)
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    pytester.makeconftest(CONFTEST)
    (pytester.path / "products").mkdir()
    for name in ("ok", "broken"):
        (pytester.path / "products" / f"{name}.toml").write_text(
            f'name = "{name}"\nversion = "1"\nadapter = "python"\n', encoding="utf-8")
    return pytester


def test_cf4_failed_captures_are_errors_not_cached(live: pytest.Pytester) -> None:
    result = live.runpytest("--product=broken", "--product=ok", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, errors=4)
    lines = [line for line in result.outlines if line.startswith("dictbench capture ")]
    assert "dictbench capture broken: 4/4 items (0 captured, 0 cached, 4 errors), 0.0 s " \
           "audio, done" in lines
    again = live.runpytest("--product=ok", "-p", "no:cacheprovider")
    assert [x for x in again.outlines if x.startswith("dictbench capture ")] == [
        "dictbench capture ok: 4/4 items (0 captured, 4 cached), 0.0 s audio, done"]
