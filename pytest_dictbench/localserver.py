"""What every local page server of dictbench shares (``dictbench review``, ``dictbench view``).

A stdlib :class:`~http.server.ThreadingHTTPServer` bound to 127.0.0.1 only. A request
whose ``Host`` header is not this server's loopback address and port (compared without
regard to case) is refused, and so is one with more than one ``Host`` header or a
target in absolute form: a page on another site cannot reach the server through DNS
rebinding. At most :data:`MAX_CONNECTIONS` connections are served at once (503 beyond),
a connection silent for ``request_timeout`` seconds is closed, and every refusal or
failure is a JSON answer with a reason, never a dropped connection. Each server holds a
per-session token (:func:`new_token`) that its pages must present.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["MAX_CONNECTIONS", "LoopbackHandler", "LoopbackServer", "Refused", "audio_type",
           "bind_loopback", "new_token", "same_token"]

#: Connections served at once (one thread each); one more is answered 503 and closed.
MAX_CONNECTIONS = 16
_AUDIO_TYPES = {".flac": "audio/flac", ".wav": "audio/wav", ".mp3": "audio/mpeg",
                ".ogg": "audio/ogg", ".opus": "audio/ogg", ".m4a": "audio/mp4"}
_RANGE = re.compile(r"bytes=(\d*)-(\d*)$")
_CHUNK = 256 * 1024


def audio_type(path: Path) -> str:
    """The content type an audio file is served with."""
    return _AUDIO_TYPES.get(path.suffix.lower(), "application/octet-stream")


class Refused(Exception):
    """A request answered with a 4xx status and a reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def new_token() -> str:
    """A session token: 24 random bytes, URL-safe."""
    return secrets.token_urlsafe(24)


def same_token(given: str, token: str) -> bool:
    """Whether ``given`` is the session token (compared in constant time)."""
    return secrets.compare_digest(given.encode(), token.encode())


class LoopbackServer(ThreadingHTTPServer):
    """A threading server that serves at most :data:`MAX_CONNECTIONS` at once."""

    daemon_threads = True
    slots: threading.BoundedSemaphore
    #: seconds a connection may stay silent (a stalled body, an idle keep-alive)
    request_timeout: float = 30.0
    #: what a refused extra connection is told
    busy_message = "the server is busy (too many open connections); try again"

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve in a thread while fewer than :data:`MAX_CONNECTIONS` are; else answer
        503 at once, so that stalled clients cannot pile up threads."""
        if not self.slots.acquire(blocking=False):
            body = json.dumps({"error": self.busy_message}).encode()
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


class LoopbackHandler(BaseHTTPRequestHandler):
    """The plumbing of a local page server's handler: Host check, answers, errors."""

    server: LoopbackServer

    def log_message(self, format: str, *args: Any) -> None:  # keep the terminal quiet
        pass

    def setup(self) -> None:
        self.timeout = self.server.request_timeout
        super().setup()

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except (ConnectionError, TimeoutError):  # the client went away or went silent
            self.close_connection = True

    def check_host(self) -> None:
        """Refuse a request not addressed to this server by its loopback name and port."""
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1:
            raise Refused(HTTPStatus.BAD_REQUEST, "a request needs exactly one Host header")
        if not self.path.startswith("/"):
            raise Refused(HTTPStatus.BAD_REQUEST, "the request target must be a path")
        port = self.server.server_address[1]
        if hosts[0].strip().lower() not in (f"127.0.0.1:{port}", f"localhost:{port}"):
            raise Refused(HTTPStatus.MISDIRECTED_REQUEST, "unexpected Host header")

    def do_GET(self) -> None:
        """A GET (or HEAD) addressed to this server by its loopback name is :meth:`get`'s."""
        self.answer(self._checked_get)

    do_HEAD = do_GET

    def _checked_get(self) -> None:
        self.check_host()
        self.get()

    def get(self) -> None:
        """Answer a GET whose Host was checked (a server's pages); none by default."""
        raise Refused(HTTPStatus.NOT_FOUND, "not found")

    def answer(self, work: Any) -> None:
        """Run ``work``; a refusal or an unexpected failure becomes a JSON error."""
        try:
            work()
        except Refused as exc:
            self.error(exc.status, str(exc))
        except (ConnectionError, TimeoutError):
            self.close_connection = True
        except Exception as exc:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.error(HTTPStatus.INTERNAL_SERVER_ERROR,
                           f"the server failed: {type(exc).__name__}: {exc}")

    def send(self, status: int, body: bytes, content_type: str,
             headers: dict[str, str] | None = None) -> None:
        """One whole answer, never cached, its type never sniffed."""
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

    def stream_file(self, handle: Any, size: int, kind: str) -> None:
        """The open file ``handle`` of ``size`` bytes, in chunks, with byte ranges (so a
        player can seek)."""
        match = _RANGE.match(self.headers.get("Range", ""))
        start, end, status = 0, size - 1, HTTPStatus.OK
        headers = {"Accept-Ranges": "bytes"}
        if match and any(match.groups()):
            first, last = match.groups()
            start = int(first) if first else max(0, size - int(last))
            end = min(int(last), size - 1) if first and last else size - 1
            if start >= size or start > end:
                return self.send(HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE, b"", kind,
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

    def json(self, status: int, value: Any) -> None:
        self.send(status, json.dumps(value, ensure_ascii=False).encode("utf-8"),
                  "application/json; charset=utf-8")

    def error(self, status: int, message: str) -> None:
        self.json(status, {"error": message})


def bind_loopback(server_class: type[LoopbackServer], handler: type[LoopbackHandler],
                  port: int = 0) -> Any:
    """A ``server_class`` bound to 127.0.0.1 (``port`` 0: an ephemeral port), not yet
    serving."""
    server = server_class(("127.0.0.1", port), handler)
    server.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
    return server
