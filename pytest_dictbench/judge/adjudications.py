"""Reading human decisions (``adjudications.jsonl``) and writing pending ones.

A decision line::

    {"suite": "ja-dictation", "case": "ja-014", "product": "acme", "output_hash": "<sha256>",
     "rule": "A6", "score": 2, "reason": "one fix counted once (A1)", "decided_by": "kk"}

A score is an integer; ``2.0`` (a whole number written as a float) is read as ``2``.
Other fields are allowed (so a filled-in line of ``pending.jsonl``, which keeps the judges'
opinions, is a valid decision). Bad lines raise :class:`JudgeError` naming ``file:line``;
two lines deciding the same rule of the same output differently are an error too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import JudgeError
from ..files import atomic_write
from ..jsonl import read_jsonl
from ..schemas import checked_schema
from .double import Decision, PendingDecision

__all__ = ["DECISIONS_FILE", "DECISION_SCHEMA", "EXAMPLE_LINE", "PENDING_FILE", "load_decisions",
           "unknown_rule_warnings", "unused_decisions", "write_pending"]

#: The human decisions file, in the judge folder.
DECISIONS_FILE = "adjudications.jsonl"

#: Adjudications waiting for a human, written next to the other reports.
PENDING_FILE = "adjudication-pending.jsonl"

_NONEMPTY = {"type": "string", "minLength": 1}

DECISION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "suite": _NONEMPTY,
        "case": _NONEMPTY,
        "product": _NONEMPTY,
        "output_hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "rule": _NONEMPTY,
        "score": {"type": "integer", "minimum": 0},
        "reason": _NONEMPTY,
        "decided_by": _NONEMPTY,
    },
    "required": ["suite", "case", "product", "output_hash", "rule", "score", "reason",
                 "decided_by"],
    # 0, 1 or 2, except the keypoints pseudo-rule "insertions", which counts claims.
    "if": {"properties": {"rule": {"not": {"const": "insertions"}}}},
    "then": {"properties": {"score": {"enum": [0, 1, 2]}}},
}

#: Checks a decision line; its ``jsonschema`` validator is made when first used.
_DECISIONS = checked_schema(DECISION_SCHEMA)

#: One valid decision line, shown in the message of an invalid one.
EXAMPLE_LINE = ('{"rule": "k3", "score": 0, "reason": "amount differs", "decided_by": "kk", '
                '"suite": …, "case": …, "product": …, "output_hash": …}')


def unknown_rule_warnings(decisions: Sequence[Decision],
                          rules_by_case: dict[tuple[str, str], Sequence[str]]) -> list[str]:
    """A warning per decision on a known case that names a rule the case does not have
    (it would be ignored without a word), with the decision's file:line."""
    found = []
    for d in decisions:
        rules = rules_by_case.get((d.suite, d.case))
        if rules is not None and d.rule not in rules:
            found.append(f"{d.origin}: decision for rule {d.rule!r} of case {d.case!r}, "
                         f"which has no such rule (its rules: {', '.join(rules)}); ignored")
    return found


def _why_unused(d: Decision, records: Sequence[Mapping[str, Any]],
                cases: frozenset[str]) -> str | None:
    """Why decision ``d`` decided nothing among ``records`` of its suite and product
    (``None``: applied, or its case was not selected)."""
    if d.case not in cases:
        return "its case is not in the suite"
    mine = [r for r in records if r["case_id"] == d.case]
    if not mine:
        return None  # not selected in this run
    same = [r for r in mine if r.get("text_sha256") == d.output_hash]
    if not same:
        return "stale: the output it decided has changed (output_hash matches no output)"
    if all(d.rule not in (r.get("rules") or {}) for r in same):
        if not any(r.get("rules") for r in same):
            return f"the item has no score ({same[0].get('status')})"
        return f"rule {d.rule!r} is not scored on its case"
    if all((r.get("rules") or {}).get(d.rule, {}).get("source") != "human" for r in same):
        return "not applied"
    return None


def unused_decisions(decisions: Iterable[Decision], records: Iterable[Mapping[str, Any]],
                     cases: Mapping[str, frozenset[str]]) -> list[dict[str, str]]:
    """Decisions on this run's suites and products that decided nothing, each with its
    ``file:line`` and why: stale output, a case the suite does not have, a rule the case
    does not score. Decisions on other suites or products, or on cases not selected,
    belong to other runs and are not listed.

    :param cases: every case id of each (public) suite of the run; a private suite is
        left out (its reports never name its cases).
    """
    by_item: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for record in records:
        by_item.setdefault((record["suite"], record["product"]), []).append(record)
    found = []
    for d in decisions:
        if d.suite not in cases or (d.suite, d.product) not in by_item:
            continue
        why = _why_unused(d, by_item[(d.suite, d.product)], cases[d.suite])
        if why is not None:
            found.append({"origin": d.origin, "suite": d.suite, "product": d.product,
                          "rule": d.rule, "reason": why})
    return found


def _check(obj: dict[str, Any], path: Path, line: int) -> None:
    errors = sorted(_DECISIONS.python.iter_errors(obj), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        field = "/".join(str(p) for p in first.absolute_path) or "line"
        raise JudgeError(f"invalid decision: {field}: {first.message} (a valid line, e.g. "
                         f"{EXAMPLE_LINE})", path=path, line=line)


def load_decisions(path: Path | str) -> list[Decision]:
    """All decisions of a file, in file order (a missing file has none)."""
    path = Path(path)
    if not path.exists():
        return []
    decisions: dict[tuple[str, str, str, str, str], Decision] = {}
    for line, obj in read_jsonl(path, JudgeError):
        _check(obj, path, line)
        decision = Decision(
            suite=obj["suite"], case=obj["case"], product=obj["product"],
            output_hash=obj["output_hash"], rule=obj["rule"], score=int(obj["score"]),
            reason=obj["reason"], decided_by=obj["decided_by"], origin=f"{path}:{line}",
        )
        earlier = decisions.get(decision.target)
        if earlier is not None and earlier.score != decision.score:
            raise JudgeError(
                f"rule {decision.rule} of {'/'.join(decision.item)} is decided twice with "
                f"different scores ({earlier.score} at {earlier.origin}, {decision.score} here)",
                path=path, line=line,
            )
        decisions[decision.target] = decision
    return list(decisions.values())


def write_pending(path: Path | str, pending: Sequence[PendingDecision]) -> None:
    """Replace ``path`` atomically with one line per pending decision (empty if none)."""
    text = "".join(
        json.dumps(p.to_json(), ensure_ascii=False, sort_keys=True) + "\n" for p in pending
    )
    atomic_write(Path(path), text)
