"""``dictbench review``: the review page and the adjudication view on 127.0.0.1.

A stdlib :class:`~http.server.ThreadingHTTPServer`. Requests whose ``Host`` header is
not this server's loopback address and port (compared without regard to case) are
refused, and so are requests with more than one ``Host`` header or a target in absolute
form (a page on another site cannot reach it through DNS rebinding); every write must
carry the per-session token that the page received in its HTML. Audio is served in
chunks, with byte ranges so the player can seek.

A request body must say its length (411 otherwise) and may hold at most
:data:`MAX_BODY` bytes (413), all of it within :attr:`Workbench.request_timeout`
seconds (a deadline for the whole body, 408 after it); a connection that sends nothing
for that long is closed, and at most :data:`MAX_CONNECTIONS` are served at once (503
beyond). Every malformed request gets a 4xx
JSON answer with a reason; anything unexpected is a 500 JSON answer, never a dropped
connection.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import stat
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import DictbenchError
from ..jsonl import loads_strict
from .adjudicate import Adjudication, StaleEntry
from .checks import audio_path
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
#: The largest request body accepted, in bytes: far above any edit of one case.
MAX_BODY = 4 * 1024 * 1024
#: Connections served at once (one thread each); one more is answered 503 and closed.
MAX_CONNECTIONS = 16
_CHUNK = 256 * 1024
_LENGTH = re.compile(r"[0-9]{1,15}")


class _Refused(Exception):
    """A request answered with a 4xx status and a reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Workbench:
    """What one review session serves."""

    root: Path
    adjudication: Adjudication
    reviewer: str
    token: str = ""
    #: seconds a connection may stay silent (a stalled body, an idle keep-alive)
    request_timeout: float = 30.0

    def __post_init__(self) -> None:
        self.token = self.token or secrets.token_urlsafe(24)


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    workbench: Workbench
    slots: threading.BoundedSemaphore

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve in a thread while fewer than :data:`MAX_CONNECTIONS` are; else answer
        503 at once, so that stalled clients cannot pile up threads."""
        if not self.slots.acquire(blocking=False):
            body = json.dumps({"error": "the review server is busy (too many open "
                               "connections); try again"}).encode()
            with contextlib.suppress(OSError):
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: "
                                b"application/json\r\nConnection: close\r\n"
                                + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "dictbench-review"

    def log_message(self, format: str, *args: Any) -> None:  # keep the terminal quiet
        pass

    def setup(self) -> None:
        self.timeout = self.server.workbench.request_timeout
        super().setup()

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except (ConnectionError, TimeoutError):  # the client went away or went silent
            self.close_connection = True

    # -- plumbing -----------------------------------------------------------------------

    def _check_host(self) -> None:
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1:
            raise _Refused(HTTPStatus.BAD_REQUEST, "a request needs exactly one Host header")
        if not self.path.startswith("/"):
            raise _Refused(HTTPStatus.BAD_REQUEST, "the request target must be a path")
        port = self.server.server_address[1]
        if hosts[0].strip().lower() not in (f"127.0.0.1:{port}", f"localhost:{port}"):
            raise _Refused(HTTPStatus.MISDIRECTED_REQUEST, "unexpected Host header")

    def _answer(self, work: Any) -> None:
        """Run ``work``; a refusal or an unexpected failure becomes a JSON error."""
        try:
            work()
        except _Refused as exc:
            self._error(exc.status, str(exc))
        except (ConnectionError, TimeoutError):
            self.close_connection = True
        except Exception as exc:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._error(HTTPStatus.INTERNAL_SERVER_ERROR,
                            f"the server failed: {type(exc).__name__}: {exc}")

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
        self._answer(self._get)

    do_HEAD = do_GET

    def _get(self) -> None:
        self._check_host()
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

    def _audio(self, case_id: str) -> None:
        root = self.server.workbench.root
        row = next((r for r in read_cases(root).rows if r.get("id") == case_id), None)
        if row is None:
            raise _Refused(HTTPStatus.NOT_FOUND, f"no case {case_id!r}")
        if not isinstance(row.get("audio"), str):
            raise _Refused(HTTPStatus.NOT_FOUND, "the case has no audio")
        path = audio_path(root, row["audio"])
        if path is None:
            raise _Refused(HTTPStatus.BAD_REQUEST,
                           f"audio {row['audio']!r} leaves the suite folder; not served")
        try:
            handle = open(path, "rb")  # noqa: SIM115 - closed below
        except FileNotFoundError:
            raise _Refused(HTTPStatus.NOT_FOUND, f"audio {row['audio']!r} is missing") from None
        except OSError as exc:
            raise _Refused(HTTPStatus.NOT_FOUND,
                           f"audio {row['audio']!r} cannot be read: {exc.strerror}") from None
        with handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise _Refused(HTTPStatus.NOT_FOUND, f"audio {row['audio']!r} is not a file")
            self._stream(handle, info.st_size,
                         _AUDIO_TYPES.get(path.suffix.lower(), "application/octet-stream"))

    def _stream(self, handle: Any, size: int, kind: str) -> None:
        match = _RANGE.match(self.headers.get("Range", ""))
        start, end, status = 0, size - 1, HTTPStatus.OK
        headers = {"Accept-Ranges": "bytes"}
        if match and any(match.groups()):
            first, last = match.groups()
            start = int(first) if first else max(0, size - int(last))
            end = min(int(last), size - 1) if first and last else size - 1
            if start >= size or start > end:
                return self._send(HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE, b"", kind,
                                  {"Content-Range": f"bytes */{size}"})
            status = HTTPStatus.PARTIAL_CONTENT
            headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        self.send_response(status)
        for key, value in {"Content-Type": kind, "Content-Length": str(max(0, end - start + 1)),
                           "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                           **headers}.items():
            self.send_header(key, value)
        self.end_headers()
        if self.command == "HEAD":
            return
        handle.seek(start)
        left = end - start + 1
        while left > 0 and (chunk := handle.read(min(_CHUNK, left))):
            self.wfile.write(chunk)
            left -= len(chunk)

    # -- POST ---------------------------------------------------------------------------

    def do_POST(self) -> None:
        self._answer(self._post)

    def _read_body(self, length: int) -> bytes:
        """``length`` bytes of body, all within one deadline (``request_timeout`` from
        the first byte asked for): a client trickling bytes gets 408, not a thread."""
        deadline = time.monotonic() + self.server.workbench.request_timeout
        parts: list[bytes] = []
        left = length
        late = _Refused(HTTPStatus.REQUEST_TIMEOUT, "the body did not arrive within the "
                        f"deadline of {self.server.workbench.request_timeout:g} s")
        while left:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.close_connection = True
                raise late
            self.connection.settimeout(remaining)
            try:
                part = self.rfile.read1(min(left, 65536))
            except TimeoutError:
                self.close_connection = True  # a timed-out socket file reads no more
                raise late from None
            if not part:
                self.close_connection = True
                raise _Refused(HTTPStatus.BAD_REQUEST, "the body ended before Content-Length")
            parts.append(part)
            left -= len(part)
        self.connection.settimeout(self.server.workbench.request_timeout)
        return b"".join(parts)

    def _body(self) -> dict[str, Any]:
        raw_length = self.headers.get_all("Content-Length") or []
        if not raw_length:
            raise _Refused(HTTPStatus.LENGTH_REQUIRED, "a request body needs a Content-Length")
        # ASCII digits only: str.isdigit() also accepts "²", which int() refuses
        if len(set(raw_length)) != 1 or not _LENGTH.fullmatch(raw_length[0].strip()):
            raise _Refused(HTTPStatus.BAD_REQUEST,
                           f"Content-Length {', '.join(raw_length)!r} is not a length")
        length = int(raw_length[0])
        if length > MAX_BODY:
            self.close_connection = True  # the body is not read
            raise _Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                           f"the body has {length:,} bytes, more than the limit of "
                           f"{MAX_BODY:,}")
        data = self._read_body(length)
        try:
            body = loads_strict(data.decode("utf-8")) if data.strip() else {}
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise _Refused(HTTPStatus.BAD_REQUEST, f"bad request body: {exc}") from None
        if not isinstance(body, dict):
            raise _Refused(HTTPStatus.BAD_REQUEST, "bad request body: not a JSON object")
        return body

    def _post(self) -> None:
        self._check_host()
        bench = self.server.workbench
        if not secrets.compare_digest(self.headers.get(TOKEN_HEADER, "").encode(),
                                      bench.token.encode()):
            self.close_connection = True
            raise _Refused(HTTPStatus.FORBIDDEN, "missing or wrong session token")
        body = self._body()
        path = urlsplit(self.path).path
        adjudication = bench.adjudication
        try:
            if path == "/api/case":
                fingerprint, case = body.get("fingerprint"), body.get("case")
                if not isinstance(fingerprint, str):
                    raise _Refused(HTTPStatus.BAD_REQUEST, "fingerprint must be text")
                if not isinstance(case, dict):
                    raise _Refused(HTTPStatus.BAD_REQUEST, "case must be a JSON object")
                return self._json(200, update_case(bench.root, fingerprint, case))
            if path in ("/api/draft", "/api/decide") and \
                    not isinstance(body.get("target"), dict):
                raise _Refused(HTTPStatus.BAD_REQUEST, "target must be a JSON object naming "
                               "the entry's suite, case, product, rule and output_hash")
            if path == "/api/draft":
                return self._json(200, adjudication.draft(body["target"]))
            if path == "/api/decide":
                return self._json(200, adjudication.decide(
                    body["target"], body.get("score"), body.get("reason"),
                    body.get("decided_by")))
        except (ConcurrentEdit, StaleEntry) as exc:
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
    server.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
    return server
