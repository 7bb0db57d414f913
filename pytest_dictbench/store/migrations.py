"""The store's schema versions and the steps between them, applied when a store opens.

A new store gets every step; an older one the steps it lacks, each in the same
transaction as the record of it in ``dictbench_schema``, under a lock (SQLite: the
write lock of ``BEGIN IMMEDIATE``; PostgreSQL: a transaction-level advisory lock), so
two processes opening one store at once migrate it once. A store whose schema is newer
than this code is refused, both versions named: an older pytest-dictbench must not
write rows a newer one does not expect.

A step is written for the tables as they were at its version: when a later version
changes a table, the step that created it keeps its old definition here and the new
step alters it (``schema.py`` always shows the newest tables).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import Connection, inspect

from .. import __version__
from . import schema
from .interface import StoreError

__all__ = ["SCHEMA_VERSION", "migrate"]


def _create_v1(conn: Connection) -> None:
    """Version 1: runs, their suites, products, summaries and items; official runs."""
    schema.metadata.create_all(conn, tables=[
        schema.runs, schema.run_suites, schema.run_products, schema.summaries,
        schema.items, schema.official_conditions, schema.official_runs])


def _create_v2(conn: Connection) -> None:
    """Version 2: ``case_scores``, what a trend reads of each run (runs recorded before
    it have no row there; they are read from their items)."""
    schema.metadata.create_all(conn, tables=[schema.case_scores])


#: The steps, in order: ``(version, step)``.
MIGRATIONS: list[tuple[int, Callable[[Connection], None]]] = [(1, _create_v1),
                                                               (2, _create_v2)]
#: The schema version this code reads and writes.
SCHEMA_VERSION = MIGRATIONS[-1][0]


def migrate(conn: Connection, location: str, *, own_database: bool) -> int:
    """Bring the store's schema up to :data:`SCHEMA_VERSION` (inside the caller's locked
    transaction); returns the version found. ``own_database``: the database holds
    nothing else (a SQLite file), so tables without ``dictbench_schema`` mean the file
    is not a store."""
    tables = set(inspect(conn).get_table_names())
    if schema.schema_versions.name not in tables:
        if own_database and tables:
            raise StoreError(f"{location}: not a dictbench results store (it has tables "
                             f"{', '.join(sorted(tables)[:5])}, and no dictbench_schema)")
        schema.schema_versions.create(conn)
        found = 0
    else:
        versions = [row[0] for row in conn.execute(schema.schema_versions.select())]
        found = max(versions, default=0)
    if found > SCHEMA_VERSION:
        raise StoreError(f"{location}: the store's schema is version {found}, newer than "
                         f"version {SCHEMA_VERSION} that pytest-dictbench {__version__} "
                         "reads and writes; upgrade pytest-dictbench to use it")
    for version, step in MIGRATIONS:
        if version > found:
            step(conn)
            conn.execute(schema.schema_versions.insert().values(
                version=version, applied_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                applied_by=f"pytest-dictbench {__version__}"))
    return found
