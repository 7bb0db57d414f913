"""Gemini answers that are not a whole transcript (findings PS8, PS15, PV9, PV14): cut at
``MAX_TOKENS``, blocked, two candidates, odd shapes, an unreadable usage; and thinking
settings refused at load."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from adapter_support import first_output, live_adapter, make_product, make_suite
from http_stt_server import Reply
from provider_servers import KEY_ENV, GeminiFake, ProviderServer

from pytest_dictbench.errors import ProductError
from pytest_dictbench.model import Output, Suite

pytestmark = pytest.mark.usefixtures("provider_key")


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return make_suite(tmp_path / "suite", {"c1": "audio/c1.wav"}, locale="ja-JP")


@pytest.fixture
def fake() -> Iterator[GeminiFake]:
    yield GeminiFake()


def capture(tmp_path: Path, suite: Suite, fake: GeminiFake, body: Any,
            **settings: Any) -> Output:
    fake.faults = [Reply(body=body)]
    with ProviderServer(fake) as server:
        product = make_product(tmp_path / "p", "gemini", {
            "base_url": server.url, "api_key_env": KEY_ENV, "timeout_s": 5, **settings})
        return first_output(live_adapter(product, suite), suite)


USAGE = {"promptTokenCount": 40, "candidatesTokenCount": 6, "totalTokenCount": 46}


def test_a_transcript_cut_at_max_tokens_is_not_complete(
        tmp_path: Path, suite: Suite, fake: GeminiFake) -> None:
    """PS8, PV9 (a): MAX_TOKENS is named and never scored."""
    output = capture(tmp_path, suite, fake, {"candidates": [{"content": {"parts": [
        {"text": "佐藤です。よろし"}]}, "finishReason": "MAX_TOKENS"}], "usageMetadata": USAGE})
    assert output.status == "error" and output.text == ""
    assert "finishReason MAX_TOKENS" in output.error and "cut off" in output.error


def test_two_candidates_are_an_error(tmp_path: Path, suite: Suite, fake: GeminiFake) -> None:
    """PV9 (b): one candidate was asked for."""
    one = {"content": {"parts": [{"text": "a"}]}, "finishReason": "STOP"}
    output = capture(tmp_path, suite, fake, {"candidates": [one, one]})
    assert output.status == "error"
    assert output.error == "Gemini API answered 2 candidates where one was asked for"


@pytest.mark.parametrize(("body", "error"), [
    ({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}},
     "Gemini blocked the request (promptFeedback.blockReason PROHIBITED_CONTENT)"),
    ({"candidates": [{"finishReason": "SAFETY"}]},
     "Gemini API stopped with finishReason SAFETY"),
    ({"candidates": [{"content": "text", "finishReason": "STOP"}]},
     "Gemini API answered candidates[0].content in another shape (an object with a list "
     "of parts was expected)"),
    ({"candidates": ["x"]}, "Gemini API answered a candidate that is not an object "
                            "(candidates[0])"),
], ids=["blocked", "safety", "content-string", "candidate-string"])
def test_blocks_and_odd_shapes_name_their_reason(
        tmp_path: Path, suite: Suite, fake: GeminiFake, body: Any, error: str) -> None:
    """PS15, PV9 (c, d): the reason or the place, never a Python exception."""
    output = capture(tmp_path, suite, fake, body)
    assert output.status == "error" and output.error == error


def test_an_unreadable_usage_keeps_the_transcript(
        tmp_path: Path, suite: Suite, fake: GeminiFake) -> None:
    """PV9 (e): the cost is unknown, the transcript is kept."""
    output = capture(tmp_path, suite, fake, {"candidates": [{"content": {"parts": [
        {"text": "こんにちは"}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": "many"}})
    assert output.status == "complete" and output.text == "こんにちは"
    facts = output.meta["provider"]
    assert facts["cost_usd"] is None and facts["cost_unknown"] == "no token usage in the answer"
    assert facts["usage_problem"]


@pytest.mark.parametrize(("settings", "message"), [
    ({"thinking_budget": 1.5}, "thinking_budget must be int"),
    ({"thinking_budget": "0"}, "thinking_budget must be int"),
    ({"thinking_budget": -5}, "thinking_budget must be -1"),
    ({"thinking_level": "ultra"}, "thinking_level must be one of minimal, low, medium, high"),
    ({"thinking_budget": 1024, "model": "gemini-2.0-flash-lite"},
     "gemini-2.0-flash-lite does not think"),
    ({"upload": "sometimes"}, "upload must be 'auto' or 'always'"),
])
def test_bad_thinking_settings_are_refused_at_load(
        tmp_path: Path, suite: Suite, settings: dict[str, Any], message: str) -> None:
    """PV14: a product error when the adapter is built, before any item or request."""
    product = make_product(tmp_path / "p", "gemini", {"api_key_env": KEY_ENV, **settings})
    with pytest.raises(ProductError, match=message):
        live_adapter(product, suite)
