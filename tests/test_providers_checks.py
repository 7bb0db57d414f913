"""Settings checked at load and answers checked on arrival (findings PV24, PS5, PS9,
PV11, PV13, PV21, PV28, PV8 for Deepgram): option types, Azure's option shapes and its
api-version, one channel per case, keys that cannot go in a header, the missing field
named, the locale's case, a Deepgram answer for other audio."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from adapter_support import first_output, live_adapter, make_product, make_suite
from http_stt_server import Reply
from hypothesis import given, settings
from hypothesis import strategies as st
from length_support import check_length_of_any_bytes, temporary_file
from provider_servers import KEY, KEY_ENV, AzureFake, DeepgramFake, ProviderServer, Request

from pytest_dictbench.errors import ProductError
from pytest_dictbench.model import Output, Suite

pytestmark = pytest.mark.usefixtures("provider_key")


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return make_suite(tmp_path / "suite", {"c1": "audio/c1.wav"}, locale="ja-JP")


def build(tmp_path: Path, suite: Suite, kind: str, **settings: Any) -> Any:
    return live_adapter(make_product(tmp_path / "p", kind, {"api_key_env": KEY_ENV, **settings}),
                        suite)


def capture(tmp_path: Path, suite: Suite, kind: str, fake: Any, **settings: Any) -> Output:
    with ProviderServer(fake) as server:
        return first_output(build(tmp_path, suite, kind, base_url=server.url, timeout_s=5,
                                  **settings), suite)


@pytest.mark.parametrize(("kind", "options", "message"), [
    ("deepgram", {"smart_format": "yes"}, "smart_format must be true or false"),
    ("deepgram", {"keyterm": 5}, "keyterm must be a string or a list of strings"),
    ("speechmatics", {"additional_vocab": "notalist"}, "additional_vocab must be a list of "
                                                       "tables"),
    ("assemblyai", {"speech_threshold": "lots"}, "speech_threshold must be a number"),
    ("elevenlabs", {"keyterms": "Sato"}, "keyterms must be a list of strings"),
])
def test_an_option_of_the_wrong_type_is_a_product_error(
        tmp_path: Path, suite: Suite, kind: str, options: dict[str, Any], message: str) -> None:
    """PV24: a wrong type is a typo that would be paid for."""
    with pytest.raises(ProductError, match=message):
        build(tmp_path, suite, kind, options=options)


@pytest.mark.parametrize(("values", "message"), [
    ({"options": {"phraseList": {"phrases": ["Sato"]}}},
     "phraseList needs api_version 2025-10-15 or later"),
    ({"options": {"phraseList": ["Sato"]}}, "phraseList must be a table"),
    ({"api_version": "2025-10-15", "options": {"phraseList": {"words": ["Sato"]}}},
     "phraseList must be a table with phrases"),
    ({"options": {"diarization": True}}, "diarization must be a table"),
    ({"options": {"diarization": {"on": True}}}, "diarization must be a table such as"),
    ({"options": {"channels": [0, 1]}}, "channels must name one channel"),
    ({"options": {"profanityFilterMode": "Stars"}}, "profanityFilterMode must be one of"),
])
def test_azure_option_shapes_follow_the_published_schema(
        tmp_path: Path, suite: Suite, values: dict[str, Any], message: str) -> None:
    """PS5, PS9, PV11: TranscribeDefinition's shapes, checked at load."""
    with pytest.raises(ProductError, match=message):
        build(tmp_path, suite, "azure", region="japaneast", **values)
    build(tmp_path / "ok", suite, "azure", region="japaneast", api_version="2025-10-15",
          options={"phraseList": {"phrases": ["Sato"]}, "channels": [0],
                   "diarization": {"enabled": True, "maxSpeakers": 2}})


def test_azure_gets_the_locale_in_its_usual_case(tmp_path: Path) -> None:
    """PV28: ``JA-jp`` goes to Azure as ``ja-JP``."""
    suite = make_suite(tmp_path / "suite", {"c1": "audio/c1.wav"}, locale="JA-jp")
    fake = AzureFake()
    output = capture(tmp_path, suite, "azure", fake)
    assert output.status == "complete", output.error
    assert fake.definition["locales"] == ["ja-JP"]


def test_azure_answering_two_channels_is_an_error(tmp_path: Path, suite: Suite) -> None:
    """PS9, PV11: two channels are two transcripts, never joined into one."""
    fake = AzureFake()
    fake.faults = [Reply(body={"durationMilliseconds": 1000, "combinedPhrases": [
        {"channel": 0, "text": "Hello."}, {"channel": 1, "text": "Hi there."}]})]
    output = capture(tmp_path, suite, "azure", fake)
    assert output.status == "error" and output.error == (
        "Azure AI Speech answered 2 channels (combinedPhrases): one transcript per case is "
        "scored")


class TwoChannels(DeepgramFake):
    def answer(self, request: Request) -> Reply:
        reply = super().answer(request)
        channel = reply.body["results"]["channels"][0]
        reply.body["results"]["channels"] = [channel, channel]
        return reply


def test_deepgram_answering_two_channels_is_an_error(tmp_path: Path, suite: Suite) -> None:
    """PV11: the first channel is not silently taken as the transcript."""
    output = capture(tmp_path, suite, "deepgram", TwoChannels())
    assert output.status == "error" and "2 channels" in output.error


@pytest.mark.parametrize(("results", "missing"), [
    ({"channels": []}, "results.channels is empty"),
    ({"channels": [{"alternatives": []}]}, "results.channels[0].alternatives is empty")])
def test_deepgram_names_the_missing_field(tmp_path: Path, suite: Suite,
                                          results: dict[str, Any], missing: str) -> None:
    """PV21."""
    fake = DeepgramFake()
    fake.faults = [Reply(body={"metadata": {"request_id": "r"}, "results": results})]
    output = capture(tmp_path, suite, "deepgram", fake)
    assert output.error == f"Deepgram answered without a transcript ({missing})"


def test_deepgram_answering_for_other_audio_is_an_error(tmp_path: Path, suite: Suite) -> None:
    """PV8: ``metadata.sha256`` names the audio the answer is for."""

    class Other(DeepgramFake):
        def answer(self, request: Request) -> Reply:
            reply = super().answer(request)
            reply.body["metadata"]["sha256"] = hashlib.sha256(b"other").hexdigest()
            return reply

    class Same(DeepgramFake):
        def answer(self, request: Request) -> Reply:
            reply = super().answer(request)
            reply.body["metadata"]["sha256"] = hashlib.sha256(request.body).hexdigest()
            return reply

    output = capture(tmp_path, suite, "deepgram", Other())
    assert output.status == "error" and "metadata.sha256" in output.error
    assert capture(tmp_path / "b", suite, "deepgram", Same()).status == "complete"


@pytest.mark.parametrize(("key", "problem"), [
    (KEY + "\u2019", "a character that cannot be sent in a header (U+2019)"),
    (KEY[:10] + "\r\nX-Evil: 1" + KEY[10:], "a character that cannot be sent in a header "
                                            "(U+000D)"),
    (" " + KEY, "spaces or line breaks around the key"),
    (KEY + " ", "spaces or line breaks around the key"),
    (f'"{KEY}"', "the key in quotes"),
])
@pytest.mark.parametrize("kind", ["deepgram", "elevenlabs"])
def test_a_key_that_cannot_go_in_a_header_is_refused_before_any_request(
        tmp_path: Path, suite: Suite, monkeypatch: pytest.MonkeyPatch, kind: str, key: str,
        problem: str) -> None:
    """PV13: named by its variable, once, never retried, the key not quoted."""
    monkeypatch.setenv(KEY_ENV, key)
    fake = DeepgramFake()
    with ProviderServer(fake) as server:
        adapter = build(tmp_path, suite, kind, base_url=server.url, timeout_s=5)
        with pytest.raises(ProductError) as caught:
            adapter.get(suite.cases[0], 1)
    assert f"environment variable {KEY_ENV} (api_key_env) holds {problem}" in str(caught.value)
    assert KEY not in str(caught.value) and fake.requests == []
    assert json.dumps(str(caught.value))  # plain text


def test_a_flac_whose_header_understates_its_length_is_over_the_limit(
        tmp_path: Path) -> None:
    """PV26: 3 s of audio whose STREAMINFO says 2 s, against a 2.5 s limit."""
    import dataclasses

    import numpy as np
    import soundfile as sf

    from pytest_dictbench.adapters.providers import PROVIDERS
    from pytest_dictbench.adapters.providers.base import Limits, provider_adapter

    suite = make_suite(tmp_path / "suite", {"c1": "audio/c1.flac"}, write_audio=False)
    path = suite.root / "audio/c1.flac"
    path.parent.mkdir(parents=True)
    sf.write(str(path), (0.1 * np.sin(np.arange(48000) / 10)).astype(np.float32), 16000,
             subtype="PCM_16")
    data = bytearray(path.read_bytes())
    field = int.from_bytes(data[18:26], "big")  # STREAMINFO's rate, channels, bits, total
    data[18:26] = ((field & ~((1 << 36) - 1)) | 32000).to_bytes(8, "big")
    path.write_bytes(bytes(data))
    assert sf.info(str(path)).frames == 32000  # what the header says, and libsndfile
    azure = dataclasses.replace(PROVIDERS["azure"], limits={"*": Limits(
        max_seconds=2.5, max_seconds_text="test")})
    fake = AzureFake()
    with ProviderServer(fake) as server:
        product = make_product(tmp_path / "p", "azure", {"api_key_env": KEY_ENV,
                                                         "base_url": server.url})
        output = first_output(live_adapter(product, suite, provider_adapter(azure)), suite)
    assert output.status == "unsupported", output
    assert output.error == "3.0 s, over fast-transcription's test limit (2.5 s)"
    assert fake.requests == []


@settings(max_examples=25, deadline=None)
@given(samples=st.integers(1, 40_000), rate=st.sampled_from([8000, 16000, 44100, 48000]))
def test_flac_length_from_the_last_frame_equals_the_samples_written(
        samples: int, rate: int) -> None:
    """PV26: the counted length is the encoded one, whatever the length and rate."""
    import io

    import numpy as np
    import soundfile as sf

    from pytest_dictbench.audio.flac_length import flac_samples

    buffer = io.BytesIO()
    sf.write(buffer, (0.1 * np.sin(np.arange(samples) / 7)).astype(np.float32), rate,
             format="FLAC", subtype="PCM_16")
    with temporary_file(buffer.getvalue(), "a.flac") as path:
        assert flac_samples(path) == (samples, rate)


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=400))
def test_flac_length_of_any_bytes_never_raises(raw: bytes) -> None:
    from pytest_dictbench.audio.flac_length import flac_samples

    check_length_of_any_bytes(flac_samples, b"fLaC\x00\x00\x00\x22" + raw, "a.flac")


def test_assemblyai_multichannel_is_refused(tmp_path: Path, suite: Suite) -> None:
    """PV11: one transcript per case, so no option that answers one per channel."""
    with pytest.raises(ProductError, match=r"unknown option.*multichannel"):
        build(tmp_path, suite, "assemblyai", options={"multichannel": True})


def test_the_docs_list_every_option_of_every_kind() -> None:
    """docs/providers.md names each kind's accepted options."""
    from pytest_dictbench.adapters.providers import PROVIDERS

    text = (Path(__file__).resolve().parents[1] / "docs" / "providers.md").read_text()
    for provider in PROVIDERS.values():
        for name in provider.options:
            assert f"`{name}`" in text, (provider.kind, name)


@pytest.mark.parametrize("locale", ["tlh-x-klingon", "en-US-x-private", "english"])
def test_a_locale_no_provider_takes_is_unsupported_before_any_upload(
        tmp_path: Path, locale: str) -> None:
    """PV28: nothing is uploaded for a private-use or malformed locale."""
    suite = make_suite(tmp_path / "suite", {"c1": "audio/c1.wav"}, locale=locale)
    fake = DeepgramFake()
    output = capture(tmp_path, suite, "deepgram", fake)
    assert output.status == "unsupported" and fake.requests == []
    assert output.error.startswith(f"locale {locale!r} is not a language a provider takes")
    for fine in ("ja-JP", "zh-Hant-TW", "es-419", "en"):
        suite = make_suite(tmp_path / fine, {"c1": "audio/c1.wav"}, locale=fine)
        assert capture(tmp_path / fine, suite, "deepgram", DeepgramFake()).status == "complete"
