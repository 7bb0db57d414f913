"""The workbench's two model calls, through the judges' client: key points drafted from
a transcript, and a decision drafted for a judge disagreement.

Both force one tool call whose input is validated with jsonschema; an invalid answer is
retried once, then raises :class:`~pytest_dictbench.errors.JudgeError`. A rate limit,
an overload or a lost connection is retried with the judges' backoff
(:func:`~pytest_dictbench.judge.backoff.with_backoff`, honouring ``retry-after``). A drafted
decision is cached by content hash in a :class:`~pytest_dictbench.judge.cache.VerdictCache`
(its own file), exactly as verdicts are; it is only ever shown as a draft.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

from ..errors import JudgeError
from ..judge.backoff import GaveUp, with_backoff
from ..judge.client import AnthropicClientFactory, JudgeClient, shorten
from ..judge.records import (
    JudgeConfig,
    RetryPolicy,
    RuleVerdict,
    TokenUsage,
    Verdict,
    content_hash,
)
from ..judge.settings import JudgeSettings
from ..judge.task import Prompt

__all__ = ["DECISION_TOOL", "DRAFT_FORMAT", "KEYPOINT_TOOL", "Drafter", "keypoint_count"]

KEYPOINT_TOOL = "record_key_points"
DECISION_TOOL = "record_decision"
#: Enters the cache key of drafted decisions; bump when the prompt or tool changes.
DRAFT_FORMAT = 1
_ATTEMPTS = 2

_KEYPOINT_SYSTEM = (
    "You help build a dictation benchmark. From a verified transcript, list the key "
    "points a listener must get right: one self-contained statement each, in the "
    "transcript's language, in the order spoken. Mark a point critical when getting it "
    "wrong would change what the speaker meant or asked for (names, numbers, dates, "
    "decisions, negations), otherwise minor."
)
_DECISION_SYSTEM = (
    "Two judges scored one rule of a dictation output differently. Propose the score a "
    "careful human reviewer would give (0, 1 or 2) with a one-sentence reason. Quote the "
    "words of the output the disagreement is about in double quotes. A person will "
    "accept or change your proposal."
)


#: The most key points asked for one case, however long its audio.
MAX_KEY_POINTS = 60


def keypoint_count(duration_s: float, per_seconds: float) -> int:
    """How many key points to ask for: one per ``per_seconds`` of audio, at least 3 and
    at most :data:`MAX_KEY_POINTS`."""
    if not (math.isfinite(duration_s) and math.isfinite(per_seconds) and per_seconds > 0):
        raise ValueError(f"cannot count key points for {duration_s} s at one per "
                         f"{per_seconds} s")
    return min(MAX_KEY_POINTS, max(3, math.ceil(duration_s / per_seconds)))


def _keypoint_schema(count: int) -> dict[str, Any]:
    point = {"type": "object", "additionalProperties": False,
             "required": ["text", "severity"],
             "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 400},
                            "severity": {"enum": ["critical", "minor"]}}}
    return {"type": "object", "required": ["key_points"],
            "properties": {"key_points": {"type": "array", "items": point,
                                          "minItems": count, "maxItems": count}}}


_DECISION_SCHEMA = {
    "type": "object", "required": ["score", "reason"],
    "properties": {"score": {"type": "integer", "enum": [0, 1, 2]},
                   "reason": {"type": "string", "minLength": 1, "maxLength": 500}},
}


def _params(config: JudgeConfig, system: str, text: str, tool: str, schema: dict[str, Any],
            description: str) -> Prompt:
    return Prompt(model=config.model, max_tokens=config.max_tokens, system=system, user=text,
                  tool_name=tool, tool_description=description, tool_schema=schema,
                  answer_schema=schema)


class Drafter:
    """One model (a :class:`JudgeConfig`) and a client factory, used synchronously."""

    def __init__(self, config: JudgeConfig, settings: JudgeSettings | None = None,
                 factory: Any = None, retry: RetryPolicy | None = None) -> None:
        self.config = config
        timeout = settings.timeout if settings else 60.0
        base_url = settings.base_url if settings else None
        self._factory = factory or AnthropicClientFactory(base_url=base_url, timeout=timeout)
        self.retry = retry or RetryPolicy()
        self.usage = TokenUsage()
        self.calls = 0

    @classmethod
    def from_settings(cls, settings: JudgeSettings, model: str | None = None) -> Drafter:
        """The drafter for a ``[judge]`` table: its first judge, or ``model`` instead."""
        first = settings.judges[0]
        config = first if model is None else JudgeConfig(
            name="drafter", model=model, max_tokens=first.max_tokens)
        return cls(config, settings)

    def _ask(self, params: Prompt, schema: dict[str, Any], what: str) -> Any:
        async def run() -> Any:
            client: JudgeClient = self._factory(self.config)

            async def send() -> Any:
                self.calls += 1
                return await client.send(params)

            rng = random.Random(f"{self.retry.seed}:drafter:{self.calls}")
            try:
                problem = ""
                for _ in range(_ATTEMPTS):
                    answer = await with_backoff(send, self.retry, rng, asyncio.sleep)
                    self.usage = self.usage + answer.usage
                    problem = answer.problem
                    if not problem:
                        errors = list(Draft202012Validator(schema).iter_errors(
                            answer.tool_input))
                        if not errors:
                            return answer.tool_input
                        problem = f"tool input invalid: {errors[0].message}"
                raise JudgeError(f"{self.config.model} gave no valid {what} in {_ATTEMPTS} "
                                 f"attempts: {shorten(client.redact(problem))}")
            finally:
                await client.aclose()

        try:
            return asyncio.run(run())
        except JudgeError:
            raise
        except Exception as exc:  # API and connection errors, key never included
            tries = f" after {exc.attempts} attempts" if isinstance(exc, GaveUp) and \
                exc.attempts > 1 else ""
            exc = exc.error if isinstance(exc, GaveUp) else exc
            status = getattr(exc, "status_code", None)
            raise JudgeError(f"{what} request failed{tries}: {type(exc).__name__}"
                             + (f" (HTTP {status})" if status else "")) from None

    def key_points(self, transcript: str, count: int, locale: str) -> list[dict[str, str]]:
        """``count`` key points ``{"text", "severity"}`` of ``transcript``."""
        schema = _keypoint_schema(count)
        text = (f"Locale: {locale}\n\nVerified transcript:\n<transcript>\n{transcript}\n"
                f"</transcript>\n\nCall {KEYPOINT_TOOL} once with exactly {count} key points.")
        params = _params(self.config, _KEYPOINT_SYSTEM, text, KEYPOINT_TOOL, schema,
                         f"Record exactly {count} key points of the transcript.")
        answer = self._ask(params, schema, "key points")
        return [{"text": p["text"].strip(), "severity": p["severity"]}
                for p in answer["key_points"]]

    def decision_key(self, pending: Mapping[str, Any], case: Mapping[str, Any],
                     output: str) -> str:
        """Content hash of everything that can change the drafted decision."""
        return content_hash({"drafter": self.config.settings(), "format": DRAFT_FORMAT,
                             "case": _visible(case), "output": output,
                             "rule": pending["rule"], "judges": pending.get("judges", [])})

    def decision(self, pending: Mapping[str, Any], case: Mapping[str, Any], output: str,
                 meaning: str = "") -> Verdict:
        """A drafted decision on one pending rule, as a one-rule :class:`Verdict`."""
        opinions = "\n".join(f"- {j['name']}: score {j['score']}: {j['reason']}"
                             for j in pending.get("judges", []))
        text = "\n\n".join([
            f"Rule {pending['rule']}{': ' + meaning if meaning else ''}",
            "Case:\n<case>\n" + _pretty(_visible(case)) + "\n</case>",
            "Output (exactly as produced):\n<output>\n" + output + "\n</output>",
            "The judges said:\n" + opinions,
            f"Call {DECISION_TOOL} once.",
        ])
        params = _params(self.config, _DECISION_SYSTEM, text, DECISION_TOOL,
                         _DECISION_SCHEMA, "Record the proposed score and its reason.")
        answer = self._ask(params, _DECISION_SCHEMA, "decision draft")
        rule = str(pending["rule"])
        return Verdict(self.config.name, self.config.model,
                       self.decision_key(pending, case, output),
                       {rule: RuleVerdict(int(answer["score"]), str(answer["reason"]))})


def _visible(case: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in case.items() if k not in ("id", "canary", "audio", "status")}


def _pretty(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True)
