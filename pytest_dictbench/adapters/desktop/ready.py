"""When a launched app is ready for its hotkey: a line in its output, or a window it maps.

A fixed wait after the launch is a guess: on a loaded machine the app may not have
grabbed its hotkey yet, and in toggle mode a lost *start* press leaves the rig and the
app out of phase for good (the rig's stop starts the app, the next start stops it).
``ready_log`` (a regular expression searched in what the app printed since this
launch) and ``ready_window`` (a regular expression for the title of a window it maps)
turn the wait into a condition, ``launch_wait_s`` its longest duration.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...errors import CaptureError
from .backend import App

__all__ = ["LogWatch", "Readiness", "wait_ready"]

#: How often the readiness conditions are looked at.
POLL_S = 0.05


class LogWatch:
    """What an app wrote to its log file from ``offset`` on (its output since a launch)."""

    def __init__(self, path: Path, offset: int) -> None:
        self.path, self.offset = path, offset
        self._text = ""

    @classmethod
    def at_end(cls, path: Path) -> LogWatch:
        """A watch on what is written to ``path`` from now on."""
        try:
            return cls(path, path.stat().st_size)
        except FileNotFoundError:
            return cls(path, 0)

    def text(self) -> str:
        """The output so far (undecodable bytes replaced)."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                data = handle.read()
        except FileNotFoundError:
            return self._text
        self.offset += len(data)
        self._text += data.decode("utf-8", errors="replace")
        return self._text

    def tail(self, lines: int = 5) -> str:
        """Its last lines, on one line, for an error message."""
        return " | ".join(line.strip() for line in self._text.splitlines()[-lines:]
                          if line.strip())


@dataclass(frozen=True)
class Readiness:
    """The product's readiness settings (either or both; none: the fixed wait)."""

    log: re.Pattern[str] | None = None
    window: re.Pattern[str] | None = None

    def __bool__(self) -> bool:
        return self.log is not None or self.window is not None

    def describe(self) -> str:
        parts = []
        if self.log is not None:
            parts.append(f"a line of its output matching ready_log {self.log.pattern!r}")
        if self.window is not None:
            parts.append(f"a window titled to match ready_window {self.window.pattern!r}")
        return " and ".join(parts)


def wait_ready(app: App, ready: Readiness, watch: LogWatch, timeout_s: float,
               window_titles: Callable[[], Sequence[str]]) -> float:
    """Wait until every condition of ``ready`` holds; the seconds it took.

    Raises :class:`CaptureError` when the app exits first or ``timeout_s`` passes, naming
    what was awaited and the log file.
    """
    started = time.monotonic()
    deadline = started + timeout_s
    while True:
        logged = ready.log is None or ready.log.search(watch.text()) is not None
        mapped = ready.window is None or any(ready.window.search(t) for t in window_titles())
        if logged and mapped:
            return time.monotonic() - started
        code = app.exit_code()
        if code is not None:
            raise CaptureError(f"the app exited with status {code} before it was ready "
                               f"(awaited: {ready.describe()}; its output: {watch.path}"
                               f"{': ' + watch.tail() if watch.tail() else ''})")
        if time.monotonic() >= deadline:
            missing = Readiness(None if logged else ready.log,
                                None if mapped else ready.window)
            raise CaptureError(f"the app was not ready {timeout_s:g} s after its launch "
                               f"(launch_wait_s): {missing.describe()} did not appear (its "
                               f"output: {watch.path}"
                               f"{': ' + watch.tail() if watch.tail() else ''})")
        time.sleep(POLL_S)
