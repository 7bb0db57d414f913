"""``dictbench review``: the review page and the adjudication view on 127.0.0.1.

Served on 127.0.0.1 by the shared local server (:mod:`pytest_dictbench.localserver`:
Host check against DNS rebinding, a cap on connections, JSON errors); every write must
carry the per-session token that the page received in its HTML. Audio is served in
chunks, with byte ranges so the player can seek.

A request body must say its length (411 otherwise) and may hold at most
:data:`MAX_BODY` bytes (413), all of it within :attr:`Workbench.request_timeout`
seconds (a deadline for the whole body, 408 after it); a connection that sends nothing
for that long is closed. Every malformed request gets a 4xx JSON answer with a reason;
anything unexpected is a 500 JSON answer, never a dropped connection.
"""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass
from http import HTTPStatus
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import DictbenchError
from ..jsonl import loads_strict
from ..localserver import (
    LoopbackHandler,
    LoopbackServer,
    Refused,
    audio_type,
    bind_loopback,
    new_token,
    same_token,
)
from .adjudicate import Adjudication, StaleEntry
from .checks import audio_path
from .review import suite_view, update_case
from .store import ConcurrentEdit, read_cases

__all__ = ["Workbench", "make_server"]

TOKEN_HEADER = "X-Dictbench-Token"
_STATIC = {"common.js": "text/javascript", "review.js": "text/javascript",
           "adjudicate.js": "text/javascript", "workbench.css": "text/css"}
_PAGES = {"/": "review.html", "/adjudicate": "adjudicate.html"}
#: The largest request body accepted, in bytes: far above any edit of one case.
MAX_BODY = 4 * 1024 * 1024
_LENGTH = re.compile(r"[0-9]{1,15}")


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
        self.token = self.token or new_token()


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


class _Server(LoopbackServer):
    workbench: Workbench
    busy_message = "the review server is busy (too many open connections); try again"

    @property  # type: ignore[override]
    def request_timeout(self) -> float:
        return self.workbench.request_timeout


class Handler(LoopbackHandler):
    server: _Server
    server_version = "dictbench-review"

    # -- GET ----------------------------------------------------------------------------

    def get(self) -> None:
        bench = self.server.workbench
        path = urlsplit(self.path).path
        try:
            if path in _PAGES:
                page = _static(_PAGES[path]).replace("{{TOKEN}}", bench.token)
                page = page.replace("{{REVIEWER}}", _attr(bench.reviewer))
                return self.send(200, page.encode("utf-8"), "text/html; charset=utf-8",
                                  {"Content-Security-Policy": "default-src 'self'; "
                                   "media-src 'self'; object-src 'none'"})
            if path.startswith("/static/") and path[8:] in _STATIC:
                return self.send(200, _static(path[8:]).encode("utf-8"),
                                  f"{_STATIC[path[8:]]}; charset=utf-8")
            if path == "/api/suite":
                return self.json(200, suite_view(bench.root))
            if path == "/api/pending":
                return self.json(200, {"entries": bench.adjudication.view(),
                                        "reviewer": bench.reviewer})
            if path.startswith("/audio/"):
                return self._audio(unquote(path[7:]))
        except DictbenchError as exc:
            return self.error(HTTPStatus.INTERNAL_SERVER_ERROR, str(exc))
        self.error(HTTPStatus.NOT_FOUND, "not found")

    def _audio(self, case_id: str) -> None:
        root = self.server.workbench.root
        row = next((r for r in read_cases(root).rows if r.get("id") == case_id), None)
        if row is None:
            raise Refused(HTTPStatus.NOT_FOUND, f"no case {case_id!r}")
        if not isinstance(row.get("audio"), str):
            raise Refused(HTTPStatus.NOT_FOUND, "the case has no audio")
        path = audio_path(root, row["audio"])
        if path is None:
            raise Refused(HTTPStatus.BAD_REQUEST,
                           f"audio {row['audio']!r} leaves the suite folder; not served")
        try:
            handle = open(path, "rb")  # noqa: SIM115 - closed below
        except FileNotFoundError:
            raise Refused(HTTPStatus.NOT_FOUND, f"audio {row['audio']!r} is missing") from None
        except OSError as exc:
            raise Refused(HTTPStatus.NOT_FOUND,
                           f"audio {row['audio']!r} cannot be read: {exc.strerror}") from None
        with handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise Refused(HTTPStatus.NOT_FOUND, f"audio {row['audio']!r} is not a file")
            self.stream_file(handle, info.st_size, audio_type(path))

    # -- POST ---------------------------------------------------------------------------

    def do_POST(self) -> None:
        self.answer(self._post)

    def _read_body(self, length: int) -> bytes:
        """``length`` bytes of body, all within one deadline (``request_timeout`` from
        the first byte asked for): a client trickling bytes gets 408, not a thread."""
        deadline = time.monotonic() + self.server.workbench.request_timeout
        parts: list[bytes] = []
        left = length
        late = Refused(HTTPStatus.REQUEST_TIMEOUT, "the body did not arrive within the "
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
                raise Refused(HTTPStatus.BAD_REQUEST, "the body ended before Content-Length")
            parts.append(part)
            left -= len(part)
        self.connection.settimeout(self.server.workbench.request_timeout)
        return b"".join(parts)

    def _body(self) -> dict[str, Any]:
        raw_length = self.headers.get_all("Content-Length") or []
        if not raw_length:
            raise Refused(HTTPStatus.LENGTH_REQUIRED, "a request body needs a Content-Length")
        # ASCII digits only: str.isdigit() also accepts "²", which int() refuses
        if len(set(raw_length)) != 1 or not _LENGTH.fullmatch(raw_length[0].strip()):
            raise Refused(HTTPStatus.BAD_REQUEST,
                           f"Content-Length {', '.join(raw_length)!r} is not a length")
        length = int(raw_length[0])
        if length > MAX_BODY:
            self.close_connection = True  # the body is not read
            raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                           f"the body has {length:,} bytes, more than the limit of "
                           f"{MAX_BODY:,}")
        data = self._read_body(length)
        try:
            body = loads_strict(data.decode("utf-8")) if data.strip() else {}
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise Refused(HTTPStatus.BAD_REQUEST, f"bad request body: {exc}") from None
        if not isinstance(body, dict):
            raise Refused(HTTPStatus.BAD_REQUEST, "bad request body: not a JSON object")
        return body

    def _post(self) -> None:
        self.check_host()
        bench = self.server.workbench
        if not same_token(self.headers.get(TOKEN_HEADER, ""), bench.token):
            self.close_connection = True
            raise Refused(HTTPStatus.FORBIDDEN, "missing or wrong session token")
        body = self._body()
        path = urlsplit(self.path).path
        adjudication = bench.adjudication
        try:
            if path == "/api/case":
                fingerprint, case = body.get("fingerprint"), body.get("case")
                if not isinstance(fingerprint, str):
                    raise Refused(HTTPStatus.BAD_REQUEST, "fingerprint must be text")
                if not isinstance(case, dict):
                    raise Refused(HTTPStatus.BAD_REQUEST, "case must be a JSON object")
                return self.json(200, update_case(bench.root, fingerprint, case))
            if path in ("/api/draft", "/api/decide") and \
                    not isinstance(body.get("target"), dict):
                raise Refused(HTTPStatus.BAD_REQUEST, "target must be a JSON object naming "
                               "the entry's suite, case, product, rule and output_hash")
            if path == "/api/draft":
                return self.json(200, adjudication.draft(body["target"]))
            if path == "/api/decide":
                return self.json(200, adjudication.decide(
                    body["target"], body.get("score"), body.get("reason"),
                    body.get("decided_by")))
        except (ConcurrentEdit, StaleEntry) as exc:
            return self.error(HTTPStatus.CONFLICT, str(exc))
        except (DictbenchError, ValueError, TypeError) as exc:
            return self.error(HTTPStatus.UNPROCESSABLE_ENTITY, str(exc))
        self.error(HTTPStatus.NOT_FOUND, "not found")


def _attr(text: str) -> str:
    return (text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            .replace(">", "&gt;"))


def make_server(workbench: Workbench, port: int = 0) -> _Server:
    """A server bound to 127.0.0.1 (``port`` 0: an ephemeral port); not yet serving."""
    server: _Server = bind_loopback(_Server, Handler, port)
    server.workbench = workbench
    return server
