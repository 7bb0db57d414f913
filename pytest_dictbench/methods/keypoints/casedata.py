"""Typed view of a keypoints case, and the checks the JSON Schema cannot make.

The schema (``case-keypoints.schema.json``) refuses a case with no key points or an
unknown severity; :func:`case_problem` adds duplicate key-point ids, blank key points
and impossible durations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...model import Case

__all__ = ["MAX_DURATION_S", "SEVERITIES", "KeyPoint", "KeypointsCase", "case_problem", "is_blank"]

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


#: Characters that make no visible text: a key point of only these (and whitespace) is
#: blank.
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff"
#: The longest recording a case may declare (a day, as for output lines).
MAX_DURATION_S = 86_400


def is_blank(text: str) -> bool:
    """Empty after stripping whitespace (``\u3000`` included) and zero-width characters."""
    return not text.translate({ord(c): None for c in _INVISIBLE}).strip()


def case_problem(case: Case) -> str | None:
    """Why a (schema-valid) case is refused, or ``None``: a duplicate key point id, a key
    point with no visible text, a ``duration_s`` beyond :data:`MAX_DURATION_S`."""
    seen: set[str] = set()
    for point in case.data.get("key_points", ()):
        point_id = point.get("id")
        if point_id in seen:
            return f"case {case.id!r}: duplicate key point id {point_id!r}"
        seen.add(point_id)
        if isinstance(point.get("text"), str) and is_blank(point["text"]):
            return f"case {case.id!r}: key point {point_id!r} has no text"
    duration = case.data.get("duration_s")
    if isinstance(duration, int | float) and not 0 <= duration <= MAX_DURATION_S:
        return (f"case {case.id!r}: duration_s {duration!r} is outside 0 to "
                f"{MAX_DURATION_S} seconds")
    return None
