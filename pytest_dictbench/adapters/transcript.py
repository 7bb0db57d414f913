"""What a transcriber returns: its text or a *transcript record*, checked.

A transcriber returns the text, or a transcript record (a mapping) when it has more to
say: ``text``; ``status``, one of the output statuses (``complete`` by default;
``unsupported``, ``not_tested``, ``blank``, ``failed``, ``invalid``); ``error`` (why it
failed); the rig fields ``capture_complete`` (bool) and ``edit_actions`` (whole
number); ``latency_s``, seconds the transcriber measured itself, recorded instead of
the timed call (a desktop app's wait for settled text is not its latency); and
``desktop``, the facts of a desktop capture (a mapping, kept on failed and invalid lines
too). Anything else in it is refused, so a typo cannot pass unseen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..model import OUTPUT_STATUSES

__all__ = ["KEPT_FIELDS", "RECORD_FIELDS", "transcript_record"]


#: Transcript-record fields beside ``text``, ``status`` and ``error``, with their check.
RECORD_FIELDS: dict[str, Callable[[Any], bool]] = {
    "capture_complete": lambda v: isinstance(v, bool),
    "edit_actions": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    # what a cloud provider said about the run (request id, model version, usage, cost)
    "provider": lambda v: isinstance(v, Mapping),
    # seconds the transcriber measured itself (a capture made ahead, concurrently)
    "latency_s": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    and 0 <= v < 86_400,
    # what a desktop rig saw (settle outcome, timings, last text); kept on every line
    "desktop": lambda v: isinstance(v, Mapping),
    # what a streaming session measured (timings, stability, pacing; docs/streaming.md)
    "streaming": lambda v: isinstance(v, Mapping),
    # the end of a command's stderr, kept with an empty transcript (scrubbed)
    "stderr": lambda v: isinstance(v, str) and len(v) <= 2000,
}
#: Record fields kept on a line whatever its status (what a failed capture saw).
KEPT_FIELDS = frozenset({"desktop", "streaming"})


def transcript_record(answer: Any) -> tuple[str, str | None, str | None, dict[str, Any]]:
    """``(status, text, error, rig fields)`` of what a transcriber returned: its text, or
    a transcript record (see module doc). A malformed record raises ``ValueError``."""
    if isinstance(answer, str):
        return "complete", answer, None, {}
    if not isinstance(answer, Mapping):
        raise ValueError(f"transcriber returned {type(answer).__name__}, not text or a "
                         "transcript record")
    unknown = sorted(set(answer) - {"text", "status", "error", *RECORD_FIELDS})
    if unknown:
        raise ValueError(f"transcript record has unknown field(s) {', '.join(unknown)}")
    status = answer.get("status", "complete")
    if status not in OUTPUT_STATUSES or status == "error":
        raise ValueError(f"transcript record status {status!r} is not one of "
                         f"{', '.join(s for s in OUTPUT_STATUSES if s != 'error')}")
    text, error = answer.get("text"), answer.get("error")
    if not isinstance(text, (str, type(None))) or not isinstance(error, (str, type(None))):
        raise ValueError("transcript record text and error must be strings")
    if status == "complete" and text is None:
        raise ValueError("a complete transcript record needs its text")
    fields = {}
    for name, valid in RECORD_FIELDS.items():
        if name in answer:
            if not valid(answer[name]):
                raise ValueError(f"transcript record field {name} has the invalid value "
                                 f"{answer[name]!r}")
            fields[name] = answer[name]
    return status, text, error, fields
