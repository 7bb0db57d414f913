"""Run blocks of a rig run and the checks of its schedule (pure functions).

A rig run measures every product three times, in three *blocks*; repetition ``k`` of
every product–fixture cell belongs to block ``block_k`` (the manifest's
``protocol.run_order``, one permutation of the products per block). The operator may
run a block more than once (an *attempt*) after a failed calibration; each attempt is
listed with its start time, and a row belongs to the latest attempt of its block that
started at or before the row's ``tested_at``.

Checks, each reported per product (see :data:`RANK_BLOCKING` for which ones stop a
product from being ranked):

* ``block_order``: inside a block, products start in the frozen order;
* ``fixture_order``: inside a block, a product's fixtures run in manifest order;
* ``block_spacing``: consecutive blocks start at least four hours after the previous
  block ended;
* ``calendar_days``: the blocks span at least two calendar days (UTC);
* ``seven_days``: all products run inside seven calendar days;
* ``network``: a block attempt with a cloud processing path has network measurements
  at its start and end;
* ``selective_rerun``: a block attempt rerun after a failed calibration must rerun every
  product of the failed attempt, never only some.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

__all__ = [
    "RANK_BLOCKING",
    "BlockAttempt",
    "RunRow",
    "Violation",
    "assign_attempts",
    "check_schedule",
    "selective_reruns",
]

#: Minimum time between the end of one block and the start of the next.
MIN_BLOCK_GAP = timedelta(hours=4)
#: Calendar days all products must fit in.
MAX_RUN_DAYS = 7
#: Processing paths that involve the network.
CLOUD_PATHS = frozenset({"vendor_cloud", "third_party_cloud", "hybrid"})
#: Violation kinds that make a product not rankable. The methodology freezes the test
#: environment for a cohort "inside seven calendar days" (an environment condition of
#: ranking) and forbids selectively rerunning a product inside an invalid block; the
#: other checks are protocol deviations that are reported next to the results.
RANK_BLOCKING = frozenset({"seven_days", "selective_rerun"})


@dataclass(frozen=True)
class RunRow:
    """The facts of one results row the schedule checks need."""

    run_id: str
    app_id: str
    fixture_id: str
    repetition: int
    status: str
    tested_at: datetime | None
    processing_path: str = ""

    @property
    def block(self) -> str:
        return f"block_{self.repetition}"


@dataclass(frozen=True)
class BlockAttempt:
    """One run of a block: its calibration recording and network measurements."""

    block: str
    attempt: int
    started_at: datetime
    recording: str = ""
    #: Both the start and the end measurement of bandwidth and round-trip time exist.
    network_measured: bool = False

    @property
    def key(self) -> str:
        return self.block if self.attempt == 1 else f"{self.block}#{self.attempt}"


@dataclass(frozen=True)
class Violation:
    """A schedule problem of one product (``app_id`` ``None``: of the whole run)."""

    kind: str
    app_id: str
    message: str

    @property
    def blocks_rank(self) -> bool:
        return self.kind in RANK_BLOCKING

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "app_id": self.app_id, "message": self.message,
                "blocks_rank": self.blocks_rank}


def assign_attempts(rows: Iterable[RunRow], attempts: Sequence[BlockAttempt]
                    ) -> dict[str, BlockAttempt]:
    """Map each row's run_id to the attempt it belongs to (rows before any attempt: none)."""
    by_block: dict[str, list[BlockAttempt]] = defaultdict(list)
    for attempt in attempts:
        by_block[attempt.block].append(attempt)
    for listed in by_block.values():
        listed.sort(key=lambda a: (a.started_at, a.attempt))
    assigned: dict[str, BlockAttempt] = {}
    for row in rows:
        if row.tested_at is None:
            continue
        started = [a for a in by_block.get(row.block, []) if a.started_at <= row.tested_at]
        if started:
            assigned[row.run_id] = started[-1]
    return assigned


def check_schedule(rows: Sequence[RunRow], block_orders: Mapping[str, Sequence[str]],
                   fixture_order: Sequence[str],
                   attempts: Sequence[BlockAttempt] = ()) -> list[Violation]:
    """Every schedule violation, sorted by product, kind and message."""
    timed = [r for r in rows if r.tested_at is not None and r.status not in ("", "not_tested")]
    found: list[Violation] = []
    found += _block_order(timed, block_orders)
    found += _fixture_order(timed, fixture_order)
    found += _block_spacing(timed)
    found += _seven_days(timed)
    if attempts:
        found += _network(timed, attempts)
    return sorted(set(found), key=lambda v: (v.app_id, v.kind, v.message))


def selective_reruns(rows: Sequence[RunRow], attempts: Sequence[BlockAttempt],
                     invalid: Iterable[str]) -> list[Violation]:
    """Products rerun alone after a failed calibration of their block.

    ``invalid`` holds the keys of attempts whose calibration failed. The next attempt of
    the same block must include every product the failed attempt had; when it reruns
    only some of them, each rerun product is flagged (products that first ran in the new
    attempt are not reruns).
    """
    failed = set(invalid)
    assigned = assign_attempts(rows, attempts)
    apps: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        if row.run_id in assigned:
            apps[assigned[row.run_id].key].add(row.app_id)
    ordered = sorted(attempts, key=lambda a: (a.block, a.started_at, a.attempt))
    found = []
    for before, after in itertools.pairwise(ordered):
        if before.block != after.block or before.key not in failed:
            continue
        rerun = apps[before.key] & apps[after.key]
        missing = apps[before.key] - apps[after.key]
        if rerun and missing:
            for app in sorted(rerun):
                found.append(Violation(
                    "selective_rerun", app,
                    f"{after.key} reran only {', '.join(sorted(rerun))} after "
                    f"{before.key} failed calibration (not rerun: {', '.join(sorted(missing))})"))
    return found


def _block_order(rows: Sequence[RunRow], block_orders: Mapping[str, Sequence[str]]
                 ) -> list[Violation]:
    """Products that started before one the frozen order puts ahead of them (or after
    one it puts behind them). Products that started at the same moment are in order."""
    found = []
    for block, frozen in sorted(block_orders.items()):
        first: dict[str, datetime] = {}
        for row in rows:
            if row.block == block:
                seen = first.get(row.app_id)
                first[row.app_id] = row.tested_at if seen is None else min(seen, row.tested_at)
        expected = [app for app in frozen if app in first]
        for i, app in enumerate(expected):
            early = [o for o in expected[i + 1:] if first[o] < first[app]]
            late = [o for o in expected[:i] if first[o] > first[app]]
            if early or late:
                parts = ([f"after {', '.join(early)}"] if early else []) + \
                    ([f"before {', '.join(late)}"] if late else [])
                found.append(Violation(
                    "block_order", app,
                    f"{block}: started {' and '.join(parts)}; the frozen order is "
                    f"{' > '.join(expected)}"))
    return found


def _fixture_order(rows: Sequence[RunRow], fixture_order: Sequence[str]) -> list[Violation]:
    """A product's fixtures inside a block that ran strictly before one the manifest
    lists ahead of them (rows with the same time are in order)."""
    rank = {fixture: i for i, fixture in enumerate(fixture_order)}
    cells: dict[tuple[str, str], list[RunRow]] = defaultdict(list)
    for row in rows:
        if row.fixture_id in rank:
            cells[(row.app_id, row.block)].append(row)
    found = []
    for (app, block), listed in sorted(cells.items()):
        swapped = sorted({(b.fixture_id, a.fixture_id) for a in listed for b in listed
                          if rank[a.fixture_id] < rank[b.fixture_id]
                          and b.tested_at < a.tested_at})
        if swapped:
            found.append(Violation("fixture_order", app, f"{block}: " + "; ".join(
                f"{later} ran before {earlier}" for later, earlier in swapped)))
    return found


def _block_spacing(rows: Sequence[RunRow]) -> list[Violation]:
    spans: dict[str, tuple[datetime, datetime]] = {}
    apps: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        start, end = spans.get(row.block, (row.tested_at, row.tested_at))
        spans[row.block] = (min(start, row.tested_at), max(end, row.tested_at))
        apps[row.block].add(row.app_id)
    ordered = sorted(spans, key=lambda b: spans[b][0])
    found = []
    for before, after in itertools.pairwise(ordered):
        gap = spans[after][0] - spans[before][1]
        if gap < MIN_BLOCK_GAP:
            for app in sorted(apps[before] | apps[after]):
                found.append(Violation(
                    "block_spacing", app,
                    f"{after} started {_hours(gap)} after {before} ended (at least 4 h)"
                    if gap >= timedelta(0) else
                    f"{after} started {_hours(-gap)} before {before} ended (the blocks "
                    "overlap; at least 4 h apart)"))
    days = {spans[b][0].date() for b in ordered} | {spans[b][1].date() for b in ordered}
    if len(ordered) > 1 and len(days) < 2:
        for app in sorted(set().union(*apps.values())):
            found.append(Violation("calendar_days", app,
                                   "all blocks ran on one calendar day (at least two)"))
    return found


def _seven_days(rows: Sequence[RunRow]) -> list[Violation]:
    if not rows:
        return []
    first_day = min(r.tested_at for r in rows).date()
    last_allowed = first_day + timedelta(days=MAX_RUN_DAYS - 1)
    late: dict[str, datetime] = {}
    for row in rows:
        if row.tested_at.date() > last_allowed:
            late[row.app_id] = max(late.get(row.app_id, row.tested_at), row.tested_at)
    return [Violation("seven_days", app,
                      f"ran on {late[app].date().isoformat()}, outside the seven calendar days "
                      f"{first_day.isoformat()} to {last_allowed.isoformat()}")
            for app in sorted(late)]


def _network(rows: Sequence[RunRow], attempts: Sequence[BlockAttempt]) -> list[Violation]:
    assigned = assign_attempts(rows, attempts)
    found = []
    for row in rows:
        attempt = assigned.get(row.run_id)
        if attempt is not None and row.processing_path in CLOUD_PATHS \
                and not attempt.network_measured:
            found.append(Violation(
                "network", row.app_id,
                f"{attempt.key}: cloud processing path ({row.processing_path}) but no network "
                "measurement at the block's start and end"))
    return found


def _hours(delta: timedelta) -> str:
    """A gap in whole units, never rounded up to a limit: ``3 h 59 min 59 s``."""
    seconds = int(delta.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h"] if hours else []
    parts += [f"{minutes} min"] if minutes else []
    parts += [f"{secs} s"] if secs or not parts else []
    return " ".join(parts)
