"""The ``[params]`` of a keypoints suite, checked when the suite loads."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import SuiteError
from .casedata import SEVERITIES

__all__ = ["NAMES_MATCH", "KeypointsParams"]

_KNOWN = ("beta", "names_match", "overall_weights", "severity_weights")
#: How names are compared: by their reading (default) or as written.
NAMES_MATCH = ("reading", "surface")


def _number(value: Any, what: str, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
            value) or value < 0 or (positive and value == 0):
        bound = "> 0" if positive else ">= 0"
        raise SuiteError(f"params.{what} must be a number {bound}, got {value!r}")
    return float(value)


def _table(value: Any, what: str, keys: tuple[str, ...]) -> dict[str, float]:
    if not isinstance(value, Mapping) or set(value) != set(keys):
        raise SuiteError(f"params.{what} must be a table with exactly the keys "
                         f"{', '.join(keys)}, got {value!r}")
    return {k: _number(value[k], f"{what}.{k}") for k in keys}


@dataclass(frozen=True)
class KeypointsParams:
    """beta (default 1), overall weights (names 0.3, propositions 0.7), severity weights,
    and how names match (``"reading"``, the default, or ``"surface"``)."""

    beta: float = 1.0
    names_weight: float = 0.3
    propositions_weight: float = 0.7
    severity_weights: Mapping[str, float] | None = None
    names_match: str = "reading"

    @classmethod
    def from_mapping(cls, params: Mapping[str, Any]) -> KeypointsParams:
        unknown = sorted(set(params) - set(_KNOWN))
        if unknown:
            raise SuiteError(f"unknown params {unknown}; known: {', '.join(_KNOWN)}")
        beta = _number(params.get("beta", 1.0), "beta", positive=True)
        weights = _table(params.get("overall_weights", {"names": 0.3, "propositions": 0.7}),
                         "overall_weights", ("names", "propositions"))
        if not math.isclose(weights["names"] + weights["propositions"], 1.0):
            raise SuiteError("params.overall_weights must add up to 1, got "
                             f"{weights['names']} + {weights['propositions']}")
        match = params.get("names_match", "reading")
        if match not in NAMES_MATCH:
            raise SuiteError("params.names_match must be 'reading' or 'surface', got "
                             f"{match!r}")
        severity = params.get("severity_weights")
        if severity is not None:
            table = _table(severity, "severity_weights", SEVERITIES)
            if not any(table.values()):
                raise SuiteError("params.severity_weights must not all be 0 (the weighted "
                                 f"figures would be 0/0), got {severity!r}")
        return cls(beta=beta, names_weight=weights["names"],
                   propositions_weight=weights["propositions"],
                   severity_weights=(_table(severity, "severity_weights", SEVERITIES)
                                     if severity is not None else None),
                   names_match=match)
