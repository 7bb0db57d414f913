"""An audio file's length from the bytes present, not only from its header (finding
PV26, for WAV as for FLAC): the duration limit and the cost path (a bill by audio length,
the capture estimate) use it; and Azure's documented size limit (the 2025-10-15 spec)."""

from __future__ import annotations

import dataclasses
import io
import struct
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from adapter_support import first_output, live_adapter, make_product, make_suite
from http_stt_server import Reply
from hypothesis import given, settings
from hypothesis import strategies as st
from length_support import check_length_of_any_bytes, temporary_file
from provider_servers import KEY_ENV, AzureFake, OpenAIFake, ProviderServer, Request

from pytest_dictbench.adapters.providers import PROVIDERS
from pytest_dictbench.adapters.providers.base import Limits, provider_adapter
from pytest_dictbench.audio.length import audio_seconds
from pytest_dictbench.model import Output, Product, Suite

pytestmark = pytest.mark.usefixtures("provider_key")

RATE = 16000


def wav(seconds: float, *, data_size: int | None = None, tail: bytes = b"") -> bytes:
    """A 16-bit mono WAV of ``seconds``; ``data_size`` overwrites its data chunk's size,
    ``tail`` is appended after the audio."""
    buffer = io.BytesIO()
    samples = (0.1 * np.sin(np.arange(int(seconds * RATE)) / 9)).astype(np.float32)
    sf.write(buffer, samples, RATE, format="WAV", subtype="PCM_16")
    data = bytearray(buffer.getvalue())
    at = data.find(b"data")
    if data_size is not None:
        data[at + 4:at + 8] = struct.pack("<I", data_size)
    return bytes(data) + tail


def one_case(tmp_path: Path, content: bytes, name: str = "c1.wav") -> Suite:
    suite = make_suite(tmp_path / "suite", {"c1": f"audio/{name}"}, write_audio=False)
    path = suite.root / "audio" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return suite


def azure_with(tmp_path: Path, suite: Suite, limits: Limits) -> tuple[Output, AzureFake]:
    azure = dataclasses.replace(PROVIDERS["azure"], limits={"*": limits})
    fake = AzureFake()
    with ProviderServer(fake) as server:
        product = make_product(tmp_path / "p", "azure", {"api_key_env": KEY_ENV,
                                                         "base_url": server.url})
        output = first_output(live_adapter(product, suite, provider_adapter(azure)), suite)
    return output, fake


@pytest.mark.parametrize(("declared", "what"), [(2 * 2 * RATE, "2 s declared"),
                                                (0, "a size of 0")])
def test_a_wav_whose_data_size_understates_its_length_is_over_the_limit(
        tmp_path: Path, declared: int, what: str) -> None:
    """PV26: 5 s of audio whose data chunk says less, against a 2.5 s limit."""
    content = wav(5.0, data_size=declared)
    suite = one_case(tmp_path, content)
    path = suite.root / "audio/c1.wav"
    assert sf.info(str(path)).frames < 2.5 * RATE, what  # what libsndfile believes
    output, fake = azure_with(tmp_path, suite, Limits(max_seconds=2.5, max_seconds_text="test"))
    assert output.status == "unsupported", output
    assert output.error == "5.0 s, over fast-transcription's test limit (2.5 s)"
    assert fake.requests == []


@pytest.mark.parametrize(("content", "seconds"), [
    (wav(3.0), 3.0),
    (wav(3.0, tail=b"LIST" + struct.pack("<I", 4) + b"INFO"), 3.0),  # a chunk after data
    (wav(3.0, data_size=0xFFFFFFFF), 3.0),  # "length unknown": to the end of the file
    (wav(3.0, data_size=10 * 2 * RATE), 3.0),  # overstated: only the bytes present
    (wav(3.0, data_size=RATE * 2), 3.0),  # understated
])
def test_a_wavs_length_is_the_audio_bytes_present(tmp_path: Path, content: bytes,
                                                  seconds: float) -> None:
    path = tmp_path / "a.wav"
    path.write_bytes(content)
    assert audio_seconds(path) == pytest.approx(seconds)


class Plain(OpenAIFake):
    """An OpenAI-compatible answer without ``usage``: billed by audio length."""

    def answer(self, request: Request) -> Reply:
        return Reply(body={"text": "hello"})


def test_the_bill_by_audio_length_uses_the_length_present(tmp_path: Path) -> None:
    """PV26: an answer without usage is billed on 5 s, not on the header's 1 s."""
    suite = one_case(tmp_path, wav(5.0, data_size=2 * RATE))
    with ProviderServer(Plain()) as server:
        product = make_product(tmp_path / "p", "openai", {
            "base_url": server.url, "api_key_env": KEY_ENV, "model": "whisper-1"})
        product = Product(**{**product.__dict__, "pricing": {
            "usd_per_audio_minute": 0.006, "snapshot_date": "2026-12-01"}})
        output = first_output(live_adapter(product, suite, provider_adapter(PROVIDERS["openai"])),
                              suite)
    assert output.status == "complete", output
    facts: dict[str, Any] = output.meta["provider"]
    assert facts["billed_seconds"] == 5.0
    assert Decimal(facts["cost_usd"]) == Decimal("0.006") * 5 / 60


def test_the_capture_estimate_uses_the_length_present(tmp_path: Path) -> None:
    """PV26: a case without duration_s is estimated on the audio present."""
    from pytest_dictbench.adapters.providers.estimate import _seconds

    suite = one_case(tmp_path, wav(5.0, data_size=2 * RATE))
    assert _seconds(suite, suite.cases[0]) == pytest.approx(5.0)


def test_azure_refuses_audio_over_its_documented_250_mb(tmp_path: Path) -> None:
    """The 2025-10-15 spec (TranscribeDefinition.audioUrl): "smaller than 250 MB"."""
    limits = PROVIDERS["azure"].limits["*"]
    assert (limits.max_bytes, limits.max_seconds) == (250 * 1024 * 1024, 7200)
    suite = one_case(tmp_path, wav(0.1))
    path = suite.root / "audio/c1.wav"
    with path.open("r+b") as handle:  # sparse: the size is checked before any count
        handle.truncate(250 * 1024 * 1024 + 1)
    output, fake = azure_with(tmp_path, suite, limits)
    assert output.status == "unsupported", output
    assert output.error == ("262,144,001 bytes, over fast-transcription's 250 MB file limit "
                            "(262,144,000 bytes)")
    assert fake.requests == []


def mp3(seconds: float, *, frames_said: int | None = None) -> bytes:
    """An MP3 of ``seconds``; ``frames_said`` overwrites its Xing header's frame count."""
    buffer = io.BytesIO()
    sf.write(buffer, (0.1 * np.sin(np.arange(int(seconds * RATE)) / 9)).astype(np.float32),
             RATE, format="MP3")
    data = bytearray(buffer.getvalue())
    if frames_said is not None:
        at = data.find(b"Xing")
        assert at > 0 and data[at + 7] & 1  # the frame-count field is there
        data[at + 8:at + 12] = struct.pack(">I", frames_said)
    return bytes(data)


def test_an_mp3_whose_xing_header_understates_its_length_is_over_the_limit(
        tmp_path: Path) -> None:
    """PV26: 5 s of MP3 whose Xing header says 20 frames (libsndfile: 0.6 s)."""
    suite = one_case(tmp_path, mp3(5.0, frames_said=20), name="c1.mp3")
    path = suite.root / "audio/c1.mp3"
    assert sf.info(str(path)).frames < RATE  # what libsndfile believes
    assert audio_seconds(path) == pytest.approx(5.0, abs=0.1)
    output, fake = azure_with(tmp_path, suite, Limits(max_seconds=2.5, max_seconds_text="test"))
    assert output.status == "unsupported", output
    assert output.error.startswith("5.1 s, over fast-transcription's test limit")
    assert fake.requests == []


def test_an_honest_mp3s_length_is_its_headers(tmp_path: Path) -> None:
    """The frame count's encoder delay and padding do not change an honest length."""
    path = tmp_path / "a.mp3"
    path.write_bytes(mp3(5.0))
    assert audio_seconds(path) == sf.info(str(path)).duration == 5.0


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=400))
def test_mp3_length_of_any_bytes_never_raises(raw: bytes) -> None:
    from pytest_dictbench.audio.mp3_length import mp3_samples

    check_length_of_any_bytes(mp3_samples, b"\xff\xf3\x88\xc4" + raw, "a.mp3")


@settings(max_examples=10, deadline=None)
@given(seconds=st.floats(0.2, 8.0))
def test_an_mp3s_frame_count_exceeds_its_gapless_length_by_the_encoder_slack_only(
        seconds: float) -> None:
    """PV26: the count is the encoded length plus the encoder's delay and padding."""
    from pytest_dictbench.audio.mp3_length import mp3_samples

    with temporary_file(mp3(seconds), "a.mp3") as path:
        found = mp3_samples(path)
        assert found is not None and found[1] == RATE
        assert 0 <= found[0] - sf.info(str(path)).frames <= 3 * 1152
        assert audio_seconds(path) == sf.info(str(path)).duration


def test_the_capture_records_the_length_of_the_audio_present(tmp_path: Path) -> None:
    """PV26: the record's ``audio_duration_s`` (and so its RTF) is the audio present,
    as the limit and the bill count it, not the header's length: 5 s of audio whose data
    chunk says 1 s, which libsndfile believes. (A data chunk that says more than is
    present is refused as truncated before anything is sent.)"""
    seconds = 5.0
    suite = one_case(tmp_path, wav(seconds, data_size=2 * RATE))
    with ProviderServer(Plain()) as server:
        product = make_product(tmp_path / "p", "openai", {
            "base_url": server.url, "api_key_env": KEY_ENV, "model": "whisper-1"})
        output = first_output(live_adapter(product, suite, provider_adapter(PROVIDERS["openai"])),
                              suite)
    assert output.status == "complete", output
    assert output.meta["audio_duration_s"] == seconds
    assert output.latency_ms is not None
    assert output.meta["rtf"] == pytest.approx(output.latency_ms / 1000 / seconds, abs=1e-5)
