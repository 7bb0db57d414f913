"""The viewer's server: read-only pages over a results store, on 127.0.0.1.

The store may hold private figures, so every page needs the session token: the address
``dictbench view`` prints carries it once (``/?token=…``); the server answers with a
cookie (HttpOnly, SameSite=Strict) and sends the browser on to the same page without the
token in its address. Pages carry no script; the Content-Security-Policy allows none.

Routes: ``/`` the runs, ``/trend?suite=&product=`` a series with its drops,
``/run/ID`` a run's report (``report.html`` from its stored ``dictbench.json`` and
items), ``/run/ID/items?suite=&product=&status=`` its items, ``/api/runs`` the runs as
JSON.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from ..errors import DictbenchError
from ..localserver import (
    LoopbackHandler,
    LoopbackServer,
    Refused,
    bind_loopback,
    new_token,
    same_token,
)
from ..report.html import render_html
from ..stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..store import Store, StoreError
from ..trend import trend_points
from .pages import items_page, run_report_page, runs_page, trend_page

__all__ = ["COOKIE", "RUNS_SHOWN", "Viewer", "address", "make_viewer_server"]

COOKIE = "dictbench_view"
#: The newest runs the runs page lists (``?all=1`` lists every one): a page, and the
#: store's query, stay the same size however many runs a store holds.
RUNS_SHOWN = 200
#: Our own pages: no script, styles from our sheet, no frames, forms to ourselves only.
_CSP = ("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'")
#: A run's report page keeps its inline style sheet (``report.html``); still no script.
_REPORT_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
               "frame-ancestors 'none'; base-uri 'none'")


@dataclass
class Viewer:
    """What one viewer session serves."""

    store: Store
    token: str = ""
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    #: one store call at a time (a SQLite connection is not shared across threads)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.token = self.token or new_token()


class _Server(LoopbackServer):
    viewer: Viewer
    busy_message = "the viewer is busy (too many open connections); try again"


class Handler(LoopbackHandler):
    server: _Server
    server_version = "dictbench-view"

    def do_GET(self) -> None:
        self.answer(self._get)

    do_HEAD = do_GET

    def _authorised(self, query: dict[str, list[str]]) -> bool:
        """The token arrives in the address once, then in the cookie."""
        token = self.server.viewer.token
        given = query.get("token", [""])[0]
        if given:
            if not same_token(given, token):
                raise Refused(HTTPStatus.FORBIDDEN, "wrong session token")
            return False  # right: set the cookie and drop the token from the address
        try:
            cookie = SimpleCookie(self.headers.get("Cookie", ""))
        except CookieError:
            cookie = SimpleCookie()
        morsel = cookie.get(COOKIE)
        if morsel is None or not same_token(morsel.value, token):
            raise Refused(HTTPStatus.FORBIDDEN, "open the address `dictbench view` printed "
                          "(it carries the session token)")
        return True

    def _get(self) -> None:
        self.check_host()
        split = urlsplit(self.path)
        query = parse_qs(split.query)
        if not self._authorised(query):
            rest = {k: v for k, v in query.items() if k != "token"}
            target = split.path + ("?" + urlencode(rest, doseq=True) if rest else "")
            self.send_response(HTTPStatus.SEE_OTHER)
            self.send_header("Location", target)
            self.send_header("Set-Cookie", f"{COOKIE}={self.server.viewer.token}; HttpOnly; "
                             "SameSite=Strict; Path=/")
            self.send_header("Content-Length", "0")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            return
        one = {k: v[0] for k, v in query.items()}
        viewer = self.server.viewer
        try:
            with viewer.lock:
                self._route(viewer, unquote(split.path), one)
        except StoreError as exc:
            raise Refused(HTTPStatus.NOT_FOUND, str(exc)) from None
        except DictbenchError as exc:
            raise Refused(HTTPStatus.UNPROCESSABLE_ENTITY, str(exc)) from None

    def _html(self, text: str, csp: str = _CSP) -> None:
        self.send(200, text.encode("utf-8"), "text/html; charset=utf-8",
                  {"Content-Security-Policy": csp, "Referrer-Policy": "no-referrer"})

    def _route(self, viewer: Viewer, path: str, query: dict[str, str]) -> None:
        store = viewer.store
        if path == "/favicon.ico":  # none: said plainly, so a browser logs no error
            return self.send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        if path == "/static/viewer.css":
            css = resources.files(__package__).joinpath("static", "viewer.css").read_bytes()
            return self.send(200, css, "text/css; charset=utf-8")
        if path == "/":
            limit = None if query.get("all") == "1" else RUNS_SHOWN
            runs = store.runs(suite=query.get("suite") or None,
                              product=query.get("product") or None,
                              limit=None if limit is None else limit + 1)
            more = limit is not None and len(runs) > limit
            return self._html(runs_page(runs[1:] if more else runs,
                                        suite=query.get("suite", ""),
                                        product=query.get("product", ""),
                                        location=store.location, more=more))
        if path == "/api/runs":
            return self.json(200, [run.as_dict() for run in store.runs()])
        if path == "/trend":
            suite, product = query.get("suite", ""), query.get("product", "")
            if not suite or not product:
                raise Refused(HTTPStatus.BAD_REQUEST, "a trend needs ?suite=…&product=…")
            summaries = store.summaries(suite, product)
            if not summaries:
                raise StoreError(f"no stored run of {product} on {suite}")
            points = trend_points(summaries, lambda run_id: store.items(
                run_id, suite=suite, product=product), resamples=viewer.resamples,
                seed=viewer.seed)
            return self._html(trend_page(suite, product, points))
        parts = path.split("/")
        if len(parts) in (3, 4) and parts[1] == "run" and parts[2]:
            run = store.run(parts[2])
            if len(parts) == 4 and parts[3] == "items":
                records = store.items(run.run_id, suite=query.get("suite") or None,
                                      product=query.get("product") or None)
                return self._html(items_page(run, records, suite=query.get("suite", ""),
                                             product=query.get("product", ""),
                                             status=query.get("status", "")))
            if len(parts) == 3:
                report = json.loads(store.report(run.run_id))
                page = render_html(report, store.items(run.run_id))
                return self._html(run_report_page(run.run_id, page), _REPORT_CSP)
        raise Refused(HTTPStatus.NOT_FOUND, "not found")


def make_viewer_server(viewer: Viewer, port: int = 0) -> _Server:
    """A viewer bound to 127.0.0.1 (``port`` 0: an ephemeral port); not yet serving."""
    server: _Server = bind_loopback(_Server, Handler, port)
    server.viewer = viewer
    return server


def address(server: Any) -> str:
    """The address to open: the server's, carrying the session token once."""
    return f"http://127.0.0.1:{server.server_address[1]}/?token={server.viewer.token}"
