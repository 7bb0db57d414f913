"""The settle rule: when the text an app typed into the document is final.

A pure function over timestamped snapshots of the document (every clock here is the
same monotonic clock, in seconds). The text is *final* once it has stayed unchanged for
``stable_s`` after the audio ended; it is *empty* when nothing arrived ``empty_wait_s``
after the audio ended; it *timed out* when it was still changing ``max_wait_s`` after the
audio ended (the last text is kept); and the item is void as soon as the document lost
the keyboard focus after dictation started.

Example::

    >>> rule = SettleRule(stable_s=2, max_wait_s=10, empty_wait_s=5)
    >>> shots = [Snapshot(0.0, ""), Snapshot(3.1, "hel"), Snapshot(3.4, "hello")]
    >>> v = settle(shots, audio_end=3.0, now=5.5, rule=rule)
    >>> v.state, v.text, v.final_text_at, v.settled_at
    ('settled', 'hello', 3.4, 5.4)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["SETTLE_STATES", "SettleRule", "Snapshot", "Verdict", "settle", "timings"]

#: ``waiting``: read again; the other four are final.
SETTLE_STATES = ("waiting", "settled", "empty", "timeout", "focus_lost")
State = Literal["waiting", "settled", "empty", "timeout", "focus_lost"]


@dataclass(frozen=True)
class Snapshot:
    """The document as read at time ``at``."""

    at: float
    text: str
    #: Whether the document had the keyboard focus when it was read.
    focused: bool = True


@dataclass(frozen=True)
class SettleRule:
    """How long to wait for final text (seconds)."""

    #: Unchanged this long after the audio ended: final (the rubric seed: 5, rig suites: 2).
    stable_s: float = 5.0
    #: Still changing this long after the audio ended: ``timeout`` (failed, text kept).
    max_wait_s: float = 120.0
    #: No text at all this long after the audio ended: ``empty`` (then replayed; an app
    #: that transcribes after the audio needs more than ``stable_s``).
    empty_wait_s: float = 10.0

    def __post_init__(self) -> None:
        if not self.stable_s > 0 or not self.max_wait_s > 0:
            raise ValueError(f"stable_s and max_wait_s must be > 0, got {self.stable_s!r} "
                             f"and {self.max_wait_s!r}")
        if self.max_wait_s < self.stable_s:
            raise ValueError(f"max_wait_s ({self.max_wait_s}) is shorter than stable_s "
                             f"({self.stable_s}): no text could ever settle")
        if not self.empty_wait_s > 0:
            raise ValueError(f"empty_wait_s must be > 0, got {self.empty_wait_s!r}")


@dataclass(frozen=True)
class Verdict:
    """What the snapshots read so far say (times on the snapshots' clock)."""

    state: State
    #: The document's last text ("" when nothing arrived).
    text: str
    #: When text first appeared in the document (``None``: never).
    first_text_at: float | None = None
    #: When the document first showed its last text (the last change).
    final_text_at: float | None = None
    #: When the rule decided (``settled``: ``stable_s`` after the last change or the
    #: audio's end, whichever is later); ``None`` while waiting.
    settled_at: float | None = None
    #: Times the text changed after dictation started.
    changes: int = 0
    #: For ``focus_lost``: when the document was first read without the focus.
    focus_lost_at: float | None = None


def settle(snapshots: Sequence[Snapshot], *, audio_end: float, now: float,
           rule: SettleRule, start: float | None = None) -> Verdict:
    """The verdict at time ``now`` over ``snapshots`` (in the order they were read).

    ``start`` is when dictation started (the hotkey; default: the first snapshot): a
    snapshot before it gives the document's initial text, and focus is checked from it
    on. Snapshots after ``now`` are ignored, so a recorded stream can be replayed.
    """
    seen = [s for s in snapshots if s.at <= now]
    begin = seen[0].at if start is None and seen else (start or 0.0)
    initial = ""
    for shot in seen:
        if shot.at <= begin:
            initial = shot.text
    text, changed_at, first_text_at, changes = initial, None, None, 0
    for shot in seen:
        if shot.at < begin:
            continue
        if not shot.focused:
            return Verdict("focus_lost", text, first_text_at, changed_at, shot.at, changes,
                           focus_lost_at=shot.at)
        if shot.text != text:
            text, changed_at, changes = shot.text, shot.at, changes + 1
            if first_text_at is None and shot.text.strip():
                first_text_at = shot.at
    empty = not text.strip()
    quiet_from = max(changed_at if changed_at is not None else audio_end, audio_end)
    wait = min(rule.empty_wait_s, rule.max_wait_s) if empty else rule.stable_s
    if now - quiet_from >= wait:
        decided = quiet_from + wait
        if decided <= audio_end + rule.max_wait_s:
            return Verdict("empty" if empty else "settled", text, first_text_at,
                           None if empty else changed_at, decided, changes)
    if now >= audio_end + rule.max_wait_s:
        return Verdict("timeout", text, first_text_at, changed_at,
                       audio_end + rule.max_wait_s, changes)
    return Verdict("waiting", text, first_text_at, changed_at, None, changes)


def timings(verdict: Verdict, first_audible_at: float | None, audio_end: float
            ) -> dict[str, float | None]:
    """The live timings in seconds, rounded to the millisecond: first audible sample to
    first text and to final text (the rig's live timing), and the audio's end to the
    decision."""
    def since(at: float | None, origin: float | None) -> float | None:
        return None if at is None or origin is None else round(at - origin, 3)

    return {
        "first_text_s": since(verdict.first_text_at, first_audible_at),
        "final_text_s": since(verdict.final_text_at, first_audible_at),
        "settled_after_audio_s": since(verdict.settled_at, audio_end),
    }
