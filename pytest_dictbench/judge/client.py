"""Calling one judge through the anthropic SDK and validating its answer.

The SDK's own retries are off (``max_retries=0``): the runner does its own backoff, so
that attempts, delays and ``retry-after`` handling are ours and testable. This module
retries only an *invalid answer* (no tool call, a body that is not JSON, a tool input
that breaks the schema): once, then :class:`~pytest_dictbench.errors.JudgeError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from anthropic import AsyncAnthropic

from ..errors import JudgeError
from .records import JudgeConfig, JudgeRequest, SpendMeter, TokenUsage, Verdict
from .request import TOOL_NAME, build_params, cache_key, parse_verdicts

__all__ = [
    "AnthropicClientFactory",
    "AnthropicJudgeClient",
    "ClientFactory",
    "JudgeClient",
    "RawAnswer",
    "ask_judge",
    "read_message",
    "shorten",
]

#: Attempts at getting a valid answer for one request (the first plus one retry).
ANSWER_ATTEMPTS = 2


def shorten(text: str, keep: int = 120) -> str:
    """One line, both ends kept: jsonschema and API messages can quote whole values.

    Redact before shortening, so that no fragment of a secret survives the cut.
    """
    text = " ".join(text.split())
    return text if len(text) <= 2 * keep else f"{text[:keep]} ... {text[-keep:]}"


class RawAnswer:
    """What came back from one successful HTTP call: the tool input, or why there is none."""

    __slots__ = ("problem", "tool_input", "usage")

    def __init__(self, tool_input: Any = None, usage: TokenUsage | None = None, problem: str = ""):
        self.tool_input = tool_input
        self.usage = usage or TokenUsage()
        self.problem = problem


class JudgeClient(Protocol):
    """The transport the runner uses; :class:`AnthropicJudgeClient` is the real one."""

    async def send(self, params: Mapping[str, Any]) -> RawAnswer:
        """One Messages API call; API errors propagate as the SDK raises them."""
        ...

    def redact(self, text: str) -> str:
        """``text`` with any secret this client holds replaced."""
        ...

    async def aclose(self) -> None: ...


#: Builds the client for one judge configuration (called only when a request is sent).
ClientFactory = Callable[[JudgeConfig], JudgeClient]


def _usage_of(message: Any) -> TokenUsage:
    usage = getattr(message, "usage", None)
    if usage is None:
        return TokenUsage()
    return TokenUsage(
        int(getattr(usage, "input_tokens", 0) or 0), int(getattr(usage, "output_tokens", 0) or 0)
    )


def read_message(message: Any, tool: str = TOOL_NAME) -> RawAnswer:
    """Find the call of ``tool`` (``record_verdicts`` by default) in an SDK ``Message``."""
    usage = _usage_of(message)
    content = getattr(message, "content", None)
    if not isinstance(content, list):
        return RawAnswer(None, usage, "response has no content list")
    for block in content:
        if getattr(block, "type", None) == "tool_use" and getattr(block, "name", "") == tool:
            return RawAnswer(getattr(block, "input", None), usage)
    stop = getattr(message, "stop_reason", None)
    return RawAnswer(None, usage, f"no {tool} call in the response (stop_reason {stop})")


class AnthropicJudgeClient:
    """One judge's connection: an ``AsyncAnthropic`` with SDK retries off."""

    def __init__(
        self,
        config: JudgeConfig,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
    ):
        self._config = config
        self._secret = api_key
        self._sdk = AsyncAnthropic(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout
        )

    def __repr__(self) -> str:
        return f"AnthropicJudgeClient(judge={self._config.name!r}, model={self._config.model!r})"

    async def send(self, params: Mapping[str, Any]) -> RawAnswer:
        extra = None
        if self._config.temperature is not None:
            extra = {"temperature": self._config.temperature}
        try:
            message = await self._sdk.messages.create(**params, extra_body=extra)
        except json.JSONDecodeError as exc:  # a 200 whose body is not JSON
            return RawAnswer(None, None, f"response body is not JSON ({exc.msg})")
        # the tool the request forces (the workbench's drafting calls use their own)
        return read_message(message, params.get("tool_choice", {}).get("name", TOOL_NAME))

    def redact(self, text: str) -> str:
        return text.replace(self._secret, "[redacted]") if self._secret else text

    async def aclose(self) -> None:
        await self._sdk.close()


class AnthropicClientFactory:
    """Makes :class:`AnthropicJudgeClient` s with one key, base URL and timeout.

    The key is ``api_key`` or ``ANTHROPIC_API_KEY``; the base URL is ``base_url`` or
    ``ANTHROPIC_BASE_URL`` (else the SDK default). A missing key is reported only when a
    request actually has to be sent, so ``replay`` and warm-cache runs need no key.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
    ):
        self._api_key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY")
        self.base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"AnthropicClientFactory(base_url={self.base_url!r}, timeout={self.timeout!r})"

    def __call__(self, config: JudgeConfig) -> AnthropicJudgeClient:
        if not self._api_key:
            raise JudgeError(
                f"judge {config.name!r} must call the API but no key is set: "
                "export ANTHROPIC_API_KEY or use --judge=replay"
            )
        return AnthropicJudgeClient(
            config, api_key=self._api_key, base_url=self.base_url, timeout=self.timeout
        )


async def ask_judge(
    client: JudgeClient,
    request: JudgeRequest,
    config: JudgeConfig,
    meter: SpendMeter,
) -> Verdict:
    """Ask one judge about one request; retry an invalid answer once.

    API errors propagate (the runner decides about backoff). Every call and every
    token is counted in ``meter``, invalid answers included.
    """
    params = build_params(request, config)
    usage = TokenUsage()
    problem = ""
    for _attempt in range(ANSWER_ATTEMPTS):
        meter.count_call(config)
        answer = await client.send(params)
        meter.add_usage(config, answer.usage)
        usage = usage + answer.usage
        problem = answer.problem
        if not problem:
            try:
                rules = parse_verdicts(answer.tool_input, request.rule_ids)
            except ValueError as exc:
                problem = str(exc)
            else:
                return Verdict(config.name, config.model, cache_key(request, config), rules, usage)
    raise JudgeError(
        f"judge {config.name!r} gave no valid answer in {ANSWER_ATTEMPTS} attempts "
        f"for {request.key}: {shorten(client.redact(problem))}"
    )
