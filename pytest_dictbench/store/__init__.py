"""The results store: every run remembered, read back for history, trends, official runs,
run-to-run variation and the gate (``--dictbench-baseline store:...``).

One interface (:class:`Store`), two backends behind it: a SQLite file (the default,
``.dictbench/store.sqlite`` under the rootdir) and a PostgreSQL server (extra
``postgres``). Pure: no pytest. See docs/store.md.
"""

from __future__ import annotations

import secrets
import time

from ..redact import redact_url
from .interface import (
    Condition,
    CorruptRunError,
    Declaration,
    ProductFacts,
    RunFacts,
    Store,
    StoredRun,
    StoreError,
    SuiteFacts,
    Summary,
)
from .location import DEFAULT_STORE, store_location

__all__ = ["DEFAULT_STORE", "Condition", "CorruptRunError", "Declaration", "ProductFacts",
           "RunFacts", "Store", "StoreError", "StoredRun", "SuiteFacts", "Summary",
           "import_backend", "new_run_id", "open_store", "redact_url", "store_location"]


def import_backend() -> None:
    """Import what :func:`open_store` imports (SQLAlchemy and the store's modules: about
    a tenth of a second), ahead of opening a store."""
    import sqlalchemy.exc  # noqa: F401

    from . import engines, sql  # noqa: F401


def open_store(location: str, *, checkpoint_first: bool = False) -> Store:
    """The store at ``location`` (from :func:`store_location`), its schema brought up to
    date; StoreError when it cannot be opened or is not a store.

    ``checkpoint_first``: a SQLite store copies its write-ahead journal into its file
    when it is opened, and not when a run commits (nor, left unclosed, after): a store
    opened early to record one run commits at once, and its run stays in the journal
    (which every reader reads) until the next such opening or any closing."""
    from sqlalchemy.exc import SQLAlchemyError

    from .engines import backend_for
    from .sql import SqlStore

    try:
        backend = backend_for(location, checkpoint_first=checkpoint_first)
    except OSError as exc:
        raise StoreError(f"{redact_url(location)}: cannot open the store: "
                         f"{exc.strerror or exc}") from None
    except (SQLAlchemyError, ValueError) as exc:  # a URL that is no database URL
        raise StoreError(f"{redact_url(location)}: not a store location: "
                         f"{redact_url(str(exc))}") from None
    return SqlStore(backend)


def new_run_id(at: float | None = None) -> str:
    """A run id that sorts by time and is unique across machines:
    ``20261204T231500Z-3f9a1c2e``."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if at is None else at))
    return f"{stamp}-{secrets.token_hex(4)}"
