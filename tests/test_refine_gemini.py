"""A refine step through the Gemini API (``client = "gemini"``), against a loopback
server that speaks ``generateContent`` with structured output."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from http_stt_server import Reply
from provider_servers import Fake, ProviderServer, Request
from refine_support import REFINE_KEY, rewrite, step_toml, write_pipeline
from test_refine_pipeline import adapter, make_suite
from test_refine_pipeline import products as products  # the fixture

_TEXT = re.compile(r"<text>(.*)</text>", re.DOTALL)
_MODEL = re.compile(r"^/v1beta/models/([^/:]+):generateContent$")


class GeminiRefineFake(Fake):
    """``generateContent`` answering with the JSON the response schema asks for."""

    auth = ("x-goog-api-key", REFINE_KEY)

    def __init__(self) -> None:
        super().__init__()
        self.finish = "STOP"

    def refused(self, sent: str | None) -> Reply:
        return Reply(403, {"error": {"code": 403, "status": "PERMISSION_DENIED",
                                     "message": f"API key not valid: {sent}"}})

    def answer(self, request: Request) -> Reply:
        found = _MODEL.match(request.route)
        assert found and request.method == "POST"
        body = request.json
        config = body["generationConfig"]
        assert config["responseMimeType"] == "application/json"
        assert config["responseSchema"] == {"type": "OBJECT", "properties": {
            "text": {"type": "STRING"}}, "required": ["text"]}
        assert body["systemInstruction"]["parts"][0]["text"]
        [turn] = body["contents"]
        text = _TEXT.search(turn["parts"][0]["text"])
        answer = rewrite(found.group(1), text.group(1) if text else "")
        if answer is None:
            return Reply(400, {"error": {"code": 400, "status": "INVALID_ARGUMENT",
                                         "message": "Request contains an invalid argument."}})
        return Reply(body={
            "candidates": [{"content": {"role": "model", "parts": [
                {"text": "weighing it", "thought": True},
                {"text": json.dumps({"text": answer})}]}, "finishReason": self.finish}],
            "usageMetadata": {"promptTokenCount": 80, "candidatesTokenCount": 12,
                              "thoughtsTokenCount": 8, "totalTokenCount": 100},
            "modelVersion": found.group(1), "responseId": "gem-refine-1"})


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFINE_KEY", REFINE_KEY)


@pytest.fixture
def gemini() -> Iterator[tuple[GeminiRefineFake, ProviderServer]]:
    fake = GeminiRefineFake()
    with ProviderServer(fake) as running:
        yield fake, running


def test_a_gemini_step_rewrites_through_generate_content(
        products: Path, tmp_path: Path, gemini: Any) -> None:
    fake, server = gemini
    write_pipeline(products, "pipe", "asr", step_toml(
        "fixer", server.url, client="gemini", extra="temperature = 0.2\nmax_tokens = 300\n"))
    suite = make_suite(tmp_path, score_text="refined")
    output = adapter(products, "pipe", suite).get(suite.cases[1], 1)
    assert output.status == "complete", output.error
    assert output.text == "send the invoice"
    [request] = fake.requests
    assert request.route == "/v1beta/models/fixer:generateContent"
    assert request.headers["x-goog-api-key"] == REFINE_KEY and fake.leaks == []
    assert request.json["generationConfig"]["temperature"] == 0.2
    assert request.json["generationConfig"]["maxOutputTokens"] == 300
    [step] = output.meta["pipeline"]["steps"]
    # thinking tokens are billed as output: 80 in, 12 + 8 out
    assert step["usage"]["input_tokens"] == 80 and step["usage"]["output_tokens"] == 20
    # priced by the step's own prices: 80 x 3 + 20 x 15 per million
    assert step["cost_usd"] == pytest.approx((80 * 3.0 + 20 * 15.0) / 1e6)


def test_a_gemini_step_is_cached_like_the_others(
        products: Path, tmp_path: Path, gemini: Any) -> None:
    fake, server = gemini
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url, client="gemini"))
    suite = make_suite(tmp_path, score_text="refined")
    adapter(products, "pipe", suite).get(suite.cases[0], 1)
    again = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert len(fake.requests) == 1
    assert again.meta["pipeline"]["steps"][0]["cached"] is True


def test_a_refused_gemini_call_is_an_item_error_with_the_scrubbed_message(
        products: Path, tmp_path: Path, gemini: Any) -> None:
    _, server = gemini
    write_pipeline(products, "pipe", "asr", step_toml("broken", server.url, client="gemini"))
    suite = make_suite(tmp_path)
    output = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert output.status == "error" and output.text == "um hello there"
    assert "HTTP 400" in output.error and "invalid argument" in output.error
    assert REFINE_KEY not in output.error


def test_a_gemini_answer_cut_short_is_asked_again_then_an_error(
        products: Path, tmp_path: Path, gemini: Any) -> None:
    fake, server = gemini
    fake.finish = "MAX_TOKENS"
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url, client="gemini"))
    suite = make_suite(tmp_path)
    output = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert output.status == "error"
    assert "finishReason 'MAX_TOKENS'" in output.error
    assert len(fake.requests) == 2  # an invalid answer is asked for once more


def test_a_transient_gemini_failure_is_retried_once_by_one_backoff(
        products: Path, tmp_path: Path, gemini: Any) -> None:
    fake, server = gemini
    fake.faults = [Reply(503, {"error": {"code": 503, "message": "overloaded"}},
                         headers={"Retry-After": "0"})]
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url, client="gemini"))
    suite = make_suite(tmp_path, score_text="refined")
    output = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert output.status == "complete", output.error
    assert len(fake.requests) == 2  # retried by the Gemini client, not again by the refiner


def test_a_gemini_step_without_its_key_is_an_item_error_naming_the_variable(
        products: Path, tmp_path: Path, gemini: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _, server = gemini
    monkeypatch.delenv("REFINE_KEY")
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url, client="gemini"))
    suite = make_suite(tmp_path)
    output = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert output.status == "error" and "export REFINE_KEY" in output.error
