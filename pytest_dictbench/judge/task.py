"""What a scoring method gives the judge machinery: a :class:`JudgeTask`.

The client, the verdict cache, the runner, batch mode, the estimate and the budget are
generic over the task. A task supplies, for one :class:`~.records.JudgeRequest`:

* ``prompt(request, config)`` - a :class:`Prompt`: the system text (the guide, the same
  in every request and sent as a cacheable prefix), the user text, and the answer tool:
  its name, description, the schema *sent* (fixed per task, so it is cacheable too) and
  the strict schema the answer is validated against (per request; also what an
  OpenAI-compatible endpoint gets as its structured-output schema);
* ``parse(answer, request)`` - the validated answer as per-rule :class:`RuleVerdict` s
  plus any further fields to keep (``Verdict.extra``); raises ``ValueError`` naming the
  flaw, and the answer is asked for again once;
* ``key_content(request)`` - everything besides the judge's settings that can change the
  verdict (guide version, request format, content); its hash is the cache key.

The rubric's task is :class:`~.request.RubricTask`. A request names its task in
``JudgeRequest.task`` (``None`` = the rubric with the guide alone; see
:func:`~.request.task_of`, and :func:`~.request.cache_key` for the key).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..redact import scrub
from .records import JudgeConfig, JudgeRequest, RuleVerdict

__all__ = ["JudgeTask", "Prompt", "anthropic_params"]

#: Marks the end of the cacheable prefix (tools and system) in a Messages API request.
CACHE_CONTROL = {"type": "ephemeral"}


@dataclass(frozen=True)
class Prompt:
    """One model call (a judge's or a refine step's), independent of the API family that
    carries it; its texts are scrubbed of secrets as it is made."""

    model: str
    max_tokens: int
    system: str
    user: str
    tool_name: str
    tool_description: str
    #: Schema sent with the tool (the same in every request of a task: cacheable).
    tool_schema: Mapping[str, Any]
    #: Strict schema of a valid answer to this request (validated locally).
    answer_schema: Mapping[str, Any]

    def __post_init__(self) -> None:
        """Every text sent to a model passes here: a registered secret in it (a key a
        recogniser echoed into its transcript, say) is scrubbed before it leaves."""
        object.__setattr__(self, "system", scrub(self.system))
        object.__setattr__(self, "user", scrub(self.user))


@runtime_checkable
class JudgeTask(Protocol):
    """A kind of judge request (see the module docstring)."""

    name: str

    def prompt(self, request: JudgeRequest, config: JudgeConfig) -> Prompt: ...

    def parse(self, answer: Any, request: JudgeRequest
              ) -> tuple[dict[str, RuleVerdict], dict[str, Any]]: ...

    def key_content(self, request: JudgeRequest) -> dict[str, Any]: ...


def anthropic_params(prompt: Prompt) -> dict[str, Any]:
    """Keyword arguments for ``messages.create`` (and a batch request's ``params``).

    The tool and the system text form the prefix every request of a task shares; the
    ``cache_control`` mark on the system block makes that prefix a prompt-cache entry.
    """
    return {
        "model": prompt.model,
        "max_tokens": prompt.max_tokens,
        "system": [{"type": "text", "text": prompt.system, "cache_control": CACHE_CONTROL}],
        "messages": [{"role": "user", "content": prompt.user}],
        "tools": [{"name": prompt.tool_name, "description": prompt.tool_description,
                   "input_schema": dict(prompt.tool_schema)}],
        "tool_choice": {"type": "tool", "name": prompt.tool_name},
    }
