"""Keeping a run's long-lived objects out of the garbage collector's full passes.

A large run holds many objects until it ends: items, test reports, cases, verdicts,
records. A full collection walks every one of them (about 0.2 s at 10,000 items), again
and again while the tests run, the reports are built, the judges are called, and even
after, while other plugins write their summaries and import what they need. Frozen
objects (``gc.freeze``: the permanent generation) are skipped, so a pass walks only what
was made since.

- :func:`long_lived_heap`: a block (a judging run) with what exists on entry frozen;
- :class:`HeldHeap`: a run's freeze, taken again at each step (the tests start, the
  reports start, the session ends) and let go once, when pytest unconfigures.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["HeldHeap", "long_lived_heap"]


@contextmanager
def long_lived_heap() -> Iterator[None]:
    """Freeze the heap inside the block; it is unfrozen afterwards. An object made
    before the block that becomes unreachable inside it only through a reference cycle
    is freed by the first full collection after the block (garbage without a cycle is
    freed at once, as ever). Left alone when something else froze it already (a nested
    block, a held heap, or the embedding program)."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class HeldHeap:
    """A run's freeze: :meth:`hold` adds what exists now to the frozen objects,
    :meth:`let_go` unfreezes them all. When something else froze the heap first (an
    outer run, the embedding program), both leave it alone: that freeze is not this
    run's to end.

    The price: an object frozen while alive that becomes cyclic garbage later (an
    adapter's client let go after the tests, say) is freed by the first full
    collection after :meth:`let_go`: in a ``pytest`` command, the interpreter's own at
    exit, after pytest's unraisableexception plugin has stopped listening. An error
    in its ``__del__`` (a ``ResourceWarning`` of a socket left open) is then printed by
    Python as ``Exception ignored in ...`` rather than shown as pytest's
    ``PytestUnraisableExceptionWarning``, and a run that turns that warning into an
    error does not fail for it. Garbage without a cycle is freed
    at once, as ever. Letting go before pytest's end-of-run collections would show
    it, at the cost of two full passes over the run's objects (0.15 s each at 10,000
    items)."""

    def __init__(self) -> None:
        self.holding = False

    def hold(self) -> None:
        if not self.holding and gc.get_freeze_count():
            return
        self.holding = True
        gc.freeze()

    def let_go(self) -> None:
        if self.holding:
            self.holding = False
            gc.unfreeze()
