"""A judge behind any OpenAI-compatible chat-completions endpoint with structured output.

The request: a system message (the task's guide), a user message, and
``response_format = {"type": "json_schema", "json_schema": {"name": <tool name>,
"strict": true, "schema": <the request's strict answer schema>}}``. The answer is the
message content parsed as JSON, validated by the task like an Anthropic tool input.

Plain stdlib HTTP (``urllib``) run in a worker thread, so no client package is needed.
Failures raise :class:`~.client.TransportError` with the status and headers, which the
runner retries like the anthropic SDK's errors. The key travels only in the
``Authorization`` header and is redacted from every message.

Usage: ``prompt_tokens`` includes cached prompt tokens
(``prompt_tokens_details.cached_tokens``); they are counted as cache reads and the
rest as input, the way the Messages API reports them.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import time
import urllib.error
import urllib.request
from typing import Any

from ..jsonl import loads_strict
from ..redact import scrub_quote
from .records import JudgeConfig, TokenUsage, usage_from
from .task import Prompt
from .transport import RawAnswer, TransportError, check_key_url, error_body

__all__ = ["OpenAIJudgeClient", "chat_body", "read_completion"]


def chat_body(prompt: Prompt, config: JudgeConfig) -> dict[str, Any]:
    """The JSON body of a ``/chat/completions`` request for ``prompt``."""
    body: dict[str, Any] = {
        "model": prompt.model,
        "max_tokens": prompt.max_tokens,
        "messages": [{"role": "system", "content": prompt.system},
                     {"role": "user", "content": prompt.user}],
        "response_format": {"type": "json_schema", "json_schema": {
            "name": prompt.tool_name, "description": prompt.tool_description,
            "strict": True, "schema": dict(prompt.answer_schema)}},
    }
    if config.temperature is not None:
        body["temperature"] = config.temperature
    return body


def _usage(data: Any) -> TokenUsage:
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return TokenUsage(unknown=True)
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else 0
    counts = usage_from({"prompt": usage.get("prompt_tokens"),
                         "completion": usage.get("completion_tokens"),
                         "cached": cached or 0}, ("prompt", "completion", "", "cached"))
    if counts.unknown or counts.cache_read_tokens > counts.input_tokens:
        return TokenUsage(unknown=True)
    return TokenUsage(counts.input_tokens - counts.cache_read_tokens, counts.output_tokens,
                      0, counts.cache_read_tokens)


def read_completion(data: Any) -> RawAnswer:
    """The structured answer of a chat completion, or why there is none."""
    usage = _usage(data)
    choices = data.get("choices") if isinstance(data, dict) else None
    if isinstance(choices, list) and len(choices) > 1:  # we never ask for n > 1
        return RawAnswer(None, usage, f"response has {len(choices)} choices, not one")
    try:
        choice = data["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError):
        return RawAnswer(None, usage, "response has no choices[0].message")
    finish = choice.get("finish_reason")
    if finish != "stop":
        return RawAnswer(None, usage, f"the answer ended with finish_reason {finish!r}, "
                                      "not 'stop' (truncated or incomplete)")
    if message.get("refusal"):
        return RawAnswer(None, usage, f"the model refused: {message['refusal']}")
    content = message.get("content")
    if not isinstance(content, str):
        return RawAnswer(None, usage, "message content is not text")
    try:
        return RawAnswer(loads_strict(content), usage)
    except ValueError as exc:
        return RawAnswer(None, usage, f"message content is not JSON ({exc})")


_STREAM_HINT = ("judge {judge!r} at {url}: the endpoint seems to require or send "
                "streaming, which this client does not support (it sends stream=false and "
                "reads one JSON body)")


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an error: the Authorization header must not follow it elsewhere."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class OpenAIJudgeClient:
    """One judge's connection to an OpenAI-compatible endpoint.

    The key is sent only over https or to a loopback address, and never follows a
    redirect.
    """

    def __init__(self, config: JudgeConfig, *, api_key: str, base_url: str,
                 timeout: float = 60.0):
        check_key_url(config.name, base_url)
        self._config = config
        self._secret = api_key
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_NoRedirects())

    def __repr__(self) -> str:
        return f"OpenAIJudgeClient(judge={self._config.name!r}, model={self._config.model!r})"

    def _post(self, body: bytes) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(self.url, data=body, method="POST", headers={
            "content-type": "application/json", "authorization": f"Bearer {self._secret}"})
        deadline = time.monotonic() + self.timeout
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                return response.status, dict(response.headers.items()), \
                    self._read_by(response, deadline)
        except urllib.error.HTTPError as exc:
            headers = {k.lower(): v for k, v in exc.headers.items()} if exc.headers else {}
            detail = exc.read()[:300].decode("utf-8", "replace")
            if "stream" in detail.lower():
                detail += f" ({_STREAM_HINT.format(judge=self._config.name, url=self.url)})"
            raise TransportError(f"HTTP {exc.code} from {self.url}: {detail}",
                                 status_code=exc.code, headers=headers) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)  # refused, reset, timed out, cut short
            raise TransportError(f"judge {self._config.name!r}: connection to {self.url} "
                                 f"failed: {type(reason).__name__}: {reason}") from None

    def _read_by(self, response: Any, deadline: float) -> bytes:
        """The body, read in pieces until ``deadline``: ``timeout`` bounds the whole call,
        not each socket read, so an answer that trickles in is cut off."""
        parts = []
        while True:
            if time.monotonic() > deadline:
                raise TransportError(f"judge {self._config.name!r}: no complete answer "
                                     f"from {self.url} within the {self.timeout} s timeout")
            piece = response.read1(65536)
            if not piece:
                return b"".join(parts)
            parts.append(piece)

    async def send(self, prompt: Prompt) -> RawAnswer:
        payload = json.dumps(chat_body(prompt, self._config)).encode("utf-8")
        try:  # a hard deadline per call; the worker stops at its next read
            _status, _headers, raw = await asyncio.wait_for(
                asyncio.to_thread(self._post, payload), self.timeout + 1.0)
        except TimeoutError:
            raise TransportError(f"judge {self._config.name!r}: no complete answer from "
                                 f"{self.url} within the {self.timeout} s timeout") from None
        if raw.lstrip().startswith(b"data:"):  # server-sent events: a stream we cannot read
            return RawAnswer(None, None, "the endpoint sent a stream; " + _STREAM_HINT.format(
                judge=self._config.name, url=self.url))
        try:
            data = loads_strict(raw.decode("utf-8"))
        except ValueError as exc:
            return RawAnswer(None, None, f"response body is not JSON ({exc})")
        failure = error_body(data, self._config.name)
        if failure is not None:
            raise failure
        return read_completion(data)

    def redact(self, text: str) -> str:
        return scrub_quote(text.replace(self._secret, "[redacted]") if self._secret else text)

    async def aclose(self) -> None:
        return None
