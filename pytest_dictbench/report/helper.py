"""A helper process for the report's heavy numeric parts, started while the tests run.

A run's test loop is one thread and leaves a second core idle; at its end the report
waits for the products' bootstrap intervals (10,000 resamples of every case) and the
HTML page's figures (importing matplotlib and drawing a first figure take about a
second). A large run starts a :class:`ReportHelper` when its tests start: a child Python
that imports numpy, :mod:`..stats` and (when installed) matplotlib with :mod:`.plots`,
draws one figure to warm up, then answers what it is asked:

- ``predraw``: when the tests start, the bootstrap's indices for each sample size the
  run expects (``stats.draw_indices``, up to :data:`PREDRAW_BYTES`), drawn while the
  tests run;
- ``prefetch`` / ``interval``: the summary sends each product's per-case scores as soon
  as it has them and asks for the interval when it needs it (``aggregate.IntervalSource``);
  the child computes it with ``stats.mean_ci`` meanwhile (with the indices drawn ahead,
  when the size matches), so this process never imports numpy for it;
- ``scores_svg``, ``bars_svg``, ``forest_svg``: a figure of :mod:`.plots`, asked
  without waiting (:meth:`ReportHelper.ask_figure`) and taken later
  (:meth:`ReportHelper.figure`), so that two helpers draw a page's figures side by side
  (``html_figures.FigureRequests``, the page's :class:`.plots.Drawer`).

The child runs at the lowest CPU priority (:data:`NICENESS`): the tests come first.
It runs the same code on the same interpreter, so its intervals and SVG are the same,
bit for bit and byte for byte. Nothing depends on it: when it cannot be started, dies,
answers with an error or does not answer within :data:`WAIT_S`, the interval or figure
is made in this process, as without a helper. The child reads requests (pickled
``(name, arguments)``) on its stdin and answers each, in order, on its stdout; its stdin
closing ends it, so it never outlives the run.

    python -m pytest_dictbench.report.helper   # what the helper runs
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Sequence
from typing import IO, Any

from .. import stats
from . import plots

__all__ = ["HELPER_ITEMS", "ReportHelper"]

#: Runs of at least this many items start a helper: below, the report is built in well
#: under a second, and a helper would only add a process to every small run.
HELPER_ITEMS = 2000

#: The functions of :mod:`.plots` the helper draws with.
_DRAWINGS = frozenset({"scores_svg", "bars_svg", "forest_svg"})
#: How much the child yields the CPU to the run's own process (``os.nice``): on a
#: machine of two cores, the tests, a helper's imports and its drawing ahead would
#: otherwise share them alike, and the tests would wait. While the run waits for an
#: answer, the child has a core to itself all the same.
NICENESS = 19
#: Seconds to wait for one answer before making it here instead.
WAIT_S = 120.0
#: Bytes of bootstrap indices the child may draw ahead: 10,000 resamples of 10,000
#: cases take 200 MB (a run of 100,000 cases draws none ahead).
PREDRAW_BYTES = 256 << 20

#: An interval request's key: the values, resamples and seed; a predraw's key is
#: ``("predraw", n, resamples, seed)``, a figure's ``("figure", ticket)``.
_Key = tuple[Any, ...]


class ReportHelper:
    """The intervals (``aggregate.IntervalSource``) and figures (through
    ``html_figures.FigureRequests``) of a child process (see module doc)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process: subprocess.Popen[bytes] | None = process
        #: The child's answers, in order, read off its stdout by a thread of their own
        #: (several may be on the way; a read here never blocks past :data:`WAIT_S`).
        self._answers: queue.SimpleQueue[Any] = queue.SimpleQueue()
        if process.stdout is not None:
            threading.Thread(target=_read_answers, args=(process.stdout, self._answers),
                             name="dictbench-report-helper", daemon=True).start()
        #: Requests sent whose answers are not read yet, in sending order.
        self._pending: deque[_Key] = deque()
        #: Bytes of indices the child was asked to draw ahead.
        self._predrawn = 0
        #: Intervals read back and not yet taken.
        self._intervals: dict[_Key, tuple[float, float] | None] = {}
        #: Figures read back and not yet taken, by ticket (``None``: the child failed).
        self._figures: dict[int, str | None] = {}
        #: Tickets handed out so far.
        self._tickets = 0
        #: Figures the child drew (any others were drawn in this process).
        self.drawn = 0

    @classmethod
    def start(cls) -> ReportHelper | None:
        """Start the child; ``None`` when it cannot start."""
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

    # -- intervals ---------------------------------------------------------------------

    def predraw(self, n: int, resamples: int, seed: int) -> None:
        """Have the child draw the bootstrap's indices for ``n`` values ahead (within
        :data:`PREDRAW_BYTES` in all)."""
        key = ("predraw", n, resamples, seed)
        size = n * resamples * stats.index_bytes(n)
        if n < 1 or key in self._pending or self._predrawn + size > PREDRAW_BYTES or \
                not self._send("predraw", key[1:]):
            return
        self._predrawn += size
        self._pending.append(key)

    def prefetch(self, values: Sequence[float], resamples: int, seed: int) -> None:
        key = (tuple(values), resamples, seed)
        if key in self._intervals or key in self._pending or not self._send("mean_ci", key):
            return
        self._pending.append(key)

    def interval(self, values: Sequence[float], resamples: int, seed: int
                 ) -> tuple[float, float] | None:
        key = (tuple(values), resamples, seed)
        while key not in self._intervals and key in self._pending:
            self._read_pending()
        return self._intervals.pop(key, None)

    def _read_pending(self) -> None:
        """Read the answer of the oldest request still unread."""
        key = self._pending.popleft()
        answer = self._receive()
        if answer is None:  # an error, or the child is gone: make the rest here
            self._give_up()
        if key[0] == "predraw":
            return
        if key[0] == "figure":
            self._figures[key[1]] = answer if isinstance(answer, str) else None
            return
        low_high = answer if isinstance(answer, tuple) and len(answer) == 2 and \
            all(isinstance(v, float) for v in answer) else None
        self._intervals[key] = low_high

    # -- figures -----------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """Whether the child can still be asked (it has not failed, died or closed)."""
        return self._process is not None

    @property
    def busy(self) -> int:
        """Requests asked and not yet answered."""
        return len(self._pending)

    def ask_figure(self, name: str, args: Sequence[Any]) -> int | None:
        """Ask the child for a figure (a function of :mod:`.plots`) and go on: its
        ticket for :meth:`figure`, or ``None`` when it cannot be asked."""
        if name not in _DRAWINGS or not self._send(name, tuple(args)):
            return None
        self._tickets += 1
        self._pending.append(("figure", self._tickets))
        return self._tickets

    def figure(self, ticket: int) -> str | None:
        """The SVG asked for with ``ticket``, once the child has drawn it; ``None`` when
        the child failed or is gone (the caller draws it itself)."""
        key = ("figure", ticket)
        while ticket not in self._figures and key in self._pending:
            self._read_pending()
        svg = self._figures.pop(ticket, None)
        if svg is not None:
            self.drawn += 1
        return svg

    # -- the pipe ----------------------------------------------------------------------

    def _send(self, name: str, args: Any) -> bool:
        process = self._process
        if process is None or process.stdin is None:
            return False
        try:
            pickle.dump((name, args), process.stdin)
            process.stdin.flush()
        except (OSError, pickle.PickleError, ValueError, TypeError, AttributeError):
            self._give_up()
            return False
        return True

    def _receive(self) -> Any:
        """The value of the next answer; ``None`` for an error, or when none comes."""
        if self._process is None:
            return None
        try:
            answer = self._answers.get(timeout=WAIT_S)
        except queue.Empty:
            answer = None
        if answer is None:  # the child ended, or is silent too long
            self._give_up()
            return None
        status, value = answer if isinstance(answer, tuple) and len(answer) == 2 else ("", "")
        return value if status == "ok" else None

    def _give_up(self) -> None:
        """The child cannot be used any more: what is still asked is made here."""
        self._pending.clear()
        self.close()

    def close(self) -> None:
        """End the child (closing its stdin); kill it if it does not end promptly."""
        process, self._process = self._process, None
        self._pending.clear()
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


def _read_answers(stream: IO[bytes], answers: queue.SimpleQueue[Any]) -> None:
    """Put each pickled answer on ``stream`` into ``answers``; ``None`` once it ends (or
    holds something that is no answer)."""
    while True:
        try:
            answer = pickle.load(stream)
        except Exception:  # EOF, a closed pipe, garbage: no more answers
            answers.put(None)
            return
        answers.put(answer if answer is not None else ("error", "no answer"))


#: The child's indices drawn ahead, by ``(n, resamples, seed)``.
_DRAWN: dict[tuple[int, int, int], Any] = {}


def _predraw(n: int, resamples: int, seed: int) -> bool:
    _DRAWN[(n, resamples, seed)] = stats.draw_indices(n, resamples, seed)
    return True


def _mean_ci(values: tuple[float, ...], resamples: int, seed: int) -> tuple[float, float]:
    interval = stats.mean_ci(values, resamples=resamples, seed=seed,
                             draws=_DRAWN.get((len(values), resamples, seed)))
    return (interval.low, interval.high)


def _answer(name: str, args: Any) -> Any:
    if name == "predraw":
        return _predraw(*args)
    if name == "mean_ci":
        return _mean_ci(*args)
    if name not in _DRAWINGS:
        raise ValueError(f"unknown request {name!r}")
    return getattr(plots, name)(*args)


def _warm_up() -> None:
    """Import numpy and draw one small figure, so that fonts and renderers are loaded
    before the first request (its SVG is thrown away)."""
    _mean_ci((0.0, 1.0), 10, 0)
    if plots.available():
        plots.scores_svg([{"product": "warm-up", "score": 50.0,
                           "score_ci": {"low": 40.0, "high": 60.0}}],
                         {"warm-up": plots.PALETTE[0]}, "warm-up")


def main() -> None:
    """The child: answer requests on stdin until it closes (every answer is flushed as
    it is written, so ending at once loses nothing)."""
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing printed may reach the answers
    with contextlib.suppress(OSError):  # background work: the tests' process goes first
        os.nice(NICENESS)
    _warm_up()
    while True:
        try:
            name, args = pickle.load(requests)
        except EOFError:  # the run is over: end now, without tearing matplotlib down
            os._exit(0)
        try:
            answer: tuple[str, Any] = ("ok", _answer(name, args))
        except Exception as exc:  # the caller makes it again itself, and sees the error
            answer = ("error", f"{type(exc).__name__}: {exc}")
        pickle.dump(answer, answers)
        answers.flush()


if __name__ == "__main__":
    main()
