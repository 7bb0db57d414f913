"""Where a store is, and how each backend connects: a SQLite file or a PostgreSQL server.

``--dictbench-store`` / ini ``dictbench_store`` take ``off``, a path (relative to the
rootdir), ``sqlite:///PATH`` or ``postgresql://USER:PASSWORD@HOST:PORT/DB``. The
password is never printed: every message and every listing shows the location through
:func:`redact_url`, and the password is registered as a secret, so no written file
holds it either.

SQLite: WAL journal (readers never wait for a writer), a 60 s busy timeout, and write
transactions that take the write lock when they begin (``BEGIN IMMEDIATE``), so two runs
recording at once queue instead of failing half-way. PostgreSQL (extra ``postgres``,
psycopg 3): an advisory lock serialises schema migrations; runs are written in their
own transactions side by side.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text

from ..errors import require
from ..redact import REDACTED, register_secret

__all__ = ["DEFAULT_STORE", "Backend", "backend_for", "redact_url", "store_location"]

#: The default store, relative to the rootdir.
DEFAULT_STORE = ".dictbench/store.sqlite"
#: Values of ``--dictbench-store`` that turn recording off.
OFF = frozenset({"off", "no", "none", "false", "0"})
_POSTGRES = re.compile(r"^postgres(?:ql)?(?:\+psycopg)?://", re.IGNORECASE)
_PASSWORD = re.compile(r"^([A-Za-z][\w+.-]*://[^:/@?#]*:)([^@/?#]*)(@)")
_QUERY_PASSWORD = re.compile(r"([?&]password=)([^&#]*)", re.IGNORECASE)
#: The advisory lock key of schema migrations on PostgreSQL ("dictbench" in digits).
_MIGRATION_LOCK = 3428_2236_2437


def redact_url(url: str) -> str:
    """``url`` with its password (``user:PASSWORD@``, ``?password=``) replaced."""
    url = _PASSWORD.sub(lambda m: m[1] + REDACTED + m[3], url)
    return _QUERY_PASSWORD.sub(lambda m: m[1] + REDACTED, url)


def _password(url: str) -> str | None:
    found = _PASSWORD.match(url) or _QUERY_PASSWORD.search(url)
    return found[2] if found else None


def store_location(value: str | None, root: Path) -> str | None:
    """The store a value names (``None``: off): a PostgreSQL URL as given, else a
    ``sqlite:///`` URL of an absolute path (a relative path is under ``root``)."""
    value = (value or "").strip()
    if not value:
        value = DEFAULT_STORE
    if value.lower() in OFF:
        return None
    if _POSTGRES.match(value):
        return value
    if value.startswith("sqlite:///"):
        value = value[len("sqlite:///"):]
    return "sqlite:///" + str((root / value).resolve())


@dataclass(frozen=True)
class Backend:
    """One store's engine and what differs between the backends."""

    engine: Engine
    #: the location with its password redacted
    location: str
    #: the database holds nothing but the store (a SQLite file)
    own_database: bool
    password: str | None = None

    def lock_schema(self, conn: Connection) -> None:
        """Serialise schema migrations (SQLite's write transaction already does)."""
        if self.engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})

    def words(self, message: str) -> str:
        """An error message with the password taken out."""
        if self.password:
            message = message.replace(self.password, REDACTED)
        return redact_url(message)


def backend_for(url: str) -> Backend:
    """The engine of a store location from :func:`store_location`."""
    if _POSTGRES.match(url):
        require("psycopg", "postgres", "a PostgreSQL results store", package="psycopg[binary]")
        password = _password(url)
        register_secret(password)
        driver_url = _POSTGRES.sub("postgresql+psycopg://", url, count=1)
        engine = create_engine(driver_url, connect_args={"connect_timeout": 10},
                               pool_pre_ping=True)
        return Backend(engine, redact_url(url), own_database=False, password=password)
    path = Path(url[len("sqlite:///"):])
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url)
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return Backend(engine, str(path), own_database=True)


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    """The driver leaves transactions to us (see :func:`_sqlite_begin`); WAL journal,
    busy timeout, foreign keys."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA busy_timeout = 60000")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA journal_mode = WAL")
    finally:
        cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    """A write transaction takes the write lock at once; a read one when it must."""
    write = conn.get_execution_options().get("dictbench_write", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
