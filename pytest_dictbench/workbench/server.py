"""``dictbench review``: the review page and the adjudication view on 127.0.0.1.

A stdlib :class:`~http.server.ThreadingHTTPServer`. Requests whose ``Host`` header is
not this server's loopback address and port are refused (a page on another site cannot
reach it through DNS rebinding); every write must carry the per-session token that the
page received in its HTML. Audio is served with byte ranges so the player can seek.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import DictbenchError
from ..suites import inside
from .adjudicate import Adjudication
from .review import suite_view, update_case
from .store import ConcurrentEdit, read_cases

__all__ = ["Workbench", "make_server"]

TOKEN_HEADER = "X-Dictbench-Token"
_STATIC = {"common.js": "text/javascript", "review.js": "text/javascript",
           "adjudicate.js": "text/javascript", "workbench.css": "text/css"}
_PAGES = {"/": "review.html", "/adjudicate": "adjudicate.html"}
_AUDIO_TYPES = {".flac": "audio/flac", ".wav": "audio/wav", ".mp3": "audio/mpeg",
                ".ogg": "audio/ogg", ".opus": "audio/ogg", ".m4a": "audio/mp4"}
_RANGE = re.compile(r"bytes=(\d*)-(\d*)$")


@dataclass
class Workbench:
    """What one review session serves."""

    root: Path
    adjudication: Adjudication
    reviewer: str
    token: str = ""

    def __post_init__(self) -> None:
        self.token = self.token or secrets.token_urlsafe(24)


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    workbench: Workbench


class Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "dictbench-review"

    def log_message(self, format: str, *args: Any) -> None:  # keep the terminal quiet
        pass

    # -- plumbing -----------------------------------------------------------------------

    def _host_ok(self) -> bool:
        port = self.server.server_address[1]
        return self.headers.get("Host", "") in (f"127.0.0.1:{port}", f"localhost:{port}")

    def _send(self, status: int, body: bytes, content_type: str,
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value, ensure_ascii=False).encode("utf-8"),
                   "application/json; charset=utf-8")

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": message})

    # -- GET ----------------------------------------------------------------------------

    def do_GET(self) -> None:
        if not self._host_ok():
            return self._error(HTTPStatus.MISDIRECTED_REQUEST, "unexpected Host header")
        bench = self.server.workbench
        path = urlsplit(self.path).path
        try:
            if path in _PAGES:
                page = _static(_PAGES[path]).replace("{{TOKEN}}", bench.token)
                page = page.replace("{{REVIEWER}}", _attr(bench.reviewer))
                return self._send(200, page.encode("utf-8"), "text/html; charset=utf-8",
                                  {"Content-Security-Policy": "default-src 'self'; "
                                   "media-src 'self'; object-src 'none'"})
            if path.startswith("/static/") and path[8:] in _STATIC:
                return self._send(200, _static(path[8:]).encode("utf-8"),
                                  f"{_STATIC[path[8:]]}; charset=utf-8")
            if path == "/api/suite":
                return self._json(200, suite_view(bench.root))
            if path == "/api/pending":
                return self._json(200, {"entries": bench.adjudication.view(),
                                        "reviewer": bench.reviewer})
            if path.startswith("/audio/"):
                return self._audio(unquote(path[7:]))
        except DictbenchError as exc:
            return self._error(HTTPStatus.INTERNAL_SERVER_ERROR, str(exc))
        self._error(HTTPStatus.NOT_FOUND, "not found")

    do_HEAD = do_GET

    def _audio(self, case_id: str) -> None:
        root = self.server.workbench.root
        row = next((r for r in read_cases(root).rows if r.get("id") == case_id), {})
        if not isinstance(row.get("audio"), str):
            return self._error(HTTPStatus.NOT_FOUND, "the case has no audio")
        path = inside(root, row["audio"], what="audio", where=root)
        data = path.read_bytes()
        kind = _AUDIO_TYPES.get(path.suffix.lower(), "application/octet-stream")
        match = _RANGE.match(self.headers.get("Range", ""))
        if not match or not any(match.groups()):
            return self._send(200, data, kind, {"Accept-Ranges": "bytes"})
        first, last = match.groups()
        start = int(first) if first else max(0, len(data) - int(last))
        end = min(int(last), len(data) - 1) if first and last else len(data) - 1
        if start >= len(data) or start > end:
            return self._send(HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE, b"", kind,
                              {"Content-Range": f"bytes */{len(data)}"})
        self._send(HTTPStatus.PARTIAL_CONTENT, data[start:end + 1], kind,
                   {"Accept-Ranges": "bytes", "Content-Range": f"bytes {start}-{end}/{len(data)}"})

    # -- POST ---------------------------------------------------------------------------

    def do_POST(self) -> None:
        if not self._host_ok():
            return self._error(HTTPStatus.MISDIRECTED_REQUEST, "unexpected Host header")
        bench = self.server.workbench
        if not secrets.compare_digest(self.headers.get(TOKEN_HEADER, ""), bench.token):
            return self._error(HTTPStatus.FORBIDDEN, "missing or wrong session token")
        try:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(body, dict):
                raise ValueError("the body must be a JSON object")
        except ValueError as exc:
            return self._error(HTTPStatus.BAD_REQUEST, f"bad request body: {exc}")
        path = urlsplit(self.path).path
        adjudication = bench.adjudication
        try:
            if path == "/api/case":
                return self._json(200, update_case(bench.root, str(body.get("fingerprint")),
                                                   body.get("case") or {}))
            if path == "/api/draft":
                return self._json(200, adjudication.draft(int(body.get("index", -1))))
            if path == "/api/decide":
                return self._json(200, adjudication.decide(
                    int(body.get("index", -1)), body.get("score"), body.get("reason"),
                    body.get("decided_by")))
        except ConcurrentEdit as exc:
            return self._error(HTTPStatus.CONFLICT, str(exc))
        except (DictbenchError, ValueError, TypeError) as exc:
            return self._error(HTTPStatus.UNPROCESSABLE_ENTITY, str(exc))
        self._error(HTTPStatus.NOT_FOUND, "not found")


def _attr(text: str) -> str:
    return (text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            .replace(">", "&gt;"))


def make_server(workbench: Workbench, port: int = 0) -> _Server:
    """A server bound to 127.0.0.1 (``port`` 0: an ephemeral port); not yet serving."""
    server = _Server(("127.0.0.1", port), Handler)
    server.workbench = workbench
    return server
