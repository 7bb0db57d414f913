"""The contract every scoring method fulfils.

A method is pure: it turns a case and an output into an :class:`ItemResult`
(``score``) and turns the plain-JSON item records of one suite x product into
tables (``aggregate``). No pytest, no file I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ..model import Case, ItemResult, Output, ScoreContext, Suite

#: One line of ``items.jsonl``: what crosses from a worker to the controller.
ItemRecord = Mapping[str, Any]


@runtime_checkable
class Method(Protocol):
    """A scoring method, registered through ``pytest_dictbench_methods``.

    Example::

        class ExactMatch:
            name = "exact"
            case_schema = None

            def score(self, case, output, ctx):
                ok = output.text == case.get("reference")
                return ItemResult(passed=ok, score=100.0 if ok else 0.0)

            def aggregate(self, records, suite):
                return {}
    """

    #: The name a suite gives in its ``method`` field.
    name: str
    #: File name of the JSON Schema (in ``pytest_dictbench/schemas``) for this
    #: method's cases, or ``None`` to accept the base case schema alone.
    case_schema: str | None

    def score(self, case: Case, output: Output, ctx: ScoreContext) -> ItemResult:
        """Score one output of one case."""
        ...

    def aggregate(self, records: Sequence[ItemRecord], suite: Suite) -> dict[str, Any]:
        """Turn the item records of one suite x product into the method's tables."""
        ...


# Optional members a method may have (looked up with getattr):
#   headline: str                 -- the summary figure leaderboards sort by ("score")
#   higher_is_better: bool        -- direction of the headline (True)
#   leaderboard_columns: tuple    -- summary figures shown on leaderboards (all numeric)
#   rule_meanings: Mapping        -- rule id -> one-line meaning; enables LLM judging
#   version: str                  -- scoring version, part of judge cache keys
#   check_case(case) -> list[str] -- consistency problems, run by --dictbench-verify
