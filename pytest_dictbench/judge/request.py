"""Building the Messages API request for one judge and checking the answer's shape.

The request is: system = the grading guide (plus the whole rubric when the task has it),
marked cacheable; one user message holding the case, the output, the automated results
and the rules; one tool, ``record_verdicts``, whose schema is the same in every request;
``tool_choice`` forcing that tool. The answer is validated against the strict schema of
the requested rules (:func:`verdict_schema`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..schemas import CheckedSchema, checked_schema
from . import guide
from .records import JudgeConfig, JudgeRequest, RuleVerdict, Verdict, content_hash
from .task import JudgeTask, Prompt, anthropic_params

__all__ = [
    "REASON_MAX_CHARS",
    "REQUEST_FORMAT",
    "RUBRIC_TASK",
    "TOOL_NAME",
    "RubricTask",
    "build_params",
    "cache_key",
    "cached_problem",
    "check_schema",
    "parse_verdicts",
    "request_key_content",
    "task_of",
    "user_message",
    "verdict_schema",
]

TOOL_NAME = "record_verdicts"
#: Bumped when the layout of the user message or the tool changes (enters the cache key).
#: 2: the guide is a cacheable system block and the sent tool schema is the same for
#: every request (the requested rules are checked locally).
REQUEST_FORMAT = 2
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
        "additionalProperties": False,
    }


@lru_cache(maxsize=256)
def _validator(rule_ids: tuple[str, ...]) -> CheckedSchema:
    return checked_schema(verdict_schema(rule_ids), ecma=False)


def parse_verdicts(tool_input: Any, rule_ids: Sequence[str]) -> dict[str, RuleVerdict]:
    """Validate a tool input and return the verdicts; raise ``ValueError`` naming the flaw.

    The message quotes the offending value in full (callers redact, then shorten).
    """
    check_schema(_validator(tuple(rule_ids)), tool_input)
    verdicts = tool_input["verdicts"]
    return {
        rule: RuleVerdict(int(verdicts[rule]["score"]), verdicts[rule]["reason"])
        for rule in rule_ids
    }


def check_schema(validator: CheckedSchema, tool_input: Any) -> None:
    errors = sorted(validator.iter_errors(tool_input), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top)"
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ValueError(
            f"tool input invalid at {where} ({first.validator}): {first.message}{more}"
        )


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


def _sent_schema() -> dict[str, Any]:
    """The tool schema sent to the API: the verdict shape without the rule list, so that
    it is the same in every request (the cacheable prefix). The answer is then checked
    against :func:`verdict_schema` of the requested rules."""
    entry = verdict_schema(("_",))["properties"]["verdicts"]["properties"]["_"]
    return {
        "type": "object",
        "properties": {"verdicts": {"type": "object", "additionalProperties": entry}},
        "required": ["verdicts"],
    }


def _rubric_block(rubric: Sequence[tuple[str, str]]) -> str:
    lines = "\n".join(f"- {rule}: {meaning}" for rule, meaning in rubric)
    return "The rubric (every rule you may be asked to score):\n" + _block("rubric", lines)


@dataclass(frozen=True)
class RubricTask:
    """The rubric's judge task: the guide (and the whole rubric, when given) as the
    cacheable system text, the item in the user turn, a score per requested rule."""

    #: ``(rule id, meaning)`` of every rule of the rubric, sent in the system text.
    rubric: tuple[tuple[str, str], ...] = ()
    name: str = "rubric"

    def system(self) -> str:
        if not self.rubric:
            return guide.GUIDE_TEXT
        return guide.GUIDE_TEXT.rstrip("\n") + "\n\n" + _rubric_block(self.rubric)

    def prompt(self, request: JudgeRequest, config: JudgeConfig) -> Prompt:
        return Prompt(
            model=config.model, max_tokens=config.max_tokens, system=self.system(),
            user=user_message(request), tool_name=TOOL_NAME,
            tool_description=_TOOL_DESCRIPTION, tool_schema=_SENT_SCHEMA,
            answer_schema=verdict_schema(request.rule_ids),
        )

    def parse(self, answer: Any, request: JudgeRequest
              ) -> tuple[dict[str, RuleVerdict], dict[str, Any]]:
        return parse_verdicts(answer, request.rule_ids), {}

    def key_content(self, request: JudgeRequest) -> dict[str, Any]:
        content = request_key_content(request, guide.GUIDE_VERSION)
        if self.rubric:
            content["rubric_table"] = [list(rule) for rule in self.rubric]
        return content


def request_key_content(request: JudgeRequest, guide_version: str) -> dict[str, Any]:
    """What every task puts in a verdict's cache key: guide version, request format,
    rubric version, the visible case, the output, the rules and the automated results."""
    return {
        "guide": guide_version,
        "format": REQUEST_FORMAT,
        "rubric": request.rubric_version,
        "case": request.visible_case(),
        "output": request.output_text,
        "rules": [list(rule) for rule in request.rules],
        "auto": request.auto_json(),
    }


_SENT_SCHEMA = _sent_schema()

#: The rubric task with the guide alone (requests that name no task).
RUBRIC_TASK = RubricTask()


def task_of(request: JudgeRequest) -> JudgeTask:
    """The request's task, the rubric's (guide alone) by default."""
    return request.task if request.task is not None else RUBRIC_TASK


def cached_problem(verdict: Verdict, request: JudgeRequest) -> str:
    """Why a cached verdict cannot stand for ``request`` (``""`` when it can): its rules
    are not the request's, or a score is outside 0-2 (rules a task lists in its
    ``count_rules``, such as the keypoints insertions, hold any count)."""
    if set(verdict.rules) != set(request.rule_ids):
        return "its rules are not the request's"
    counts = frozenset(getattr(task_of(request), "count_rules", ()))
    for rule, rule_verdict in verdict.rules.items():
        if rule not in counts and rule_verdict.score not in (0, 1, 2):
            return f"rule {rule}: score {rule_verdict.score} is not 0, 1 or 2"
    return ""


def cache_key(request: JudgeRequest, config: JudgeConfig) -> str:
    """Content hash of the judge's settings and the task's key content.

    Not the product name, the repetition, the prices or the mode (live or batch): the
    same output of the same case gets the same verdict however it was obtained.
    """
    return content_hash({"judge": config.settings(), **task_of(request).key_content(request)})


def build_params(request: JudgeRequest, config: JudgeConfig) -> dict[str, Any]:
    """Keyword arguments for ``messages.create`` (temperature is added by the client)."""
    return anthropic_params(task_of(request).prompt(request, config))
