"""A judge task built from a method's own judge protocol (the keypoints method has one).

A *protocol* supplies ``version``, ``system``, ``tool_description``,
``tool_schema(rule_ids)``, ``user_message(case, output_text, rule_ids)`` and
``parse(tool_input, rule_ids) -> {rule: (score, reason)}``, and may list in
``count_rules`` the rules whose score is a count rather than 0-2. :class:`ProtocolTask` turns
it into a :class:`~.task.JudgeTask`, so the client, batch mode, the verdict cache,
double judging and human decisions serve it exactly as they serve the rubric.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..schemas import CheckedSchema, checked_schema
from .records import JudgeConfig, JudgeRequest, RuleVerdict
from .request import TOOL_NAME, check_schema, request_key_content
from .task import Prompt

__all__ = ["ProtocolTask"]


@dataclass(frozen=True)
class ProtocolTask:
    """The judge task of a method-supplied protocol (see the module docstring)."""

    protocol: Any

    @property
    def count_rules(self) -> tuple[str, ...]:
        """Rules whose score is a count (any integer >= 0), not a 0-2 verdict."""
        return tuple(getattr(self.protocol, "count_rules", ()))

    @property
    def name(self) -> str:
        return str(getattr(self.protocol, "name", "method"))

    def prompt(self, request: JudgeRequest, config: JudgeConfig) -> Prompt:
        schema = self.protocol.tool_schema(request.rule_ids)
        return Prompt(
            model=config.model, max_tokens=config.max_tokens, system=self.protocol.system,
            user=self.protocol.user_message(request.visible_case(), request.output_text,
                                            request.rule_ids),
            tool_name=TOOL_NAME, tool_description=self.protocol.tool_description,
            tool_schema=schema, answer_schema=schema,
        )

    def parse(self, answer: Any, request: JudgeRequest
              ) -> tuple[dict[str, RuleVerdict], dict[str, Any]]:
        check_schema(_validator(self.protocol, request.rule_ids), answer)
        verdicts = self.protocol.parse(answer, request.rule_ids)
        return {rule: RuleVerdict(int(score), str(reason))
                for rule, (score, reason) in verdicts.items()}, {}

    def key_content(self, request: JudgeRequest) -> dict[str, Any]:
        return request_key_content(request, self.protocol.version)


@lru_cache(maxsize=256)
def _validator(protocol: Any, rule_ids: tuple[str, ...]) -> CheckedSchema:
    return checked_schema(protocol.tool_schema(rule_ids), ecma=False)
