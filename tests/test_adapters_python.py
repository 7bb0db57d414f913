"""The python adapter: a transcriber function from the ``pytest_dictbench_transcriber`` hook."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from adapter_support import cache_lines, make_product, make_suite, write_tone
from support import MINI_CASES

from pytest_dictbench.adapters import BUILTIN_ADAPTERS
from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.live import CaptureRequest, LiveAdapter
from pytest_dictbench.adapters.python import python_adapter
from pytest_dictbench.deferred import resolve
from pytest_dictbench.errors import CaptureError, DictbenchError, ProductError
from pytest_dictbench.model import Suite


class FakeHookRelay:
    """Stands in for ``config.hook``: answers ``pytest_dictbench_transcriber``."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self.calls: list[tuple[str, str]] = []

    def pytest_dictbench_transcriber(self, *, product: Any, suite: Any) -> Any:
        self.calls.append((product.name, suite.id))
        return self.function


def shout(request: CaptureRequest) -> str:
    return f"{request.case_id.upper()} {request.locale}"


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return make_suite(tmp_path / "suite", {"c1": "a/c1.wav", "c2": "a/c2.wav"},
                      locale="fr-FR")


def build(tmp_path: Path, suite: Suite, hook: Any, settings: dict[str, Any] | None = None,
          **options: Any) -> LiveAdapter:
    product = make_product(tmp_path / "products", "python", settings or {})
    return python_adapter(product, suite, AdapterOptions(hook=hook, **options))


def test_the_hooks_function_gets_each_request_after_one_warmup(tmp_path: Path,
                                                                suite: Suite) -> None:
    seen: list[CaptureRequest] = []

    def record(request: CaptureRequest) -> str:
        seen.append(request)
        return shout(request)

    hook = FakeHookRelay(record)
    live = build(tmp_path, suite, hook)
    assert hook.calls == []  # nothing is asked before a capture is needed
    texts = [live.get(case, 1).text for case in suite.cases]
    assert texts == ["C1 fr-FR", "C2 fr-FR"]
    assert hook.calls == [("p1", "mini")]
    assert [(r.case_id, r.warmup) for r in seen] == [("c1", True), ("c1", False), ("c2", False)]
    assert seen[1].audio == (suite.root / "a/c1.wav").resolve() and seen[1].language == "fr"
    line = json.loads(cache_lines(live.product, suite)[0])
    assert line["engine"] == f"{__name__}.test_the_hooks_function_gets_each_request_after_" \
                             "one_warmup.<locals>.record"


def test_a_fully_cached_run_does_not_need_the_plugin(tmp_path: Path, suite: Suite) -> None:
    first = build(tmp_path, suite, FakeHookRelay(shout))
    for case in suite.cases:
        first.get(case, 1)
    absent = FakeHookRelay(None)
    again = build(tmp_path, suite, absent)
    assert [again.get(case, 1).text for case in suite.cases] == ["C1 fr-FR", "C2 fr-FR"]
    assert absent.calls == []


def test_engine_metadata_can_be_set_in_settings(tmp_path: Path, suite: Suite) -> None:
    settings = {"engine": "my-asr", "engine_version": "2.1", "model": "large"}
    live = build(tmp_path, suite, FakeHookRelay(shout), settings, warmup=False)
    live.get(suite.cases[0], 1)
    line = json.loads(cache_lines(live.product, suite)[0])
    assert (line["engine"], line["engine_version"], line["model"]) == ("my-asr", "2.1", "large")


def test_a_failing_function_gives_an_error_output(tmp_path: Path, suite: Suite) -> None:
    def refuse(request: CaptureRequest) -> str:
        raise CaptureError("quota exceeded")

    output = build(tmp_path, suite, FakeHookRelay(refuse), warmup=False).get(suite.cases[0], 1)
    assert output is not None and (output.status, output.error) == ("error", "quota exceeded")


@pytest.mark.parametrize(("hook", "message"), [
    (FakeHookRelay(None), "no plugin provided a transcriber for product 'p1'"),
    (FakeHookRelay("not a function"), "not callable"),
    (None, "needs pytest's hook relay"),
])
def test_no_usable_function_is_an_error_for_the_item(tmp_path: Path, suite: Suite,
                                                     hook: Any, message: str) -> None:
    live = build(tmp_path, suite, hook)
    with pytest.raises(ProductError, match=message):
        live.get(suite.cases[0], 1)
    assert cache_lines(live.product, suite) == []


def test_corrupt_audio_is_caught_before_the_function_is_called(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    (suite.root / "c1.wav").write_bytes(b"RIFF....WAVEjunk")
    called: list[CaptureRequest] = []
    live = build(tmp_path, suite, FakeHookRelay(called.append), warmup=False)
    with pytest.raises(DictbenchError, match=r"c1\.wav"):
        live.get(suite.cases[0], 1)
    assert called == []


def test_unknown_settings_are_refused(tmp_path: Path, suite: Suite) -> None:
    with pytest.raises(ProductError, match=r"unknown key.*callable"):
        build(tmp_path, suite, None, {"callable": "x:y"})


def test_builtin_adapter_kinds() -> None:
    assert set(BUILTIN_ADAPTERS) == {"command", "http", "whisper", "python", "pipeline", "openai",
                                     "deepgram", "gemini", "assemblyai", "elevenlabs",
                                     "speechmatics", "azure", "desktop", "deepgram-live",
                                     "assemblyai-streaming", "openai-realtime",
                                     "speechmatics-rt", "soniox-rt", "whisper-streaming"}
    assert resolve(BUILTIN_ADAPTERS["python"]) is python_adapter


CONFTEST = '''
from pathlib import Path

ANSWERS = {"c1": "Hello Maria, see you at noon.", "c2": "Please send the invoice on Monday."}

def pytest_dictbench_transcriber(product):
    if product.name != "py1":
        return None

    def transcribe(request):
        with open(Path(__file__).parent / "calls.log", "a") as log:
            log.write(f"{request.case_id} {request.warmup}\\n")
        return ANSWERS[request.case_id]

    return transcribe
'''


def test_end_to_end_capture_once_then_score_from_the_cache(
        pytester: pytest.Pytester, write_suite: Callable[..., Path]) -> None:
    """Needs plugin.py to register BUILTIN_ADAPTERS and pass ``hook=config.hook``."""
    cases = [dict(c, audio=f"audio/{c['id']}.wav") for c in MINI_CASES[:2]]
    root = write_suite(cases=cases)
    for case in cases:
        write_tone(root / case["audio"])
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    pytester.makeconftest(CONFTEST)
    (pytester.path / "products").mkdir()
    (pytester.path / "products" / "py1.toml").write_text(
        'name = "py1"\nversion = "1"\nadapter = "python"\n', encoding="utf-8")
    result = pytester.runpytest("--product=py1", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    log = (pytester.path / "calls.log").read_text().splitlines()
    assert log == ["c1 True", "c1 False", "c2 False"]
    outputs = pytester.path / "products" / "py1" / "mini.jsonl"
    assert len(outputs.read_text().splitlines()) == 2
    result = pytester.runpytest("--product=py1", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    assert (pytester.path / "calls.log").read_text().splitlines() == log  # all from cache


def test_an_empty_transcript_is_a_complete_result_and_too_long_a_one_an_error(
        tmp_path: Path, suite: Suite) -> None:
    live = build(tmp_path, suite, FakeHookRelay(lambda request: ""), warmup=False)
    output = live.get(suite.cases[0], 1)
    assert output is not None and (output.status, output.text) == ("complete", "")
    long = build(tmp_path / "other", suite, FakeHookRelay(lambda request: "x" * 11),
                 warmup=False, max_text_chars=10)
    output = long.get(suite.cases[1], 1)
    assert output is not None and output.status == "error"
    assert output.error == ("transcript has 11 characters, more than the limit of 10 "
                            "(--dictbench-max-text-chars)")
