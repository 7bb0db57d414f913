"""The HTML report's figures drawn in a helper process, started while the tests run.

Importing matplotlib and drawing a first figure take about a second at the end of a run,
while a run's test loop (one thread) leaves a second core idle. A large run starts a
:class:`FigureHelper` when its tests start: a child Python that imports matplotlib and
:mod:`.plots`, draws one figure to warm up, then draws what it is asked. It runs the same
:mod:`.plots` code on the same interpreter, so its SVG is the same, byte for byte.

Nothing depends on it: when it cannot be started, dies, answers with an error or is not
ready within :data:`WAIT_S`, the figure is drawn in this process, as without a helper.
The child reads requests (pickled ``(function name, arguments)``) on its stdin and
answers on its stdout; its stdin closing ends it, so it never outlives the run.

    python -m pytest_dictbench.report.figure_helper   # what the helper runs
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

from . import plots
from .sections import MetricGroups

__all__ = ["FIGURE_HELPER_ITEMS", "FigureHelper"]

#: Runs of at least this many items start a helper: below, the report is built in well
#: under a second, and a helper would only add a process to every small run.
FIGURE_HELPER_ITEMS = 2000

#: The functions of :mod:`.plots` the helper draws with.
_DRAWINGS = frozenset({"scores_svg", "bars_svg", "forest_svg"})
#: Seconds to wait for one figure before drawing it here instead.
WAIT_S = 120.0


class FigureHelper:
    """A :class:`.plots.Drawer` whose figures a child process draws (see module doc)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process: subprocess.Popen[bytes] | None = process
        #: Figures the child drew (any others were drawn in this process).
        self.drawn = 0

    @classmethod
    def start(cls) -> FigureHelper | None:
        """Start the child; ``None`` when matplotlib is not installed or it cannot start."""
        if not plots.available():
            return None
        # the child imports from where this process does (an in-process pytester run,
        # PYTHONPATH set by a test), with the same matplotlib settings in the environment
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        try:
            process = subprocess.Popen([sys.executable, "-m", __name__], env=env,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL)
        except OSError:
            return None
        return cls(process)

    def scores_svg(self, rows: Sequence[Mapping[str, Any]], colors: Mapping[str, str],
                   prefix: str) -> str:
        return self._draw("scores_svg", rows, colors, prefix)

    def bars_svg(self, groups: MetricGroups, colors: Mapping[str, str], prefix: str) -> str:
        return self._draw("bars_svg", groups, colors, prefix)

    def forest_svg(self, comparisons: Sequence[Mapping[str, Any]], prefix: str) -> str:
        return self._draw("forest_svg", comparisons, prefix)

    def _draw(self, name: str, *args: Any) -> str:
        answer = self._ask(name, args)
        if answer is None:  # no helper, or it failed: draw here (a real error raises here)
            self.close()
            here: str = getattr(plots, name)(*args)
            return here
        self.drawn += 1
        return answer

    def _ask(self, name: str, args: tuple[Any, ...]) -> str | None:
        process = self._process
        if process is None or process.stdin is None or process.stdout is None:
            return None
        try:
            pickle.dump((name, args), process.stdin)
            process.stdin.flush()
            answer = _read_answer(process.stdout)
        except (OSError, EOFError, pickle.PickleError, ValueError, TypeError,
                AttributeError):
            return None
        status, value = answer if isinstance(answer, tuple) and len(answer) == 2 else ("", "")
        return value if status == "ok" and isinstance(value, str) else None

    def close(self) -> None:
        """End the child (closing its stdin); kill it if it does not end promptly."""
        process, self._process = self._process, None
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):  # a dead child's pipe is broken
                    stream.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _read_answer(stream: IO[bytes]) -> Any:
    """One pickled answer, or :class:`EOFError` when none comes within :data:`WAIT_S`."""
    import selectors

    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        if not selector.select(WAIT_S):
            raise EOFError("the figure helper did not answer in time")
    return pickle.load(stream)


def _warm_up() -> None:
    """Draw one small figure, so that fonts and renderers are loaded before the first
    request (its SVG is thrown away)."""
    plots.scores_svg([{"product": "warm-up", "score": 50.0,
                       "score_ci": {"low": 40.0, "high": 60.0}}],
                     {"warm-up": plots.PALETTE[0]}, "warm-up")


def main() -> None:
    """The child: answer requests on stdin until it closes (every answer is flushed as
    it is written, so ending at once loses nothing)."""
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing printed may reach the answers
    _warm_up()
    while True:
        try:
            name, args = pickle.load(requests)
        except EOFError:  # the run is over: end now, without tearing matplotlib down
            os._exit(0)
        try:
            if name not in _DRAWINGS:
                raise ValueError(f"unknown figure {name!r}")
            answer: tuple[str, str] = ("ok", getattr(plots, name)(*args))
        except Exception as exc:  # the caller draws it again itself, and sees the error
            answer = ("error", f"{type(exc).__name__}: {exc}")
        pickle.dump(answer, answers)
        answers.flush()


if __name__ == "__main__":
    main()
