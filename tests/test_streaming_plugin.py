"""Streaming products in real pytest runs (issue 43): a provider kind against the
loopback server and the offline engine on the bundled English suite, with the
streaming table and the streamed-against-batch comparison in every report."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from streaming_servers import ScriptedServer, scripted_server
from test_streaming_protocols import KEY, KEY_ENV, story_audio

from pytest_dictbench.schemas import validation_error

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with scripted_server("deepgram-live", KEY, 16000) as running:
        yield running


def _suite_entry(path: Path) -> dict:
    """The run's first suite entry; the report and every item record fit their schemas."""
    report = json.loads((path / "dictbench.json").read_text(encoding="utf-8"))
    assert validation_error(report, "report.schema.json") is None
    for line in (path / "items.jsonl").read_text(encoding="utf-8").splitlines():
        assert validation_error(json.loads(line), "item-record.schema.json") is None
    return report["suites"][0]


def test_a_streaming_provider_product_reports_its_timings(
        pytester: pytest.Pytester, write_suite: Callable[..., Path],
        write_product: Callable[..., Path], server: ScriptedServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The timings in every report, and the pairing with the batch product it names:
    both streamed texts are right (100, 100); the batch product missed "again" in c2
    (WER 1/3, score 66.7), so streamed - batch = (0 + 33.3) / 2 = 16.7."""
    monkeypatch.setenv(KEY_ENV, KEY)
    cases = [{"id": f"c{i}", "reference": "hello world again", "audio": f"audio/c{i}.wav"}
             for i in (1, 2)]
    root = write_suite(cases=cases)
    for case in cases:
        story_audio(root / case["audio"])
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_product("dg-batch", [{"case_id": "c1", "text": "hello world again"},
                               {"case_id": "c2", "text": "hello world"}])
    (pytester.path / "products" / "dg-live.toml").write_text(
        'name = "dg-live"\nversion = "1"\nadapter = "deepgram-live"\n[settings]\n'
        f'base_url = "{server.base_url}"\napi_key_env = "{KEY_ENV}"\n'
        'batch_product = "dg-batch"\n', encoding="utf-8")
    result = pytester.runpytest("--product=dg-live", "--product=dg-batch", "-p",
                                "no:cacheprovider", "--dictbench-report", "reports",
                                "--dictbench-item-failures=report")
    result.assert_outcomes(passed=4)
    products = {e["product"]: e for e in _suite_entry(pytester.path / "reports")["products"]}
    assert "streaming" not in products["dg-batch"]
    entry = products["dg-live"]["streaming"]
    batch = entry.pop("batch")
    assert batch["source"] == "product dg-batch" and batch["pairs"] == 2
    assert batch["difference"] == pytest.approx(50 / 3, abs=1e-6)
    assert entry["items"] == 2 and entry["realtime"] is True
    first = entry["timings"]["ttfp_audible_ms"]
    assert first["n"] == 2 and first["p50"] == pytest.approx(300, abs=40)
    assert entry["pacing"]["invalid"] == 0 and "batch" not in entry
    markdown = (pytester.path / "reports" / "dictbench.md").read_text(encoding="utf-8")
    assert "**Streaming timings**" in markdown
    result.stdout.fnmatch_lines(["mini/dg-live: streaming p50/p95: first partial *; "
                                 "streamed - batch (product dg-batch): +16.67 *on 2 items"])
    junit = pytester.path / "junit.xml"
    pytester.runpytest("--product=dg-live", "--product=dg-batch", "-p", "no:cacheprovider",
                       "--dictbench-report", "reports", f"--junitxml={junit}",
                       "--dictbench-item-failures=report")
    assert junit.read_text(encoding="utf-8").count('name="dictbench.streaming.ttff_ms"') == 2
    for line in (pytester.path / "reports" / "items.jsonl").read_text().splitlines():
        item = json.loads(line)
        assert KEY not in line
        assert ("ttfp_audible_ms" in item["streaming"]) if item["product"] == "dg-live" \
            else "streaming" not in item


def test_the_offline_streaming_product_on_the_english_suite(pytester: pytest.Pytester) -> None:
    """No key, no network: two items of cases/en-dictation streamed through the local
    Whisper engine give every timing and the paired streamed-against-batch figures."""
    pytest.importorskip("faster_whisper", reason="the asr extra is not installed")
    shutil.copytree(REPO / "cases" / "en-dictation", pytester.path / "cases" / "en-dictation")
    (pytester.path / "products").mkdir()
    shutil.copy(REPO / "products" / "whisper-tiny-streaming.toml", pytester.path / "products")
    pytester.makeini("[pytest]\ndictbench_suites = cases/en-dictation\n")
    result = pytester.runpytest("--product=whisper-tiny-streaming", "-p", "no:cacheprovider",
                                "-k", "en-004 or en-018", "--dictbench-item-failures=report",
                                "--dictbench-no-warmup", "--dictbench-report", "reports")
    result.assert_outcomes(passed=2)
    entry = _suite_entry(pytester.path / "reports")["products"][0]["streaming"]
    assert entry["items"] == 2 and entry["pacing"]["invalid"] == 0
    for field in ("ttfp_audible_ms", "ttfp_onset_ms", "ttff_ms", "final_latency_ms"):
        timing = entry["timings"][field]
        assert timing["n"] == 2 and timing["p50"] > 0, field
    batch = entry["batch"]
    assert batch["pairs"] == 2 and batch["interval"]["method"] == "bootstrap"
    assert batch["batch_wer"] is not None and batch["stream_wer"] is not None
    markdown = (pytester.path / "reports" / "dictbench.md").read_text(encoding="utf-8")
    assert "**Streaming against batch accuracy**" in markdown
