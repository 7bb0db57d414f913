"""What a rig package's protocol says about the run: its workflows, its default test
profile and how often each fixture is measured. Read by the package loader, the results
reader, live capture and the rig method alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["WORKFLOWS", "default_profile", "required_repetitions"]

#: Every workflow of the methodology, in report order.
WORKFLOWS = ("dictation", "file_transcription", "meeting", "correction")


def default_profile(package: Mapping[str, Any]) -> str:
    """The package's default test profile (``protocol.default_profile``)."""
    return str(package.get("protocol", {}).get("default_profile", "default"))


def required_repetitions(package: Mapping[str, Any], fixture: Mapping[str, Any]) -> int:
    """Repetitions the package needs of ``fixture``: its own count, else the protocol's."""
    return int(fixture.get("required_repetitions",
                           package.get("protocol", {}).get("required_repetitions", 3)))
