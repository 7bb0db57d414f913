"""A run stopped from outside ends its captures' programs before it unwinds.

Ctrl-C (SIGINT) already unwinds the run as a KeyboardInterrupt, and each capture ends
its process group on the way out. SIGTERM (sent by ``timeout``, CI cancellation,
``kill PID``) and SIGHUP (the terminal closed) would end Python at once by default,
leaving every program a capture started, and their children, running. While a dictbench
run is active they end every registered capture process group and then stop the run the
way Ctrl-C does: no report set is written, the previous one stays. A second signal ends
the process at once.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

from ..adapters.process_groups import end_all

__all__ = ["Termination"]

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Termination:
    """Signal handlers installed for the run, and restored after it."""

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        """Handle SIGTERM and SIGHUP (main thread only; a signal someone ignores stays
        ignored, and a handler someone installed is still called after ours)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in SIGNALS:
            previous = signal.getsignal(signum)
            if previous == signal.SIG_IGN:
                continue
            self._previous[signum] = previous
            signal.signal(signum, self._handle)

    def uninstall(self) -> None:
        """Put back the handlers found at install."""
        for signum, previous in self._previous.items():
            if signal.getsignal(signum) == self._handle:
                signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        end_all()
        previous = self._previous.get(signum)
        if callable(previous):
            previous(signum, frame)
            return
        signal.signal(signum, signal.SIG_DFL)  # a second signal ends the process at once
        raise KeyboardInterrupt(f"dictbench: run stopped by {signal.Signals(signum).name}")
