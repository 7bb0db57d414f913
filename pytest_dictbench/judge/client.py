"""Calling one judge (the Messages API over httpx2, batches through the anthropic SDK)
and validating its answer.

Neither client retries (the SDK has ``max_retries=0``): the runner does the backoff, so
that attempts, delays and ``retry-after`` handling are ours and testable. This module
retries only an *invalid answer* (no tool call, a body that is not JSON, a tool input
that breaks the schema): once, then :class:`~pytest_dictbench.errors.JudgeError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import replace
from typing import Any, Protocol

from ..errors import JudgeError
from ..jsonl import loads_strict
from ..redact import register_secret, scrub_quote
from .estimate import Budget, worst_case_cost
from .records import JudgeConfig, JudgeRequest, SpendMeter, TokenUsage, Verdict, usage_from
from .request import cache_key, task_of
from .task import Prompt, anthropic_params
from .transport import RawAnswer, TransportError, check_key_url, error_body, shorten

__all__ = [
    "AnthropicClientFactory",
    "AnthropicJudgeClient",
    "BudgetExceeded",
    "ClientFactory",
    "JudgeClient",
    "JudgeClientFactory",
    "RawAnswer",
    "TransportError",
    "ask_judge",
    "check_key_url",
    "read_message",
    "shorten",
]

#: Attempts at getting a valid answer for one request (the first plus one retry).
ANSWER_ATTEMPTS = 2


class JudgeClient(Protocol):
    """The transport the runner uses: :class:`AnthropicJudgeClient` or
    :class:`~.openai_client.OpenAIJudgeClient`."""

    async def send(self, prompt: Prompt) -> RawAnswer:
        """One API call; API errors propagate (SDK errors or :class:`TransportError`)."""
        ...

    def redact(self, text: str) -> str:
        """``text`` with any secret this client holds replaced."""
        ...

    async def aclose(self) -> None: ...


#: Builds the client for one judge configuration (called only when a request is sent).
ClientFactory = Callable[[JudgeConfig], JudgeClient]


_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                 "cache_read_input_tokens")


def _field(value: Any, name: str, default: Any = None) -> Any:
    """A field of an SDK object, or the same key of the JSON object it was read from."""
    if isinstance(value, Mapping):
        return value.get(name, default)
    return getattr(value, name, default)


def _usage_of(message: Any) -> TokenUsage:
    """The answer's usage; missing or invalid (negative, not an integer) is unknown."""
    usage = _field(message, "usage")
    if usage is None:
        return TokenUsage(unknown=True)
    counts = usage_from({name: _field(usage, name) for name in _USAGE_FIELDS},
                        _USAGE_FIELDS)
    one_hour = _field(_field(usage, "cache_creation"), "ephemeral_1h_input_tokens", 0)
    if counts.unknown or not one_hour:
        return counts
    if not isinstance(one_hour, int) or not 0 <= one_hour <= counts.cache_write_tokens:
        return TokenUsage(unknown=True)
    return replace(counts, cache_write_1h_tokens=one_hour)


def _lax_usage(text: str) -> TokenUsage | None:
    """The usage of a body the strict reader refused, when a lax read finds one: its
    tokens were billed all the same."""
    try:
        usage = json.loads(text).get("usage")
    except (ValueError, AttributeError):
        return None
    if not isinstance(usage, dict):
        return None
    return usage_from(usage, _USAGE_FIELDS)


def read_message(message: Any, tool_name: str) -> RawAnswer:
    """Find the one ``tool_name`` tool call in a Messages API answer (an SDK ``Message``
    or its JSON object): none, or more than one (which may disagree), is an invalid
    answer."""
    usage = _usage_of(message)
    content = _field(message, "content")
    if not isinstance(content, list):
        return RawAnswer(None, usage, "response has no content list")
    calls = [block for block in content if _field(block, "type") == "tool_use"
             and _field(block, "name", "") == tool_name]
    if len(calls) > 1:
        return RawAnswer(None, usage, f"response has {len(calls)} {tool_name} calls, not one")
    if calls:
        return RawAnswer(_field(calls[0], "input"), usage)
    stop = _field(message, "stop_reason")
    return RawAnswer(None, usage, f"no {tool_name} call in the response (stop_reason {stop})")


class AnthropicJudgeClient:
    """One judge's connection: live calls through :class:`~.messages_http.MessagesEndpoint`,
    Message Batches and token counts through an ``AsyncAnthropic`` (made on first use,
    SDK retries off)."""

    def __init__(
        self,
        config: JudgeConfig,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
    ):
        from .messages_http import MessagesEndpoint  # httpx2 loads only when a judge is asked

        check_key_url(config.name, base_url)  # plain http only to loopback, as the factory
        self._config = config
        self._secret = api_key
        self._base_url, self._timeout = base_url, timeout
        self._sdk: Any = None
        self.endpoint = MessagesEndpoint(api_key=api_key, base_url=base_url, timeout=timeout)

    def __repr__(self) -> str:
        return f"AnthropicJudgeClient(judge={self._config.name!r}, model={self._config.model!r})"

    @property
    def sdk(self) -> Any:
        """The ``AsyncAnthropic`` for batches and token counts (the SDK loads on first use)."""
        if self._sdk is None:
            from anthropic import AsyncAnthropic

            self._sdk = AsyncAnthropic(api_key=self._secret, base_url=self._base_url,
                                       max_retries=0, timeout=self._timeout)
        return self._sdk

    def params(self, prompt: Prompt) -> dict[str, Any]:
        """The Messages API parameters of ``prompt`` (temperature only when set)."""
        params = anthropic_params(prompt)
        if self._config.temperature is not None:
            params["temperature"] = self._config.temperature
        return params

    async def send(self, prompt: Prompt) -> RawAnswer:
        text = await self.endpoint.create(self.params(prompt))
        try:  # the one strict reader: a duplicate key or NaN makes the answer invalid
            data = loads_strict(text)
        except ValueError as exc:
            return RawAnswer(None, _lax_usage(text), f"response body is not valid JSON ({exc})")
        failure = error_body(data, self._config.name)
        if failure is not None:
            raise failure
        return read_message(data, prompt.tool_name)

    async def count_tokens(self, prompt: Prompt) -> int:
        """Input tokens of ``prompt`` by the API's own count (a network call, not billed)."""
        params = anthropic_params(prompt)
        params.pop("max_tokens")
        result = await self.sdk.messages.count_tokens(**params)
        return int(result.input_tokens)

    def redact(self, text: str) -> str:
        return scrub_quote(text.replace(self._secret, "[redacted]") if self._secret else text)

    async def aclose(self) -> None:
        await self.endpoint.aclose()
        if self._sdk is not None:
            await self._sdk.close()


class JudgeClientFactory:
    """Makes each judge's client from its family, endpoint and key variable.

    Anthropic judges: the key is ``api_key``, else the judge's ``api_key_env``, else
    ``ANTHROPIC_API_KEY``; the base URL is the judge's ``base_url``, else ``base_url``
    here, else ``ANTHROPIC_BASE_URL`` (else the SDK default). OpenAI-compatible judges:
    the key is the judge's ``api_key_env`` (default ``OPENAI_API_KEY``) and the base URL
    the judge's ``base_url``, else ``OPENAI_BASE_URL``. A missing key is reported only
    when a request actually has to be sent, so ``replay`` and warm-cache runs need none.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        environ: Mapping[str, str] | None = None,
    ):
        self._environ = os.environ if environ is None else environ
        self._api_key = api_key
        self.base_url = base_url or self._environ.get("ANTHROPIC_BASE_URL") or None
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, timeout={self.timeout!r})"

    def _key(self, config: JudgeConfig, default_env: str) -> str:
        variable = config.api_key_env or default_env
        key = self._environ.get(variable)
        if config.family == "anthropic" and self._api_key and not config.api_key_env:
            key = self._api_key
        if not key:
            raise JudgeError(
                f"judge {config.name!r} must call the API but no key is set: "
                f"export {variable} or use --judge=replay"
            )
        register_secret(key)  # scrubbed from every file written from now on
        return key

    def __call__(self, config: JudgeConfig) -> JudgeClient:
        if config.family == "openai":
            from .openai_client import OpenAIJudgeClient

            base_url = config.base_url or self._environ.get("OPENAI_BASE_URL")
            if not base_url:
                raise JudgeError(f"judge {config.name!r} (family openai) needs a base_url "
                                 "or OPENAI_BASE_URL")
            return OpenAIJudgeClient(config, api_key=self._key(config, "OPENAI_API_KEY"),
                                     base_url=base_url, timeout=self.timeout)
        base_url = config.base_url or self.base_url
        check_key_url(config.name, base_url)
        return AnthropicJudgeClient(
            config, api_key=self._key(config, "ANTHROPIC_API_KEY"), base_url=base_url,
            timeout=self.timeout
        )


#: The factory's earlier name (it made Anthropic clients only).
AnthropicClientFactory = JudgeClientFactory


class BudgetExceeded(JudgeError):
    """The next call would take the run over its ``budget_usd``; it was not sent."""


async def _call(client: JudgeClient, prompt: Prompt, request: JudgeRequest,
                config: JudgeConfig, meter: SpendMeter, budget: Budget | None) -> RawAnswer:
    """One call, its worst case reserved first and settled by its answer's cost."""
    limited = budget is not None and budget.limited
    held = worst_case_cost(config, prompt) if limited else 0.0
    if budget is not None and not budget.reserve(held):
        raise BudgetExceeded(f"judge {config.name!r}: {request.key} not sent, the "
                             "budget would be exceeded")
    meter.count_call(config)
    try:
        answer = await client.send(prompt)
    except BaseException:
        if budget is not None:  # an error answer is not billed
            budget.settle(held, 0.0)
        raise
    if budget is not None:  # an unknown cost keeps its worst case as spent
        cost = config.cost_usd(answer.usage)
        budget.settle(held, held if cost is None else cost)
    return answer


async def ask_judge(
    client: JudgeClient,
    request: JudgeRequest,
    config: JudgeConfig,
    meter: SpendMeter,
    budget: Budget | None = None,
    slot: AbstractAsyncContextManager[Any] | None = None,
) -> Verdict:
    """Ask one judge about one request; retry an invalid answer once.

    API errors propagate (the runner decides about backoff). Every call and every
    token is counted in ``meter``, invalid answers included. With a ``budget``, each
    call's worst case is reserved first (:class:`BudgetExceeded` when it does not fit).
    ``slot`` (the runner's concurrency limit) is held only while the call is in flight:
    the prompt is built before it, the answer read after it.
    """
    task = task_of(request)
    prompt = task.prompt(request, config)
    usage = TokenUsage()
    problem = ""
    for _attempt in range(ANSWER_ATTEMPTS):
        async with slot or nullcontext():  # a call waiting for its slot holds no budget
            answer = await _call(client, prompt, request, config, meter, budget)
        meter.add_usage(config, answer.usage)
        usage = usage + answer.usage
        problem = answer.problem
        if not problem:
            try:
                rules, extra = task.parse(answer.tool_input, request)
            except ValueError as exc:
                problem = str(exc)
            else:
                return Verdict(config.name, config.model, cache_key(request, config), rules,
                               usage, extra=extra)
    raise JudgeError(
        f"judge {config.name!r} gave no valid answer in {ANSWER_ATTEMPTS} attempts "
        f"for {request.key}: {shorten(client.redact(problem))}"
    )
