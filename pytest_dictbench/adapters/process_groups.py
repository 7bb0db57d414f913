"""The process groups of the captures running in this process.

A capture that starts a program puts it in a session of its own (so a timeout can end
the program and everything it started) and registers that group here while it runs. A
run that is stopped from outside (SIGTERM) calls :func:`end_all` before it unwinds, so no
program or grandchild outlives it, wherever its capture was waiting.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

__all__ = ["end_all", "running", "tracked"]

# Re-entrant: the signal handler runs on the main thread, possibly while it holds the lock.
_LOCK = threading.RLock()
_GROUPS: dict[int, None] = {}


@contextlib.contextmanager
def tracked(pgid: int) -> Iterator[None]:
    """Register process group ``pgid`` for as long as the block runs."""
    with _LOCK:
        _GROUPS[pgid] = None
    try:
        yield
    finally:
        with _LOCK:
            _GROUPS.pop(pgid, None)


def running() -> list[int]:
    """The process groups registered now."""
    with _LOCK:
        return list(_GROUPS)


def end_all() -> list[int]:
    """Send SIGKILL to every registered process group; the groups it reached."""
    ended = []
    for pgid in running():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
            ended.append(pgid)
    return ended
