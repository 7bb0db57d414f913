"""LiveAdapter: cache reuse, capture on a miss, warm-up, errors, recapture, audio checks."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from adapter_support import cache_lines, make_product, make_suite, write_tone

from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.cache import CacheAdapter
from pytest_dictbench.adapters.live import CaptureRequest, LiveAdapter, warmup_audio
from pytest_dictbench.adapters.settings import public_settings
from pytest_dictbench.audio.io import sha256_file
from pytest_dictbench.errors import CaptureError, DictbenchError
from pytest_dictbench.model import Suite, SuiteFile
from pytest_dictbench.products import read_outputs


class FakeTranscriber:
    """Answers ``text of <case>``; can be told to fail or to take time."""

    decodes_audio = False

    def __init__(self, fail: Callable[[CaptureRequest], Exception | None] = lambda r: None,
                 delay_s: float = 0.0, prefix: str = "text of") -> None:
        self.requests: list[CaptureRequest] = []
        self.fail, self.delay_s, self.prefix = fail, delay_s, prefix

    def describe(self) -> dict[str, Any]:
        return {"engine": "fake", "engine_version": "9.9", "model": "m1", "extra": 1}

    def transcribe(self, request: CaptureRequest) -> str:
        self.requests.append(request)
        if self.delay_s:
            time.sleep(self.delay_s)
        problem = self.fail(request)
        if problem is not None:
            raise problem
        return f"{self.prefix} {request.case_id}"


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return make_suite(tmp_path / "suite", {"c1": "audio/c1.wav", "c2": "audio/c2.wav",
                                           "c3": "audio/c3.wav"})


def adapter_for(tmp_path: Path, suite: Suite, fake: FakeTranscriber, *,
                version: str = "1.0", settings: dict[str, Any] | None = None,
                **options: Any) -> LiveAdapter:
    product = make_product(tmp_path / "products", "fake", settings or {"timeout_s": 5},
                           version=version)
    return LiveAdapter(product, suite, AdapterOptions(**options), lambda: fake)


def test_miss_captures_with_metadata_and_rerun_reuses_the_cache(tmp_path: Path,
                                                                 suite: Suite) -> None:
    fake = FakeTranscriber()
    adapter = adapter_for(tmp_path, suite, fake)
    outputs = [adapter.get(case, 1) for case in suite.cases]
    assert [o.text for o in outputs] == ["text of c1", "text of c2", "text of c3"]
    assert adapter.captures == 3 and adapter.warmups == 1
    line = json.loads(cache_lines(adapter.product, suite)[0])
    assert line["case_id"] == "c1" and line["repetition"] == 1
    assert line["status"] == "complete" and line["error"] is None
    assert line["product_version"] == "1.0"
    assert (line["engine"], line["engine_version"], line["model"], line["extra"]) == (
        "fake", "9.9", "m1", 1)
    assert line["settings"] == {"timeout_s": 5}
    assert line["audio_sha256"] == sha256_file(suite.root / "audio/c1.wav")
    assert line["audio_duration_s"] == pytest.approx(0.5)
    assert line["started_utc"].endswith("Z") and line["warmup"] == "done"
    # A second process (new adapter) finds everything cached: no capture, no warm-up.
    again = FakeTranscriber(prefix="NEW")
    rerun = adapter_for(tmp_path, suite, again)
    assert [rerun.get(case, 1).text for case in suite.cases] == [o.text for o in outputs]
    assert again.requests == [] and rerun.warmups == 0
    # Score many: the plain cache adapter reads the very same file.
    cached = CacheAdapter(adapter.product, suite, AdapterOptions())
    assert cached.get(suite.cases[1], 1).text == "text of c2"


def test_latency_and_real_time_factor(tmp_path: Path, suite: Suite) -> None:
    adapter = adapter_for(tmp_path, suite, FakeTranscriber(delay_s=0.1), warmup=False)
    output = adapter.get(suite.cases[0], 1)
    assert output.latency_ms is not None and output.latency_ms >= 100
    # rtf = processing seconds / audio seconds; the tone lasts 0.5 s.
    assert output.meta["rtf"] == pytest.approx(output.latency_ms / 1000 / 0.5, abs=1e-5)


def test_one_warmup_per_instance_on_the_first_case_audio_and_not_cached(
        tmp_path: Path, suite: Suite) -> None:
    fake = FakeTranscriber()
    adapter = adapter_for(tmp_path, suite, fake)
    adapter.get(suite.cases[1], 1)
    adapter.get(suite.cases[2], 1)
    assert [r.warmup for r in fake.requests] == [True, False, False]
    assert fake.requests[0].audio == (suite.root / "audio/c1.wav").resolve()
    assert sorted(json.loads(x)["case_id"] for x in cache_lines(adapter.product, suite)) == [
        "c2", "c3"]


def test_declared_warmup_audio_is_used(tmp_path: Path) -> None:
    root = tmp_path / "suite"
    write_tone(root / "warm.wav")
    suite = make_suite(root, {"c1": "c1.wav"}, manifest={"warmup_audio": "warm.wav"})
    assert warmup_audio(suite) == ("warmup", root / "warm.wav")
    fake = FakeTranscriber()
    adapter_for(tmp_path, suite, fake).get(suite.cases[0], 1)
    assert (fake.requests[0].warmup, fake.requests[0].audio.name) == (True, "warm.wav")


def test_warmup_can_be_disabled(tmp_path: Path, suite: Suite) -> None:
    fake = FakeTranscriber()
    adapter = adapter_for(tmp_path, suite, fake, warmup=False)
    adapter.get(suite.cases[0], 1)
    assert [r.warmup for r in fake.requests] == [False]
    assert json.loads(cache_lines(adapter.product, suite)[0])["warmup"] == "disabled"


def test_failed_warmup_is_recorded_and_does_not_stop_the_captures(tmp_path: Path,
                                                                   suite: Suite) -> None:
    fake = FakeTranscriber(fail=lambda r: CaptureError("cold start") if r.warmup else None)
    output = adapter_for(tmp_path, suite, fake).get(suite.cases[0], 1)
    assert output.text == "text of c1"
    assert output.meta["warmup"] == "failed: cold start"


def test_capture_error_is_cached_then_retried_and_replaced(tmp_path: Path,
                                                           suite: Suite) -> None:
    failing = FakeTranscriber(fail=lambda r: CaptureError("engine crashed"))
    adapter = adapter_for(tmp_path, suite, failing, warmup=False)
    output = adapter.get(suite.cases[0], 1)
    assert output.is_error and output.status == "error"
    assert output.error == "engine crashed" and output.text == ""
    assert adapter.get(suite.cases[0], 1) is output  # not retried within the same run
    [line] = cache_lines(adapter.product, suite)
    assert json.loads(line)["status"] == "error"
    # Next run: the error is not a result, so it is captured again and replaced.
    healthy = FakeTranscriber()
    retried = adapter_for(tmp_path, suite, healthy, warmup=False).get(suite.cases[0], 1)
    assert retried.text == "text of c1" and len(healthy.requests) == 1
    [line] = cache_lines(adapter.product, suite)
    assert json.loads(line)["status"] == "complete"


def test_unexpected_exception_becomes_an_error_output(tmp_path: Path, suite: Suite) -> None:
    fake = FakeTranscriber(fail=lambda r: ZeroDivisionError("oops"))
    output = adapter_for(tmp_path, suite, fake, warmup=False).get(suite.cases[0], 1)
    assert output.status == "error" and output.error == "ZeroDivisionError: oops"


def test_recapture_replaces_cached_lines_once_per_run(tmp_path: Path, suite: Suite) -> None:
    adapter_for(tmp_path, suite, FakeTranscriber()).get(suite.cases[0], 1)
    fresh = FakeTranscriber(prefix="again")
    adapter = adapter_for(tmp_path, suite, fresh, recapture=True, warmup=False)
    assert adapter.get(suite.cases[0], 1).text == "again c1"
    assert adapter.get(suite.cases[0], 1).text == "again c1"
    assert len(fresh.requests) == 1
    assert [json.loads(x)["text"] for x in cache_lines(adapter.product, suite)] == ["again c1"]


def test_repetitions_are_separate_lines(tmp_path: Path, suite: Suite) -> None:
    adapter = adapter_for(tmp_path, suite, FakeTranscriber(), warmup=False)
    adapter.get(suite.cases[0], 1)
    adapter.get(suite.cases[0], 2)
    outputs = read_outputs(adapter.cache.path, suite)
    assert sorted(outputs) == [("c1", 1), ("c1", 2)]


def test_stale_cache_line_is_refused_unless_recaptured(tmp_path: Path, suite: Suite) -> None:
    adapter_for(tmp_path, suite, FakeTranscriber()).get(suite.cases[0], 1)
    with pytest.raises(CaptureError, match=r"product version '1.0' \(now '2.0'\).*recapture"):
        adapter_for(tmp_path, suite, FakeTranscriber(), version="2.0").get(suite.cases[0], 1)
    with pytest.raises(CaptureError, match="other settings"):
        adapter_for(tmp_path, suite, FakeTranscriber(),
                    settings={"timeout_s": 5, "beam": 3}).get(suite.cases[0], 1)
    # A timeout does not change what the product says: the line is still valid.
    relaxed = adapter_for(tmp_path, suite, FakeTranscriber(), settings={"timeout_s": 60})
    assert relaxed.get(suite.cases[0], 1).text == "text of c1"
    write_tone(suite.root / "audio/c1.wav", freq=1000.0)
    with pytest.raises(CaptureError, match="different audio"):
        adapter_for(tmp_path, suite, FakeTranscriber()).get(suite.cases[0], 1)


def test_missing_or_corrupt_audio_names_the_file_and_caches_nothing(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "gone.wav", "c2": "bad.wav"},
                       write_audio=False)
    (suite.root / "bad.wav").parent.mkdir(parents=True)
    (suite.root / "bad.wav").write_bytes(b"this is not audio at all")
    fake = FakeTranscriber()
    adapter = adapter_for(tmp_path, suite, fake)
    with pytest.raises(DictbenchError, match=r"gone\.wav.*does not exist"):
        adapter.get(suite.cases[0], 1)
    with pytest.raises(DictbenchError, match=r"bad\.wav"):
        adapter.get(suite.cases[1], 1)
    assert [r for r in fake.requests if not r.warmup] == []
    assert cache_lines(adapter.product, suite) == []


def test_truncated_wav_is_caught_before_sending_it(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    path = suite.root / "c1.wav"
    path.write_bytes(path.read_bytes()[:-2000])
    fake = FakeTranscriber()
    with pytest.raises(DictbenchError, match=r"c1\.wav.*truncated"):
        adapter_for(tmp_path, suite, fake, warmup=False).get(suite.cases[0], 1)
    assert fake.requests == []


def test_audio_sha256_listed_by_the_suite_must_match(tmp_path: Path) -> None:
    root = tmp_path / "suite"
    write_tone(root / "a.wav")
    write_tone(root / "b.wav", freq=900.0)
    files = (SuiteFile("a.wav", sha256_file(root / "a.wav")), SuiteFile("./b.wav", "0" * 64))
    suite = make_suite(root, {"c1": "a.wav", "c2": "b.wav"}, files=files, write_audio=False)
    adapter = adapter_for(tmp_path, suite, FakeTranscriber(), warmup=False)
    assert adapter.get(suite.cases[0], 1).text == "text of c1"
    with pytest.raises(CaptureError, match=r"b\.wav.*suite lists 0000"):
        adapter.get(suite.cases[1], 1)


def test_transcriber_setup_error_is_raised_for_every_item_and_made_once(
        tmp_path: Path, suite: Suite) -> None:
    calls = []

    def broken() -> FakeTranscriber:
        calls.append(1)
        raise DictbenchError("model missing")

    product = make_product(tmp_path / "products", "fake", {})
    adapter = LiveAdapter(product, suite, AdapterOptions(), broken)
    for case in suite.cases:
        with pytest.raises(DictbenchError, match="model missing"):
            adapter.get(case, 1)
    assert calls == [1] and cache_lines(product, suite) == []


def test_public_settings_hide_secret_values_but_keep_variable_names() -> None:
    settings = {"api_key_env": "MY_KEY", "token": "abc", "nested": {"password": "pw", "n": 1},
                "list": [1, {"secret_thing": "x"}], "model": "m"}
    assert public_settings(settings) == {
        "api_key_env": "MY_KEY", "token": "<redacted>",
        "nested": {"password": "<redacted>", "n": 1},
        "list": [1, {"secret_thing": "<redacted>"}], "model": "m"}


def test_a_case_without_audio_is_not_tested(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    text_only = type(suite.cases[0])("c9", {"id": "c9", "reference": "r"}, 9)
    fake = FakeTranscriber()
    assert adapter_for(tmp_path, suite, fake).get(text_only, 1) is None
    assert fake.requests == []
