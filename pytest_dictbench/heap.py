"""Keeping a run's long-lived objects out of the garbage collector's full passes.

A large run holds many objects until it ends: items, test reports, cases, verdicts. A
full collection walks every one of them (about 0.2 s at 10,000 items), again and again
while the tests run, the reports are built or the judges are called. :func:`long_lived_heap`
puts what exists on entry into the permanent generation, so a pass walks only what is
made inside.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["long_lived_heap"]


@contextmanager
def long_lived_heap() -> Iterator[None]:
    """Freeze the heap inside the block; it is unfrozen afterwards. An object made
    before the block that becomes unreachable inside it only through a reference cycle
    is freed by the first full collection after the block (garbage without a cycle is
    freed at once, as ever). Left alone when something else froze it already (a nested
    block, or the embedding program)."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
