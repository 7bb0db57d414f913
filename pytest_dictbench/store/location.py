"""Where a results store is: ``--dictbench-store`` / ini ``dictbench_store`` take
``off``, a path (relative to the rootdir), ``sqlite:///PATH`` or
``postgresql://USER:PASSWORD@HOST:PORT/DB``. A SQLite store may end in ``?max_pages=N``:
the file may not grow beyond N pages (SQLite's ``max_page_count``); a write that needs
more fails as on a full disk. No database library is imported here."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["DEFAULT_STORE", "MAX_PAGES", "OFF", "POSTGRES", "store_location"]

#: The default store, relative to the rootdir.
DEFAULT_STORE = ".dictbench/store.sqlite"
#: Values of ``--dictbench-store`` that turn recording off.
OFF = frozenset({"off", "no", "none", "false", "0"})
POSTGRES = re.compile(r"^postgres(?:ql)?(?:\+psycopg)?://", re.IGNORECASE)
#: The one parameter a SQLite location takes: the most pages the file may hold.
MAX_PAGES = re.compile(r"\?max_pages=([1-9][0-9]*)$")


def store_location(value: str | None, root: Path) -> str | None:
    """The store a value names (``None``: off): a PostgreSQL URL as given, else a
    ``sqlite:///`` URL of an absolute path (a relative path is under ``root``)."""
    value = (value or "").strip()
    if not value:
        value = DEFAULT_STORE
    if value.lower() in OFF:
        return None
    if POSTGRES.match(value):
        return value
    if value.startswith("sqlite:///"):
        value = value[len("sqlite:///"):]
    cap = MAX_PAGES.search(value)
    if cap:
        value = value[:cap.start()]
    return "sqlite:///" + str((root / value).resolve()) + (cap.group(0) if cap else "")
