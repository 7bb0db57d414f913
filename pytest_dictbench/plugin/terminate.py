"""A run stopped from outside ends its captures' programs, then writes what it has.

Ctrl-C (SIGINT) unwinds the run as a KeyboardInterrupt, each capture ends its process
group on the way out, and no report set is written (the previous one stays). SIGTERM
(sent by ``timeout``, CI cancellation, ``kill PID``) and SIGHUP (the terminal closed)
would end Python at once by default, leaving every program a capture started, and their
children, running. While a dictbench run is active they end every registered capture
process group and stop the run (:class:`RunTerminated`); the run then writes its report
set, the items that ran and the rest as not run (PL11), without a traceback. A signal
while the reports are built stops the build (only ``items.jsonl`` and ``run-info.json``
are written); one while they are written waits for the writing. A second signal ends
the process at once.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

from ..adapters.process_groups import end_all

__all__ = ["RunTerminated", "Termination"]

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class RunTerminated(KeyboardInterrupt):
    """The run was stopped by SIGTERM or SIGHUP (pytest unwinds it as an interrupt)."""


class Termination:
    """Signal handlers installed for the run, and restored after it."""

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}
        #: the signal that stopped the run (``SIGTERM``), else None
        self.signalled: str | None = None
        self._deferred = False
        self._noted = False  # a signal came while deferred

    def defer(self) -> None:
        """From now on a signal is only noted (the reports are being written)."""
        self._deferred = True

    @contextlib.contextmanager
    def interruptible(self) -> Iterator[None]:
        """Within: a signal stops what runs (one noted while deferred does so at once);
        after: deferred again."""
        self._deferred = False
        try:
            if self._noted:
                self._noted = False
                raise RunTerminated(self.message())
            yield
        finally:
            self._deferred = True

    def stopped(self, session: pytest.Session, exitstatus: int) -> bool:
        """Whether a signal of ours interrupted the run (``session.shouldstop`` then
        names it, for the records of the items not run); later signals are deferred."""
        self.defer()
        if exitstatus != pytest.ExitCode.INTERRUPTED or self.signalled is None:
            return False
        session.shouldstop = f"stopped by {self.signalled}"
        return True

    def message(self) -> str:
        """``dictbench: run stopped by SIGTERM``."""
        return f"dictbench: run stopped by {self.signalled}"

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
        if self.signalled is not None:
            return  # SIGHUP after SIGTERM: the run is stopping already
        self.signalled = signal.Signals(signum).name
        if self._deferred:
            self._noted = True
            return
        raise RunTerminated(self.message())
