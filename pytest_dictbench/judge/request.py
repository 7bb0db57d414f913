"""Building the Messages API request for one judge and checking the answer's shape.

The request is: system = the grading guide; one user message holding the case, the
output, the automated results and the rules; one tool, ``record_verdicts``, whose input
schema lists every requested rule; ``tool_choice`` forcing that tool.

A request may carry a method's own ``protocol`` object instead (the keypoints method
does): it supplies ``version``, ``system``, ``tool_description``,
``tool_schema(rule_ids)``, ``user_message(case, output_text, rule_ids)`` and
``parse(tool_input, rule_ids) -> {rule: (score, reason)}``. Everything else (client,
validation, retries, cache, double judging, decisions) stays the same.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator

from . import guide
from .records import JudgeConfig, JudgeRequest, RuleVerdict, content_hash

__all__ = [
    "REASON_MAX_CHARS",
    "REQUEST_FORMAT",
    "TOOL_NAME",
    "build_params",
    "cache_key",
    "parse_answer",
    "parse_verdicts",
    "user_message",
    "verdict_schema",
]

TOOL_NAME = "record_verdicts"
#: Bumped when the layout of the user message or the tool changes (enters the cache key).
REQUEST_FORMAT = 1
REASON_MAX_CHARS = 500

_TOOL_DESCRIPTION = (
    "Record your score (0, 1 or 2) and a one-sentence reason for every rule listed in the "
    "user message. Call exactly once."
)


def verdict_schema(rule_ids: Sequence[str]) -> dict[str, Any]:
    """The tool's input schema: ``{"verdicts": {rule: {"score": 0|1|2, "reason": str}}}``."""
    entry = {
        "type": "object",
        "properties": {
            "score": {"type": "integer", "enum": [0, 1, 2]},
            "reason": {"type": "string", "maxLength": REASON_MAX_CHARS},
        },
        "required": ["score", "reason"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "verdicts": {
                "type": "object",
                "properties": {rule: entry for rule in rule_ids},
                "required": list(rule_ids),
                "additionalProperties": False,
            }
        },
        "required": ["verdicts"],
    }


@lru_cache(maxsize=256)
def _validator(rule_ids: tuple[str, ...]) -> Draft202012Validator:
    return Draft202012Validator(verdict_schema(rule_ids))


def parse_verdicts(tool_input: Any, rule_ids: Sequence[str]) -> dict[str, RuleVerdict]:
    """Validate a tool input and return the verdicts; raise ``ValueError`` naming the flaw.

    The message quotes the offending value in full (callers redact, then shorten).
    """
    _check_schema(_validator(tuple(rule_ids)), tool_input)
    verdicts = tool_input["verdicts"]
    return {
        rule: RuleVerdict(int(verdicts[rule]["score"]), verdicts[rule]["reason"])
        for rule in rule_ids
    }


@lru_cache(maxsize=256)
def _protocol_validator(protocol: Any, rule_ids: tuple[str, ...]) -> Draft202012Validator:
    return Draft202012Validator(protocol.tool_schema(rule_ids))


def _check_schema(validator: Draft202012Validator, tool_input: Any) -> None:
    errors = sorted(validator.iter_errors(tool_input), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top)"
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ValueError(
            f"tool input invalid at {where} ({first.validator}): {first.message}{more}"
        )


def parse_answer(request: JudgeRequest, tool_input: Any) -> dict[str, RuleVerdict]:
    """Validate a tool input against the request's tool schema and return the verdicts."""
    protocol = request.protocol
    if protocol is None:
        return parse_verdicts(tool_input, request.rule_ids)
    _check_schema(_protocol_validator(protocol, request.rule_ids), tool_input)
    return {rule: RuleVerdict(int(score), str(reason))
            for rule, (score, reason) in protocol.parse(tool_input, request.rule_ids).items()}


def _block(tag: str, body: str) -> str:
    return f"<{tag}>\n{body}\n</{tag}>"


def _pretty(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True)


def user_message(request: JudgeRequest) -> str:
    """The user turn: case, output, automated results and the rules to score."""
    rules = "\n".join(f"- {rule}: {meaning}" for rule, meaning in request.rules)
    return "\n\n".join(
        [
            "Judge this dictation output on the rules listed at the end.",
            "Case:\n" + _block("case", _pretty(request.visible_case())),
            "Output to judge (exactly as produced):\n" + _block("output", request.output_text),
            "Automated check results:\n"
            + _block("automated_checks", _pretty(request.auto_json())),
            "Rules to score:\n" + _block("rules", rules),
            f"Call {TOOL_NAME} once with a score and a reason for each of these "
            f"{len(request.rules)} rules.",
        ]
    )


def build_params(request: JudgeRequest, config: JudgeConfig) -> dict[str, Any]:
    """Keyword arguments for ``messages.create`` (temperature is added by the client)."""
    protocol = request.protocol
    if protocol is not None:
        return {
            "model": config.model,
            "max_tokens": config.max_tokens,
            "system": protocol.system,
            "messages": [{"role": "user", "content": protocol.user_message(
                request.visible_case(), request.output_text, request.rule_ids)}],
            "tools": [{"name": TOOL_NAME, "description": protocol.tool_description,
                       "input_schema": protocol.tool_schema(request.rule_ids)}],
            "tool_choice": {"type": "tool", "name": TOOL_NAME},
        }
    return {
        "model": config.model,
        "max_tokens": config.max_tokens,
        "system": guide.GUIDE_TEXT,
        "messages": [{"role": "user", "content": user_message(request)}],
        "tools": [
            {
                "name": TOOL_NAME,
                "description": _TOOL_DESCRIPTION,
                "input_schema": verdict_schema(request.rule_ids),
            }
        ],
        "tool_choice": {"type": "tool", "name": TOOL_NAME},
    }


def cache_key(request: JudgeRequest, config: JudgeConfig) -> str:
    """Content hash of everything that can change this judge's verdict on this request.

    Judge settings, guide version, request format, rubric version, the visible case,
    the output text, the rules and the automated results. Not the product name, the
    repetition or the prices: the same output of the same case gets the same verdict.
    """
    return content_hash(
        {
            "judge": config.settings(),
            "guide": request.protocol.version if request.protocol else guide.GUIDE_VERSION,
            "format": REQUEST_FORMAT,
            "rubric": request.rubric_version,
            "case": request.visible_case(),
            "output": request.output_text,
            "rules": [list(rule) for rule in request.rules],
            "auto": request.auto_json(),
        }
    )
