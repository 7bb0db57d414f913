"""Facts of a rig package's ``protocol`` that rows, live runs and collection share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model import Suite

__all__ = ["default_profile", "required_repetitions"]


def default_profile(suite: Suite) -> str:
    """The package's default test profile (``protocol.default_profile``)."""
    return str(suite.manifest["package"].get("protocol", {}).get("default_profile",
                                                                  "default"))


def required_repetitions(suite: Suite, fixture: Mapping[str, Any]) -> int:
    """Repetitions the methodology needs of ``fixture`` (a case's data)."""
    return int(fixture.get("required_repetitions", suite.repetitions))
