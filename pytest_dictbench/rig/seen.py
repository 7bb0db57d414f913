"""What a results CSV's rows claimed so far (run ids and cells), with the row that
claimed each first, kept in a temporary SQLite file instead of in memory: checking a file
of 600,000 rows holds no more than checking one of 60,000. Pure: no pytest."""

from __future__ import annotations

import sqlite3

__all__ = ["SeenRows"]

Cell = tuple[str, str, str, int]


class SeenRows:
    """Run ids and cells (app, profile, fixture, repetition) by the row first seen in."""

    def __init__(self) -> None:
        # "": a private temporary database on disk, removed when closed; its page cache
        # (SQLite's default, about 2 MB) is all it holds in memory
        self._db = sqlite3.connect("")
        self._db.execute("PRAGMA cache_size = -2048")  # KiB: the most it holds
        self._db.executescript(
            "CREATE TABLE run_ids (run_id TEXT PRIMARY KEY, row INTEGER) WITHOUT ROWID;"
            "CREATE TABLE cells (app TEXT, profile TEXT, fixture TEXT, repetition INTEGER,"
            " row INTEGER, PRIMARY KEY (app, profile, fixture, repetition)) WITHOUT ROWID;")

    def run_id_row(self, run_id: str) -> int | None:
        """The row that gave ``run_id`` first, or None."""
        found = self._db.execute("SELECT row FROM run_ids WHERE run_id = ?",
                                 (run_id,)).fetchone()
        return None if found is None else int(found[0])

    def cell_row(self, cell: Cell) -> int | None:
        """The row that filled ``cell`` first, or None."""
        found = self._db.execute("SELECT row FROM cells WHERE app = ? AND profile = ? AND "
                                 "fixture = ? AND repetition = ?", cell).fetchone()
        return None if found is None else int(found[0])

    def add(self, run_id: str, cell: Cell, row: int) -> None:
        """Row ``row`` claims ``run_id`` (when not blank) and ``cell``, neither seen."""
        if run_id:
            self._db.execute("INSERT INTO run_ids VALUES (?, ?)", (run_id, row))
        self._db.execute("INSERT INTO cells VALUES (?, ?, ?, ?, ?)", (*cell, row))

    def close(self) -> None:
        self._db.close()
