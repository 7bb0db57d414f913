"""What a rig package's protocol says about the run: its workflows, its default test
profile and how often each fixture is measured. Read by the package loader, the results
reader, live capture and the rig method alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["WORKFLOWS", "default_profile", "gate_open", "required_repetitions"]

#: Every workflow of the methodology, in report order.
WORKFLOWS = ("dictation", "file_transcription", "meeting", "correction")


def default_profile(package: Mapping[str, Any]) -> str:
    """The package's default test profile (``protocol.default_profile``)."""
    return str(package.get("protocol", {}).get("default_profile", "default"))


def required_repetitions(package: Mapping[str, Any], fixture: Mapping[str, Any]) -> int:
    """Repetitions the package needs of ``fixture``: its own count, else the protocol's."""
    return int(fixture.get("required_repetitions",
                           package.get("protocol", {}).get("required_repetitions", 3)))


def gate_open(package: Mapping[str, Any]) -> bool:
    """Whether the execution gate is open: ``ready`` is true *and* nothing is listed under
    ``blocking_items`` (a listed blocking item means the rig is not ready)."""
    gate = package.get("execution_gate", {})
    return gate.get("ready") is True and not gate.get("blocking_items")
