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

The child (a :class:`..child.Child`: pickled requests answered in order, at the lowest
CPU priority, ended with the run) runs the same code on the same interpreter, so its
intervals and SVG are the same, bit for bit and byte for byte. Nothing depends on it:
when it cannot be started, dies, answers with an error or does not answer within
:data:`WAIT_S`, the interval or figure is made in this process, as without a helper.

    python -m pytest_dictbench.report.helper   # what the helper runs
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from .. import stats
from ..child import Child, ChildEnd
from . import plots

__all__ = ["HELPER_ITEMS", "ReportHelper"]

#: Runs of at least this many items start a helper: below, the report is built in well
#: under a second, and a helper would only add a process to every small run.
HELPER_ITEMS = 2000

#: The functions of :mod:`.plots` the helper draws with.
_DRAWINGS = frozenset({"scores_svg", "bars_svg", "forest_svg"})
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

    def __init__(self, child: Child) -> None:
        #: the child process (None once it failed, died or was closed)
        self._child: Child | None = child
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
        child = Child.spawn(__name__)
        return cls(child) if child is not None else None

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
        return self._child is not None

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
        if self._child is None:
            return False
        if not self._child.send(name, args):
            self._give_up()
            return False
        return True

    def _receive(self) -> Any:
        """The value of the next answer; ``None`` for an error, or when none comes."""
        if self._child is None:
            return None
        answer = self._child.receive(WAIT_S)
        if answer is None:  # the child ended, or is silent too long
            self._give_up()
            return None
        ok, value = answer
        return value if ok else None

    def _give_up(self) -> None:
        """The child cannot be used any more: what is still asked is made here."""
        self._pending.clear()
        self.close()

    def close(self, wait: bool = True) -> None:
        """End the child (see :meth:`..child.Child.close`)."""
        child, self._child = self._child, None
        self._pending.clear()
        if child is not None:
            child.close(wait)


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
    """The child: answer requests until stdin closes."""
    end = ChildEnd()
    _warm_up()
    end.serve(_answer)


if __name__ == "__main__":
    main()
