"""Where one item ends: the watch for late text after the settle rule's decision.

A pure function over the document's timestamped snapshots (the clock of
:mod:`.settle`). After the decision the item goes on until the document has been quiet
(no change) for ``quiet_s`` (``late_guard_s``); each change in that time is *late
text* of the item. The watch stops at ``max_s`` (``late_max_s``) after the decision
even if the text is still changing. The driver then relaunches the app before the next
item whenever any late text was seen, so nothing the old process still holds can
reach the next item's document (see ``docs/desktop.md``, "Item boundaries").

Example::

    >>> shots = [Snapshot(1.0, "hi"), Snapshot(4.0, "hi there")]
    >>> watch_late(shots, text="hi", final_at=1.0, decided=3.0, now=4.5,
    ...            quiet_s=1.0, max_s=10.0) is WAITING
    True
    >>> watch_late(shots, text="hi", final_at=1.0, decided=3.0, now=5.0,
    ...            quiet_s=1.0, max_s=10.0)
    LateText(text='hi there', first_s=3.0, last_s=3.0, still_arriving=False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .settle import Snapshot

__all__ = ["WAITING", "LateText", "late_changes", "watch_late"]


@dataclass(frozen=True)
class LateText:
    """Text an item's document got after its decision."""

    #: The text the document became.
    text: str
    #: Seconds from the item's final text to the first late change, and to the last.
    first_s: float
    last_s: float
    #: Still changing when the watch ended at ``max_s``.
    still_arriving: bool = False


class _Waiting:
    def __repr__(self) -> str:
        return "WAITING"


#: :func:`watch_late`'s answer while the item is not over yet.
WAITING: Final = _Waiting()


def late_changes(shots: Sequence[Snapshot], text: str, decided: float) -> list[Snapshot]:
    """The snapshots after ``decided`` whose text differs from the one before them
    (the first compared with the decided ``text``)."""
    changes: list[Snapshot] = []
    current = text
    for shot in shots:
        if shot.at > decided and shot.text != current:
            changes.append(shot)
        if shot.at > decided:
            current = shot.text
    return changes


def watch_late(shots: Sequence[Snapshot], *, text: str, final_at: float | None,
               decided: float, now: float, quiet_s: float, max_s: float
               ) -> LateText | _Waiting | None:
    """:data:`WAITING` while the item goes on; then its late text (None: none came).

    The item is over once nothing changed for ``quiet_s`` (counted from the decision,
    then from each late change), or ``max_s`` after the decision."""
    changes = late_changes(shots, text, decided)
    last = changes[-1].at if changes else decided
    quiet = now - last >= quiet_s
    if not quiet and now - decided < max_s:
        return WAITING
    if not changes:
        return None
    since = final_at if final_at is not None else decided
    return LateText(text=changes[-1].text, first_s=round(changes[0].at - since, 3),
                    last_s=round(changes[-1].at - since, 3), still_arriving=not quiet)
