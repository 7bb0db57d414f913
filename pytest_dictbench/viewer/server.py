"""The viewer's server: read-only pages over a results store, on 127.0.0.1.

The store may hold private figures, so every page needs the session token: the address
``dictbench view`` prints carries it once (``/?token=…``); the server answers with a
cookie (HttpOnly, SameSite=Strict) and sends the browser on to the same page without the
token in its address. Pages carry no script; the Content-Security-Policy allows none.

Routes: ``/`` the runs, ``/trend?suite=&product=`` a series with its drops,
``/run/ID`` a run's report (``report.html`` from its stored ``dictbench.json`` and
items, with the expected texts of the suites this checkout holds),
``/run/ID/items?suite=&product=&status=`` its items, ``/item?run=&suite=&case=&product=``
one item (with its expected text, word diff and audio from the suite in this checkout;
nothing of a private suite), ``/compare?a=&b=`` two runs side by side, changed cases
first, ``/api/runs`` the runs as JSON.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from ..errors import DictbenchError
from ..localserver import (
    LoopbackHandler,
    LoopbackServer,
    Refused,
    audio_type,
    bind_loopback,
    new_token,
    same_token,
)
from ..private import is_private
from ..report.html import render_html
from ..report.sections import diff_unit, expected_texts
from ..stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..store import Store, StoreError
from ..store.official import official_run_id
from ..trend import store_trend
from ..variation import pair_runs, shared_pairs
from .detail import case_rows, compare_page, item_page
from .pages import items_page, run_report_page, runs_page, trend_page
from .suites import SuiteShelf

__all__ = ["COOKIE", "RUNS_SHOWN", "Viewer", "address", "make_viewer_server"]

COOKIE = "dictbench_view"
#: The newest runs the runs page lists (``?all=1`` lists every one): a page, and the
#: store's query, stay the same size however many runs a store holds.
RUNS_SHOWN = 200
#: Our own pages: no script, styles from our sheet, no frames, forms to ourselves only.
_CSP = ("default-src 'none'; style-src 'self'; img-src 'self' data:; media-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
#: A run's report page keeps its inline style sheet (``report.html``); still no script.
_REPORT_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
               "frame-ancestors 'none'; base-uri 'none'")


@dataclass
class Viewer:
    """What one viewer session serves."""

    store: Store
    #: the checkout whose suites give expected texts and audio (its suites' paths as
    #: the runs recorded them, relative to it)
    shelf: SuiteShelf = field(default_factory=lambda: SuiteShelf(Path.cwd()))
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

    def get(self) -> None:
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
            points = store_trend(store, suite, product, resamples=viewer.resamples,
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
                records = store.items(run.run_id)
                suites = {r.get("suite_path") for r in records}
                found = [s for s in map(viewer.shelf.get, sorted(filter(None, suites))) if s]
                page = render_html(report, records, expected_texts(
                    s for s in found if not is_private(s)))
                officials = {(s["id"], e["product"]): official_run_id(store, s["id"],
                                                                      e["product"])
                             for s in report.get("suites", []) for e in s.get("products", [])}
                return self._html(run_report_page(run.run_id, page, officials), _REPORT_CSP)
        if path in ("/item", "/audio"):
            return self._item(viewer, query, audio=path == "/audio")
        if path == "/compare":
            a, b = store.run(query.get("a", "")), store.run(query.get("b", ""))
            entries = []
            for suite, product in shared_pairs(a, b):
                left = store.items(a.run_id, suite=suite, product=product)
                right = store.items(b.run_id, suite=suite, product=product)
                entries.append({"suite": suite, "product": product,
                                **pair_runs(left, right, resamples=viewer.resamples,
                                            seed=viewer.seed),
                                "rows": case_rows(left, right),
                                "official": official_run_id(store, suite, product)})
            return self._html(compare_page(a, b, entries))
        raise Refused(HTTPStatus.NOT_FOUND, "not found")

    def _item(self, viewer: Viewer, query: dict[str, str], *, audio: bool) -> None:
        """One item's page, or (``audio``) its case's audio from the suite folder."""
        run = viewer.store.run(query.get("run", ""))
        rep = query.get("rep", "1")
        record = next((r for r in viewer.store.items(run.run_id, suite=query.get("suite"),
                                                     product=query.get("product"))
                       if r.get("case_id") == query.get("case")
                       and str(r.get("repetition", 1)) == rep), None)
        if record is None:
            raise Refused(HTTPStatus.NOT_FOUND, "no such item in that run")
        suite = viewer.shelf.get(record.get("suite_path"))
        private = suite is not None and is_private(suite)
        sound = viewer.shelf.audio(suite, record["case_id"]) if suite and not private else None
        if audio:
            if sound is None:
                raise Refused(HTTPStatus.NOT_FOUND, "no audio for this item here")
            with open(sound, "rb") as handle:
                return self.stream_file(handle, sound.stat().st_size, audio_type(sound))
        expected = viewer.shelf.expected(suite, record["case_id"]) if suite else []
        audio_url = "/audio?" + urlencode({k: query.get(k, "") for k in
                                           ("run", "suite", "case", "product", "rep")})
        unit = diff_unit({"locale": suite.locale}) if suite else "word"
        return self._html(item_page(run, record, expected=expected, unit=unit,
                                    audio_url=audio_url if sound else None,
                                    private=private,
                                    suite_found=suite is not None))


def make_viewer_server(viewer: Viewer, port: int = 0) -> _Server:
    """A viewer bound to 127.0.0.1 (``port`` 0: an ephemeral port); not yet serving."""
    server: _Server = bind_loopback(_Server, Handler, port)
    server.viewer = viewer
    return server


def address(server: Any) -> str:
    """The address to open: the server's, carrying the session token once."""
    return f"http://127.0.0.1:{server.server_address[1]}/?token={server.viewer.token}"
