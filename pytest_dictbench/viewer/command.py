"""``dictbench view``: serve the results store's viewer until interrupted."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from ..history import open_named_store

__all__ = ["add_parser", "cmd_view"]


def cmd_view(args: argparse.Namespace) -> int:
    from .server import Viewer, address, make_viewer_server  # not for every dictbench command

    store = open_named_store(args)
    server = make_viewer_server(Viewer(store), args.port)
    print(f"dictbench view: {store.location}\n  open {address(server)}\n"
          "  (the address carries this session's token; Ctrl+C stops the viewer)", flush=True)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
    finally:
        server.server_close()
        store.close()
    return 0


def add_parser(sub: Any) -> None:
    """Add ``dictbench view`` to the ``dictbench`` parser."""
    view = sub.add_parser("view", help="browse the results store's runs, trends, reports "
                          "and items on 127.0.0.1 (docs/store.md)")
    view.add_argument("--store", help="results store: a SQLite path or a postgresql:// URL "
                      "(default: $DICTBENCH_STORE, else the nearest .dictbench/store.sqlite)")
    view.add_argument("--port", type=int, default=0,
                      help="port on 127.0.0.1 (default: a free one)")
    view.set_defaults(run=cmd_view)
