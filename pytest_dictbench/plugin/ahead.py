"""Scoring ahead: in a serial run, the items of cached products are scored a block at a
time instead of one by one.

An item whose output is already in memory (the ``cache`` adapter) and whose suite has no
judges does the same work whenever it runs: read its output, score it, write its record
line. Done between two items' pytest protocols, that work runs about three times slower
than in a loop of its own, because pytest's protocol in between leaves the processor's
caches cold (10,000 cached items: about 100 us an item one by one, about 35 us in a
block; ``benchmarks/bench_plugin_overhead.py --parts``). So the first such item of a
block evaluates itself and the next :data:`BLOCK` - 1 eligible items in run order (the
last block takes the run's last :data:`TAIL` items too), keeping what each one's setup
and call would raise; each item then raises it in its own phase. The records, outcomes
and reports are the same; only pytest's per-item durations move (the first item of a
block carries the block's time).

When every item of a run of at most :data:`EARLY_ITEMS` items has been scored ahead,
the scores of all of them are known while the last :data:`TAIL` or more items still
run: ``on_all_scored`` gets their records (``case_id``, ``status`` and ``score``, by
suite and product), and the session's report helper starts on the score intervals then
instead of at the report build. A run that ends otherwise (``-x``, a rerun) asks for
intervals of other values, and the helper answers those too.

An xdist worker does not score ahead (it does not know which items it will be sent),
nor does an item of a live product (its capture belongs to its own turn) or of a suite
with judges (their calls are batched by their own rules).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import pytest

__all__ = ["BLOCK", "EARLY_ITEMS", "TAIL", "Evaluated", "ScoringAhead", "evaluated",
           "scoring_ahead"]

#: Items scored together, at most (the first one included).
BLOCK = 256
#: The last block of a run takes every item left when no more than this many would
#: follow it: their scores are known that much earlier (10,000 items: about 0.7 s before
#: the end, time for the report helper's interval on a core it shares with the other
#: helpers; with 1,024, one run in three waited for it).
TAIL = 2048
#: Runs of at most this many items hand their scores over once all are known.
EARLY_ITEMS = 20_000

#: What an item's setup and call raise, evaluated ahead (``None``: it passes that phase).
Evaluated = tuple[BaseException | None, BaseException | None]
#: The scored records of a run, by (suite id, product), each with the fields a score
#: interval reads.
ScoredRecords = dict[tuple[str, str], list[dict[str, Any]]]


class AheadItem(Protocol):
    """An item that can be evaluated ahead of its turn (``CaseItem``)."""

    ahead: Evaluated | None
    #: The record the item's evaluation made (until its teardown).
    record: Mapping[str, Any] | None
    #: The properties its evaluation gave it, until its own setup.
    held: list[tuple[str, object]]

    def can_score_ahead(self) -> bool: ...

    def evaluate(self) -> Evaluated: ...


def evaluated(item: pytest.Item, setup: Callable[[], None], call: Callable[[], None]
              ) -> Evaluated:
    """Run ``setup`` and, when it passes, ``call``; what each raised (an error, a skip, a
    failure or ``pytest.exit``, kept for the item's own phase as it would have been raised
    there; an interrupt goes on at once). The properties they gave ``item``
    (its record) wait in ``item.held`` for its own setup: an item that never gets there
    (a plugin skips it before) leaves none."""
    before = len(item.user_properties)
    caught = (Exception, pytest.skip.Exception, pytest.fail.Exception)
    try:
        try:
            setup()
        except caught as exc:
            return exc, None
        try:
            call()
        except caught as exc:
            return None, exc
        return None, None
    finally:
        item.held = item.user_properties[before:]  # type: ignore[attr-defined]
        del item.user_properties[before:]


class ScoringAhead:
    """The run's items in order, evaluated a block at a time."""

    def __init__(self, items: Sequence[pytest.Item],
                 on_all_scored: Callable[[ScoredRecords], None] | None = None) -> None:
        self._items = items
        #: Where the last block ended: in a serial run, where the next one starts.
        self._cursor = 0
        #: Item -> its place in run order, made only if an item is run out of order.
        self._index: dict[int, int] | None = None
        self._on_all_scored = on_all_scored if len(items) <= EARLY_ITEMS else None
        #: Whether every item so far was scored ahead, block after block, in order.
        self._whole = True
        self._scored: ScoredRecords = {}

    def evaluate_from(self, item: AheadItem) -> None:
        """Evaluate ``item`` and the eligible items not yet evaluated among the
        :data:`BLOCK` - 1 that follow it in run order."""
        start = self._place(item)
        if start is None:
            self._whole = False
            item.ahead = item.evaluate()
            return
        end = start + BLOCK
        if len(self._items) - end <= TAIL:
            end = len(self._items)
        self._whole = self._whole and start == self._cursor
        for other in self._items[start:end]:
            eligible = getattr(other, "can_score_ahead", None)  # a CaseItem
            if other is item or (eligible is not None and eligible()
                                 and other.ahead is None):  # type: ignore[attr-defined]
                other.ahead = other.evaluate()  # type: ignore[attr-defined]
                self._whole = self._whole and self._keep(other)  # type: ignore[arg-type]
            else:
                self._whole = False
        self._cursor = end
        if self._whole and end == len(self._items) and self._on_all_scored is not None:
            scored, self._scored = self._scored, {}
            self._on_all_scored(scored)

    def _place(self, item: AheadItem) -> int | None:
        """``item``'s place in run order (``None``: not among the run's items)."""
        items, cursor = self._items, self._cursor
        if cursor < len(items) and items[cursor] is item:
            return cursor
        if self._index is None:  # run out of order (a rerun, a plugin's own order)
            self._index = {id(it): i for i, it in enumerate(items)}
        return self._index.get(id(item))

    def _keep(self, item: AheadItem) -> bool:
        """Keep what a score interval reads of ``item``'s record (when it will be
        handed over); whether it had one."""
        if self._on_all_scored is None:
            return True
        record = item.record
        if record is None:
            return False
        self._scored.setdefault((record["suite"], record["product"]), []).append(
            {"case_id": record["case_id"], "status": record["status"],
             "score": record["score"]})
        return True


_KEY = pytest.StashKey[ScoringAhead]()


def scoring_ahead(session: pytest.Session,
                  on_all_scored: Callable[[ScoredRecords], None] | None) -> ScoringAhead:
    """The session's :class:`ScoringAhead` (made on first use, once the run's items are
    final)."""
    found = session.stash.get(_KEY, None)
    if found is None:
        found = session.stash[_KEY] = ScoringAhead(session.items, on_all_scored)
    return found
