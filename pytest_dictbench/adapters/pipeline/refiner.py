"""Running a pipeline's refine steps: the language-model calls and their cache.

Each step is one call through a judge client (:mod:`pytest_dictbench.judge.client`), or
for ``client = "gemini"`` the Gemini client (:mod:`.gemini_client`):
the instruction, filled in, is the user turn, and the model answers through a one-field
tool (``{"text": ...}``; structured output on an OpenAI-compatible endpoint), so the
rewrite never carries a preamble. Failed calls are retried by the judges' backoff
(:func:`~pytest_dictbench.judge.backoff.with_backoff`) and an invalid answer is asked for
once more.

A step's rewrite is cached under a hash of (input text, client, model, template,
template values, temperature, max_tokens): one JSON file per key in the cache folder,
written atomically, so a re-run, another product sharing the step, or a parallel worker
costs nothing. Failures are not cached: they are tried again on the next run.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import DictbenchError, OutputError
from ...files import atomic_write
from ...jsonl import canonical_line, read_json
from ...judge.backoff import GaveUp, with_backoff
from ...judge.client import JudgeClient, JudgeClientFactory
from ...judge.records import JudgeConfig, RetryPolicy, TokenUsage, content_hash
from ...judge.task import Prompt
from ...redact import scrub_quote
from ...schemas import checked_schema
from .steps import RefineStep, fill_template

__all__ = ["REFINE_TOOL", "RefineCache", "Refiner", "StepResult", "step_key"]

#: Changes whenever the request format changes, so old cache entries stop matching.
PROMPT_VERSION = "refine-1"
SYSTEM = ("You rewrite dictated text as the instruction says. Call the tool with the "
          "rewritten text and nothing else: no preamble, no notes.")
REFINE_TOOL = "rewritten_text"
ANSWER_SCHEMA: Mapping[str, Any] = {
    "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"],
    "additionalProperties": False}
#: Attempts at a valid answer (the first plus one), as the judges do.
ANSWER_ATTEMPTS = 2


#: Plain Draft 2020-12 validation of :data:`ANSWER_SCHEMA` (``jsonschema`` loads on the
#: first answer, not with the plugin).
_ANSWERS = checked_schema(ANSWER_SCHEMA, ecma=False)


@dataclass(frozen=True)
class StepResult:
    """What one step gave for one text: the rewrite, or why there is none."""

    step: str
    model: str
    text: str | None
    error: str | None = None
    #: The call's wall time (for a cache hit: the original call's).
    latency_ms: float | None = None
    #: List price of the call (for a cache hit: the original call's; nothing is spent).
    cost_usd: float = 0.0
    usage: TokenUsage = field(default_factory=TokenUsage)
    cached: bool = False
    #: API calls this run made for the step (0 for a cache hit).
    calls: int = 0
    #: The rewrite equals the text it was given.
    unchanged: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "model": self.model, "status": "error" if self.error
                else "complete", "error": self.error, "latency_ms": self.latency_ms,
                "cost_usd": self.cost_usd, "usage": self.usage.to_json(),
                "cached": self.cached, "calls": self.calls,
                "empty": self.text is not None and not self.text.strip(),
                "unchanged": self.unchanged}


def step_key(step: RefineStep, text: str, values: Mapping[str, str]) -> str:
    """The cache key of ``step`` rewriting ``text`` with template ``values`` (only the
    values its template uses count)."""
    used = {k: v for k, v in values.items() if "{" + k + "}" in step.template}
    return content_hash({"version": PROMPT_VERSION, "system": SYSTEM,
                         **step.key_settings(), "text": text, "values": used})


class RefineCache:
    """One JSON file per key under ``folder`` (``<key[:2]>/<key>.json``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry, ``None`` when absent; a damaged entry raises :class:`OutputError`."""
        path = self.path(key)
        if not path.exists():
            return None
        entry = read_json(path, OutputError)
        if not isinstance(entry, dict) or entry.get("key") != key \
                or not isinstance(entry.get("text"), str):
            raise OutputError("refine cache entry is damaged (needs its key and a text); "
                              "delete it to call the model again", path=path)
        return entry

    def put(self, key: str, entry: Mapping[str, Any]) -> None:
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, canonical_line({**entry, "key": key}) + "\n")


def judge_config(step: RefineStep) -> JudgeConfig:
    """The judge configuration that carries ``step`` through a judge client."""
    return JudgeConfig(name=step.name, model=step.model, temperature=step.temperature,
                       max_tokens=step.max_tokens, price_in_per_mtok=step.price_in_per_mtok,
                       price_out_per_mtok=step.price_out_per_mtok, family=step.client,
                       base_url=step.base_url, api_key_env=step.api_key_env)


class Refiner:
    """Runs a chain of steps over many texts, ``concurrency`` calls at a time."""

    def __init__(self, steps: Sequence[RefineStep], cache: RefineCache, *,
                 factory: Any = None, retry: RetryPolicy | None = None,
                 concurrency: int = 4, timeout: float = 60.0) -> None:
        self.steps = tuple(steps)
        self.cache = cache
        self.factory = factory or JudgeClientFactory(timeout=timeout)
        self.retry = retry or RetryPolicy()
        self.concurrency = concurrency
        self.timeout = timeout
        #: API calls made so far (each attempt counts).
        self.calls = 0

    def _client(self, step: RefineStep, config: JudgeConfig) -> JudgeClient:
        """The client of ``step``: the judges' factory's, or the Gemini one (which
        retries transient failures itself, with the same policy)."""
        if step.client != "gemini":
            return self.factory(config)
        from .gemini_client import GeminiRefineClient

        return GeminiRefineClient(config, timeout=self.timeout, policy=self.retry)

    def run(self, jobs: Sequence[tuple[str, Mapping[str, str]]]) -> list[list[StepResult]]:
        """For each (raw text, template values): the results of the steps it went
        through (a chain stops at its first failed step)."""
        if not jobs:
            return []
        return asyncio.run(self._run_all(jobs))

    async def _run_all(self, jobs: Sequence[tuple[str, Mapping[str, str]]]
                       ) -> list[list[StepResult]]:
        loop = asyncio.get_running_loop()
        executor = ThreadPoolExecutor(max_workers=max(4, self.concurrency))
        loop.set_default_executor(executor)  # the OpenAI client sends from threads
        gate = asyncio.Semaphore(self.concurrency)
        clients: dict[str, JudgeClient] = {}
        try:
            return list(await asyncio.gather(*(self._chain(text, values, gate, clients)
                                               for text, values in jobs)))
        finally:
            for client in clients.values():
                await client.aclose()
            executor.shutdown(wait=False)

    async def _chain(self, text: str, values: Mapping[str, str], gate: asyncio.Semaphore,
                     clients: dict[str, JudgeClient]) -> list[StepResult]:
        results: list[StepResult] = []
        current = text
        for step in self.steps:
            result = await self._step(step, current, values, gate, clients)
            results.append(result)
            if result.error is not None or result.text is None:
                break
            current = result.text
        return results

    async def _step(self, step: RefineStep, text: str, values: Mapping[str, str],
                    gate: asyncio.Semaphore, clients: dict[str, JudgeClient]) -> StepResult:
        key = step_key(step, text, values)
        hit = self.cache.get(key)
        if hit is not None:
            return StepResult(step.name, step.model, hit["text"], None,
                              hit.get("latency_ms"), float(hit.get("cost_usd", 0.0)),
                              TokenUsage(**hit.get("usage", {})), cached=True,
                              unchanged=hit["text"] == text)
        config = judge_config(step)
        prompt = Prompt(model=step.model, max_tokens=step.max_tokens, system=SYSTEM,
                        user=fill_template(step.template, {**values, "text": text}),
                        tool_name=REFINE_TOOL, tool_description="The rewritten text.",
                        tool_schema=ANSWER_SCHEMA, answer_schema=ANSWER_SCHEMA)
        calls = [0]  # this step's attempts (self.calls is shared by concurrent tasks)
        async with gate:
            start = time.perf_counter()
            try:
                text_out, usage = await self._ask(step, config, prompt, clients, calls)
            except Exception as exc:
                return StepResult(step.name, step.model, None,
                                  _describe(exc, clients, step.name), calls=calls[0])
            latency = round((time.perf_counter() - start) * 1000, 3)
        cost = config.cost_usd(usage)
        self.cache.put(key, {"step": step.name, "client": step.client, "model": step.model,
                             "text": text_out, "latency_ms": latency, "cost_usd": cost,
                             "usage": usage.to_json()})
        return StepResult(step.name, step.model, text_out, None, latency, cost, usage,
                          calls=calls[0], unchanged=text_out == text)

    async def _ask(self, step: RefineStep, config: JudgeConfig, prompt: Prompt,
                   clients: dict[str, JudgeClient], calls: list[int]
                   ) -> tuple[str, TokenUsage]:
        if step.name not in clients:  # a missing key is reported here
            clients[step.name] = self._client(step, config)
        client = clients[step.name]

        async def send() -> Any:
            self.calls += 1
            calls[0] += 1
            return await client.send(prompt)

        rng = random.Random(f"{self.retry.seed}:refine:{step.name}:{prompt.user}")
        usage = TokenUsage()
        problem = ""
        for _ in range(ANSWER_ATTEMPTS):
            answer = await with_backoff(send, self.retry, rng, asyncio.sleep)
            usage = usage + answer.usage
            problem = answer.problem
            if not problem:
                errors = list(_ANSWERS.python.iter_errors(answer.tool_input))
                if not errors:
                    return answer.tool_input["text"], usage
                problem = f"answer invalid: {errors[0].message}"
        raise DictbenchError(f"no valid rewrite in {ANSWER_ATTEMPTS} attempts: "
                             f"{client.redact(problem)[:300]}")


def _describe(exc: BaseException, clients: Mapping[str, JudgeClient], step: str) -> str:
    """A failed call in one line, with no secret in it."""
    attempts = exc.attempts if isinstance(exc, GaveUp) else 1
    error = exc.error if isinstance(exc, GaveUp) else exc
    status = getattr(error, "status_code", None)
    text = str(error)
    if not isinstance(error, DictbenchError) and not (
            status and text.startswith(f"HTTP {status}")):
        text = f"{type(error).__name__}{f' (HTTP {status})' if status else ''}: {error}"
    client = clients.get(step)
    if client is not None:
        text = client.redact(text)
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    return scrub_quote(" ".join(f"{text}{tries}".split()))[:500]
