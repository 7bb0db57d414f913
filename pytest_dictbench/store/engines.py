"""Where a store is, and how each backend connects: a SQLite file or a PostgreSQL server.

The password of a PostgreSQL URL is never printed: every message shows the location
through ``redact.redact_url``, and the password is registered as a secret, so no
written file holds it either.

SQLite: WAL journal (readers never wait for a writer), a 60 s busy timeout, and write
transactions that take the write lock when they begin (``BEGIN IMMEDIATE``), so two runs
recording at once queue instead of failing half-way. PostgreSQL (extra ``postgres``,
psycopg 3): an advisory lock serialises schema migrations; runs are written in their
own transactions side by side.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text

from ..errors import require
from ..redact import REDACTED, redact_url, register_secret, url_password
from .location import MAX_PAGES as _MAX_PAGES
from .location import POSTGRES as _POSTGRES

__all__ = ["Backend", "backend_for"]

#: The advisory lock key of schema migrations on PostgreSQL ("dictbench" in digits).
_MIGRATION_LOCK = 3428_2236_2437


@dataclass(frozen=True)
class Backend:
    """One store's engine and what differs between the backends."""

    engine: Engine
    #: the location with its password redacted
    location: str
    #: the database holds nothing but the store (a SQLite file)
    own_database: bool
    password: str | None = None
    #: the driver's own errors (SQLAlchemy wraps them; these catch any it does not)
    driver_errors: tuple[type[Exception], ...] = ()

    def lock_schema(self, conn: Connection) -> None:
        """Serialise schema migrations (SQLite's write transaction already does)."""
        if self.engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})

    def words(self, message: str) -> str:
        """An error message with the password taken out."""
        if self.password:
            message = message.replace(self.password, REDACTED)
        return redact_url(message)


def _checkpoint_first(dbapi_connection: Any, _record: Any) -> None:
    """Copy the journal into the file when connecting, and no more when a transaction
    commits."""
    dbapi_connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
    dbapi_connection.execute("PRAGMA wal_autocheckpoint = 0")


def backend_for(url: str, *, checkpoint_first: bool = False) -> Backend:
    """The engine of a store location from :func:`store_location` (see
    ``open_store`` for ``checkpoint_first``)."""
    if _POSTGRES.match(url):
        psycopg = require("psycopg", "postgres", "a PostgreSQL results store",
                          package="psycopg[binary]")
        password = url_password(url)
        register_secret(password)
        driver_url = _POSTGRES.sub("postgresql+psycopg://", url, count=1)
        engine = create_engine(driver_url, connect_args={"connect_timeout": 10},
                               pool_pre_ping=True)
        return Backend(engine, redact_url(url), own_database=False, password=password,
                       driver_errors=(psycopg.Error,))
    path_text = url[len("sqlite:///"):]
    cap = _MAX_PAGES.search(path_text)
    path = Path(path_text[:cap.start()] if cap else path_text)
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine("sqlite:///" + str(path))
    event.listen(engine, "connect", _sqlite_connect)
    if cap:
        event.listen(engine, "connect", _max_pages(int(cap.group(1))))
    if checkpoint_first:
        event.listen(engine, "connect", _checkpoint_first)
    event.listen(engine, "begin", _sqlite_begin)
    return Backend(engine, str(path), own_database=True, driver_errors=(sqlite3.Error,))


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    """The driver leaves transactions to us (see :func:`_sqlite_begin`); WAL journal,
    busy timeout, foreign keys."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA busy_timeout = 60000")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA journal_mode = WAL")
        # a commit is not synced to disk, a checkpoint is: a power cut may lose the
        # newest runs, never leave a store broken (https://sqlite.org/pragma.html)
        cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()


def _max_pages(pages: int) -> Any:
    """A connect hook capping the file at ``pages`` pages (``?max_pages=N``)."""
    def cap(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute(f"PRAGMA max_page_count = {int(pages)}")
    return cap


def _sqlite_begin(conn: Connection) -> None:
    """A write transaction takes the write lock at once; a read one when it must."""
    write = conn.get_execution_options().get("dictbench_write", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
