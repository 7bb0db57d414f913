"""``client = "gemini"``: a refine step through the Gemini API's ``generateContent``.

``POST {base_url}/v1beta/models/{model}:generateContent`` with the step's system
instruction (``systemInstruction``), the filled-in template as the user turn, and
structured output: ``generationConfig.responseMimeType = "application/json"`` with a
``responseSchema`` of one string field ``text``, so the rewrite never carries a
preamble. ``max_tokens`` is ``maxOutputTokens`` and ``temperature`` is passed when set.

The call goes through the cloud providers' one HTTP client
(:class:`~pytest_dictbench.adapters.providers.client.ProviderClient`): the key only in
``x-goog-api-key``, redirects refused, one deadline per call (the pipeline's
``timeout_s``), and transient failures (429 with ``Retry-After``, 5xx, a dropped
connection) retried there with the project's one backoff, so the refiner does not retry
them again. Token usage (``promptTokenCount``; ``candidatesTokenCount`` plus
``thoughtsTokenCount``, billed as output) prices the step. The key comes from the
step's ``api_key_env`` (default ``GEMINI_API_KEY``); ``base_url`` defaults to
``https://generativelanguage.googleapis.com``. Needs the ``providers`` extra (httpx).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from ...errors import DictbenchError
from ...jsonl import loads_strict
from ...judge.records import JudgeConfig, RetryPolicy, TokenUsage
from ...judge.task import Prompt
from ...judge.transport import RawAnswer
from ...redact import register_secret

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_KEY_ENV", "GeminiRefineClient", "response_schema"]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
DEFAULT_KEY_ENV = "GEMINI_API_KEY"


def response_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` (a JSON Schema of objects and strings) in the Gemini API's schema form:
    upper-case types, no ``additionalProperties`` (which it does not take)."""
    out: dict[str, Any] = {"type": str(schema["type"]).upper()}
    if "properties" in schema:
        out["properties"] = {k: response_schema(v) for k, v in schema["properties"].items()}
    if "required" in schema:
        out["required"] = list(schema["required"])
    return out


class GeminiRefineClient:
    """One refine step's connection to the Gemini API (see module doc); fulfils the
    judges' :class:`~pytest_dictbench.judge.client.JudgeClient` protocol."""

    def __init__(self, config: JudgeConfig, *, timeout: float,
                 policy: RetryPolicy | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        from ..providers.client import ProviderClient, check_base_url

        environ = os.environ if environ is None else environ
        variable = config.api_key_env or DEFAULT_KEY_ENV
        key = environ.get(variable)
        if not key:
            raise DictbenchError(f"refine step {config.name!r} must call the Gemini API but "
                                 f"no key is set: export {variable}")
        register_secret(key)
        base_url = config.base_url or DEFAULT_BASE_URL
        problem = check_base_url(base_url, has_key=True)
        if problem:
            raise DictbenchError(f"refine step {config.name!r}: {problem}")
        self._config = config
        self._client = ProviderClient("Gemini API", base_url, key, ("x-goog-api-key", "{key}"),
                                      timeout, policy)

    def __repr__(self) -> str:
        return f"GeminiRefineClient(step={self._config.name!r}, model={self._config.model!r})"

    def body(self, prompt: Prompt) -> dict[str, Any]:
        """The JSON body of the ``generateContent`` request for ``prompt``."""
        config: dict[str, Any] = {"responseMimeType": "application/json",
                                  "responseSchema": response_schema(prompt.answer_schema),
                                  "maxOutputTokens": prompt.max_tokens}
        if self._config.temperature is not None:
            config["temperature"] = self._config.temperature
        return {"systemInstruction": {"parts": [{"text": prompt.system}]},
                "contents": [{"role": "user", "parts": [{"text": prompt.user}]}],
                "generationConfig": config}

    async def send(self, prompt: Prompt) -> RawAnswer:
        return await asyncio.to_thread(self._send, prompt)

    def _send(self, prompt: Prompt) -> RawAnswer:
        session = self._client.session(f"refine:{self._config.name}:{prompt.user}")
        path = f"/v1beta/models/{quote(prompt.model, safe='.-_')}:generateContent"
        reply = session.send("POST", path, json=self.body(prompt))
        return read_generation(reply.body)

    def redact(self, text: str) -> str:
        return self._client.scrubbed(text)

    async def aclose(self) -> None:
        self._client.close()


def _usage(body: Mapping[str, Any]) -> TokenUsage:
    usage = body.get("usageMetadata")
    if not isinstance(usage, Mapping):
        return TokenUsage(unknown=True)
    counts = [usage.get(k, 0) for k in ("promptTokenCount", "candidatesTokenCount",
                                        "thoughtsTokenCount")]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
        return TokenUsage(unknown=True)
    return TokenUsage(counts[0], counts[1] + counts[2])


def read_generation(body: Any) -> RawAnswer:
    """The structured answer of a ``generateContent`` reply, or why there is none."""
    if not isinstance(body, Mapping):
        return RawAnswer(None, None, "the answer is not a JSON object")
    usage = _usage(body)
    candidates = body.get("candidates")
    if not isinstance(candidates, list) or not candidates \
            or not isinstance(candidates[0], Mapping):
        feedback = body.get("promptFeedback")
        reason = feedback.get("blockReason") if isinstance(feedback, Mapping) else None
        return RawAnswer(None, usage, f"the answer has no candidate (prompt blocked: {reason})"
                         if reason else "the answer has no candidate")
    first = candidates[0]
    finish = first.get("finishReason")
    if finish != "STOP":
        return RawAnswer(None, usage, f"the answer ended with finishReason {finish!r}, not "
                                      "'STOP' (truncated, blocked or incomplete)")
    content = first.get("content")
    parts = content.get("parts") if isinstance(content, Mapping) else None
    texts = [p["text"] for p in parts or [] if isinstance(p, Mapping)
             and isinstance(p.get("text"), str) and not p.get("thought")]
    if not texts:
        return RawAnswer(None, usage, "the answer has no text part")
    try:
        return RawAnswer(loads_strict("".join(texts)), usage)
    except ValueError as exc:
        return RawAnswer(None, usage, f"the answer's text is not JSON ({exc})")
