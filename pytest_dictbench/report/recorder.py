"""A run recorded in the results store by a child process (a :class:`..child.Child`).

Recording a run of 10,000 items cost its process about a quarter of a second at the end:
a tenth importing SQLAlchemy and the store, the rest reading and writing the rows. A
:class:`StoreRecorder` does that work on the second core, most of it while the tests run:

- ``open``: when the tests start, the child imports the store and opens it (bringing
  its schema up to date), then follows the run's item spool (``items.ItemStore``,
  whose file descriptor it inherits), parsing each line as an item adds it;
- ``record``: once the run's ``dictbench.json`` and ``run-info.json`` are made, the
  child gets them with the run's facts and where each of its lines lies, in report
  order, and writes the run in one transaction while the pages are drawn and the report
  set is written; inside that transaction it waits for the next request,
- ``commit`` (the report set was written) or ``abandon`` (it was not, or the run's
  exit status changed): the transaction commits or rolls back, then ``record`` is
  answered with the run id and the run's history texts (``history.md``/``.json``).

The child runs the same code as a recording in the run's own process
(``Store.record_run``, ``history.history_texts``) on the same lines, scrubbing the
same secrets (this process's, handed over with ``record``), so the store holds the same
rows. Nothing depends on it: when it cannot start, fails or dies before it commits, the
run is recorded in the run's own process, as without it. A store error (a locked or
full store) is the run's problem in the same words either way.

    python -m pytest_dictbench.report.recorder   # what the child runs
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..child import Child, ChildEnd
from ..errors import DictbenchError
from ..redact import register_secret, registered_secrets
from ..stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..store import RunFacts, Store, open_store
from .history import history_texts
from .items import LENGTH_BITS, LENGTH_MASK

__all__ = ["Recorded", "StoreRecorder", "history_for"]

#: Seconds to wait for the child's answer to ``record`` once the report set is written.
WAIT_S = 600.0
#: Seconds between two looks at the spool while the tests run.
FOLLOW_S = 0.05

#: An item's record and its line.
Item = tuple[dict[str, Any], str]


@dataclass(frozen=True)
class Recorded:
    """What the child did with a run: recorded it (``run_id``), with its history texts
    or the words of why they are missing; or not, for ``store_error``."""

    run_id: str | None = None
    history: dict[str, str] | None = None
    history_error: str | None = None
    store_error: str | None = None


class StoreRecorder:
    """The parent's end (see module doc)."""

    def __init__(self, child: Child) -> None:
        self._child: Child | None = child
        #: requests sent whose answers are not read yet
        self._asked = 0
        self._recording = False

    @classmethod
    def start(cls, location: str, spool_fd: int, follow: bool) -> StoreRecorder | None:
        """Start the child, have it open the store at ``location`` and read the item
        spool ``spool_fd`` (``follow``: parse each line as it is added, else when the
        run is written); ``None`` when it cannot start."""
        child = Child.spawn(__name__, pass_fds=(spool_fd,))
        if child is None:
            return None
        recorder = cls(child)
        return recorder if recorder._ask("open", (location, spool_fd, follow)) else None

    def _ask(self, name: str, args: Any) -> bool:
        if self._child is None or not self._child.send(name, args):
            self.close()
            return False
        self._asked += 1
        return True

    def record(self, facts: RunFacts, report_text: str, run_info_text: str,
               places: Sequence[int], window: int) -> bool:
        """Have the child write the run (``places``: where each item line lies in the
        spool, in report order, ``ItemStore.places``; ``window``: the runs its history
        covers) and wait inside its transaction; False when it cannot be asked."""
        if self._recording or not self._ask("record", (
                facts, report_text, run_info_text, places, window,
                registered_secrets())):
            return False
        self._recording = True
        return True

    def finish(self, commit: bool) -> Recorded | None:
        """Commit (or roll back) what :meth:`record` wrote and take the child's answer;
        ``None`` when the child failed or is gone before it committed (record the run
        here instead)."""
        child = self._child
        if child is None or not self._recording:
            return None
        self._recording = False
        answer = None
        if child.send("commit" if commit else "abandon", None):
            for _ in range(self._asked):  # "open" is answered True
                answer = child.receive(WAIT_S)
                if answer is None or not answer[0]:
                    break
        self._asked = 0
        if answer is None or not answer[0] or not isinstance(answer[1], Recorded):
            self.close()
            return None
        return answer[1]

    def close(self, wait: bool = True) -> None:
        """End the child (see :meth:`..child.Child.close`); a transaction it still
        holds rolls back."""
        child, self._child = self._child, None
        if child is not None:
            child.close(wait)


def history_for(store: Store, run_id: str, report_text: str, window: int
                ) -> dict[str, str]:
    """The history texts of the run just recorded (``history.history_texts``), with its
    report's bootstrap settings; empty when the store holds no history of it."""
    stats = json.loads(report_text).get("statistics") or {}
    return history_texts(store, run_id, resamples=stats.get("resamples", DEFAULT_RESAMPLES),
                         seed=stats.get("seed", DEFAULT_SEED), window=window)


class _Spool:
    """The child's view of the item spool. Followed (a run that keeps its records
    parsed), each line is parsed as it is added (a thread looks every :data:`FOLLOW_S`
    s) and kept by offset; else each is read and parsed as the run is written, one at a
    time (a run of a million items holds none)."""

    def __init__(self, fd: int, follow: bool) -> None:
        self._fd = fd
        self._read_to = 0
        self._items: dict[int, Item] = {}
        self._lengths: dict[int, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._following = follow
        if follow:
            threading.Thread(target=self._follow, name="dictbench-spool", daemon=True).start()

    def _follow(self) -> None:
        while not self._stop.wait(FOLLOW_S):
            with self._lock:
                self._catch_up()

    def _catch_up(self) -> None:
        """Parse the whole lines added since the last look."""
        data = os.pread(self._fd, os.fstat(self._fd).st_size - self._read_to, self._read_to)
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next look
        at = self._read_to
        for raw in data[:end].split(b"\n")[:-1]:
            line = raw.decode("utf-8")
            self._items[at], self._lengths[at] = (json.loads(line), line), len(raw)
            at += len(raw) + 1
        self._read_to += end

    def items(self, places: Sequence[int]) -> Iterator[Item]:
        """The items at ``places`` (``ItemStore.places``), in that order."""
        self._stop.set()
        with self._lock:
            if self._following:
                self._catch_up()
            for where in places:
                offset, length = where >> LENGTH_BITS, where & LENGTH_MASK
                item = self._items.pop(offset, None)
                if item is None or self._lengths[offset] != length:
                    line = os.pread(self._fd, length, offset).decode("utf-8")
                    item = (json.loads(line), line)
                yield item


class _Abandoned(Exception):
    """The parent said ``abandon``: roll the run back."""


def _record(end: ChildEnd, store: Store, spool: _Spool, args: tuple[Any, ...]
            ) -> Recorded | None:
    """Write the run, wait for the parent's word inside the transaction, then read its
    history; ``None`` when abandoned."""
    facts, report_text, run_info_text, places, window, secrets = args
    for value, source in secrets.items():
        register_secret(value, source)
    decided: list[str] = []

    def decide() -> None:
        decided.append(end.request()[0])
        if decided[-1] != "commit":
            raise _Abandoned

    try:
        run_id = store.record_run(facts, report_text, run_info_text, spool.items(places),
                                  before_commit=decide)
    except _Abandoned:
        return None
    except (DictbenchError, OSError, ValueError) as exc:
        if not decided:
            end.request()  # the parent's word comes all the same
        return Recorded(store_error=str(exc))
    try:
        texts = history_for(store, run_id, report_text, window)
    except Exception as exc:  # the run is committed: it must not be recorded again
        return Recorded(run_id=run_id, history_error=f"{type(exc).__name__}: {exc}"
                        if not isinstance(exc, DictbenchError | OSError | ValueError)
                        else str(exc))
    return Recorded(run_id=run_id, history=texts)


def main() -> None:
    """The child: open the store and follow the spool, then record one run."""
    end = ChildEnd()
    store: Store | None = None
    spool: _Spool | None = None
    while True:
        name, args = end.request()
        try:
            if name == "open":
                location, spool_fd, follow = args
                store = open_store(location, checkpoint_first=True)
                spool = _Spool(spool_fd, follow)
                value: Any = True
            elif name == "record" and store is not None and spool is not None:
                value = _record(end, store, spool, args)
            else:
                raise ValueError(f"unexpected request {name!r}")
        except Exception as exc:  # the parent records the run itself
            end.answer(False, f"{type(exc).__name__}: {exc}")
        else:
            end.answer(True, value)


if __name__ == "__main__":  # run as the module itself, so its answers unpickle there
    from pytest_dictbench.report.recorder import main as module_main

    module_main()
