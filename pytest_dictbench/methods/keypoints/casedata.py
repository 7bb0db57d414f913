"""Typed view of a keypoints case, and the checks the JSON Schema cannot make.

The schema (``case-keypoints.schema.json``) refuses a case with no key points or an
unknown severity; :func:`case_problem` adds duplicate key-point ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...model import Case

__all__ = ["SEVERITIES", "KeyPoint", "KeypointsCase", "case_problem"]

#: Severities a key point may have.
SEVERITIES = ("critical", "minor")


@dataclass(frozen=True)
class KeyPoint:
    """One claim the transcript must convey."""

    id: str
    text: str
    severity: str


@dataclass(frozen=True)
class KeypointsCase:
    """What the keypoints method reads from a case."""

    id: str
    reference: str
    key_points: tuple[KeyPoint, ...]
    context: str = ""
    duration_s: float | None = None

    @classmethod
    def from_case(cls, case: Case) -> KeypointsCase:
        return cls.from_mapping(case.data, case.id)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], case_id: str | None = None
                     ) -> KeypointsCase:
        points = tuple(KeyPoint(str(p["id"]), str(p["text"]), str(p.get("severity", "minor")))
                       for p in data.get("key_points", ()))
        duration = data.get("duration_s")
        return cls(id=case_id if case_id is not None else str(data.get("id", "")),
                   reference=str(data.get("reference", "")), key_points=points,
                   context=str(data.get("context", "")),
                   duration_s=float(duration) if duration is not None else None)


def case_problem(case: Case) -> str | None:
    """Why a (schema-valid) case is refused, or ``None``."""
    seen: set[str] = set()
    for point in case.data.get("key_points", ()):
        point_id = point.get("id")
        if point_id in seen:
            return f"case {case.id!r}: duplicate key point id {point_id!r}"
        seen.add(point_id)
    return None
