"""Language codes against each provider's documented form (finding PV28): a
``[settings] language`` a provider documents it does not take is refused at load, naming
the product file and the form; a suite locale whose code does not fit is ``unsupported``
before any upload."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from adapter_support import live_adapter, make_product, make_suite
from provider_servers import KEY_ENV, AzureFake, OpenAIFake, ProviderServer

from pytest_dictbench.errors import ProductError
from pytest_dictbench.model import Suite

pytestmark = pytest.mark.usefixtures("provider_key")


def build(tmp_path: Path, suite: Suite, kind: str, **settings: Any) -> Any:
    model = {"model": "whisper-1"} if kind == "openai" else {}
    product = make_product(tmp_path / "p", kind, {"api_key_env": KEY_ENV, **model, **settings})
    return live_adapter(product, suite)


@pytest.mark.parametrize(("kind", "bad", "good", "form"), [
    ("openai", "en-US", "en", "an ISO 639-1 code such as 'en'"),
    ("openai", "fil", "ja", "an ISO 639-1 code such as 'en'"),
    ("assemblyai", "en-US", "en_us", "such as 'es', or 'en_us'"),
    ("speechmatics", "en-US", "cmn_en", "such as 'en' or 'cmn'"),
    ("azure", "ja", "ja-JP", "a full locale such as 'ja-JP'"),
    ("deepgram", "english", "multi", "a BCP 47 tag such as 'en' or 'en-US'"),
    ("elevenlabs", "ja-JP", "jpn", "an ISO 639-1 or 639-3 code"),
    ("gemini", "english", "ja-JP", "a BCP 47 tag"),
])
def test_a_language_setting_a_provider_does_not_take_is_refused_at_load(
        tmp_path: Path, kind: str, bad: str, good: str, form: str) -> None:
    """PV28: named with the product file and the provider's documented form."""
    suite = make_suite(tmp_path / "suite", {"c1": "audio/c1.wav"}, locale="ja-JP")
    extra = {"region": "japaneast"} if kind == "azure" else {}
    with pytest.raises(ProductError) as caught:
        build(tmp_path, suite, kind, language=bad, **extra)
    message = str(caught.value)
    assert str(tmp_path / "p" / "p1.toml") in message
    assert f"[settings] language {bad!r}" in message and form in message
    build(tmp_path / "ok", suite, kind, language=good, **extra)  # the documented form loads


@pytest.mark.parametrize(("kind", "fake", "locale", "code"), [
    ("openai", OpenAIFake, "fil-PH", "'fil'"),
    ("azure", AzureFake, "ja", "'ja'"),
])
def test_a_suite_locale_whose_code_a_provider_does_not_take_is_unsupported(
        tmp_path: Path, kind: str, fake: Any, locale: str, code: str) -> None:
    """PV28: nothing is uploaded; the reason names the code and the documented form."""
    suite = make_suite(tmp_path / "suite", {"c1": "audio/c1.wav"}, locale=locale)
    server_fake = fake()
    with ProviderServer(server_fake) as server:
        output = build(tmp_path, suite, kind, base_url=server.url, timeout_s=5).get(
            suite.cases[0], 1)
    assert output is not None and output.status == "unsupported", output
    assert output.error.startswith(f"language {code} (from the suite locale {locale!r})")
    assert server_fake.requests == []
