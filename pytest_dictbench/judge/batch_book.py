"""The book of open batches (``batches.json``): submitted batches and submissions begun.

Written atomically after every change. A submission is recorded *before* its create
request is sent and settled when the answer books a batch id, so a run killed mid-create
leaves a record, and the next run warns that a batch may have been created and billed.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import JudgeError
from ..files import atomic_write

__all__ = ["BOOK_FILE", "BatchBook", "BatchEntry"]

BOOK_FILE = "batches.json"
BOOK_VERSION = 1


@dataclass
class BatchEntry:
    """One submitted batch of one judge."""

    id: str
    judge: str
    model: str
    hashes: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "judge": self.judge, "model": self.model,
                "hashes": sorted(self.hashes)}


@dataclass
class BatchBook:
    """The open batches, persisted at ``path`` (``None``: in memory only)."""

    path: Path | None
    entries: list[BatchEntry] = field(default_factory=list)
    #: Submissions begun but not answered: written before each create is sent, removed
    #: when the batch id is booked. One left over means a run died mid-create.
    submitting: list[dict[str, Any]] = field(default_factory=list)
    _index: dict[tuple[str, str], BatchEntry] | None = field(default=None, repr=False)

    @classmethod
    def load(cls, path: Path | None) -> BatchBook:
        if path is None or not path.is_file():
            return cls(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            entries = [BatchEntry(str(e["id"]), str(e["judge"]), str(e["model"]),
                                  [str(h) for h in e["hashes"]]) for e in data["batches"]]
            submitting = [dict(s) for s in data.get("submitting", ())]
        except (ValueError, KeyError, TypeError) as exc:
            raise JudgeError(f"unreadable batch book ({type(exc).__name__}: {exc}); it "
                             "lists batches whose results are not collected yet: fix or "
                             "remove it", path=path) from None
        book = cls(path, entries, submitting)
        for lost in submitting:
            warnings.warn(
                f"{path}: an interrupted batch submission of judge {lost.get('judge')!r} "
                f"({len(lost.get('hashes', ()))} requests, begun {lost.get('started')}) may "
                "have been created and billed without its id being booked; check the "
                "provider's console for an orphaned batch. Its requests are submitted "
                "again.", UserWarning, stacklevel=2)
        return book

    def save(self) -> None:
        if self.path is None:
            return
        data = {"version": BOOK_VERSION,
                "batches": [e.to_json() for e in sorted(self.entries, key=lambda e: e.id)],
                "submitting": self.submitting}
        atomic_write(self.path, json.dumps(data, indent=1, sort_keys=True) + "\n")

    def holding(self, judge: str, chash: str) -> BatchEntry | None:
        """The open batch of ``judge`` that holds ``chash``."""
        if self._index is None:
            self._index = {(e.judge, h): e for e in self.entries for h in e.hashes}
        return self._index.get((judge, chash))

    def add(self, entry: BatchEntry) -> None:
        self.entries.append(entry)
        self._index = None
        self.save()

    def begin(self, judge: str, model: str, hashes: Sequence[str]) -> dict[str, Any]:
        """Record a submission about to be sent (saved before the request goes out)."""
        record = {"judge": judge, "model": model, "hashes": sorted(hashes),
                  "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        self.submitting.append(record)
        self.save()
        return record

    def settle(self, record: Mapping[str, Any], entry: BatchEntry | None) -> None:
        """The submission ``record`` got its answer: book ``entry`` (``None``: refused)."""
        self.submitting = [s for s in self.submitting
                           if not (s["judge"] == record["judge"]
                                   and s["hashes"] == record["hashes"])]
        if entry is not None:
            self.entries.append(entry)
            self._index = None
        self.save()

    def remove(self, entry: BatchEntry) -> None:
        self.entries = [e for e in self.entries if e.id != entry.id]
        self._index = None
        self.save()
