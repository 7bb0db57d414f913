"""The loopback HTTP server of the adapter tests, and the speech-to-text one built on it.

:class:`LoopbackServer` is the one implementation: it reads each request (multipart and
JSON bodies parsed), hands it to a handler and sends the :class:`Reply` back, delayed,
trickled or dropped as the reply says. :class:`SttServer` speaks both request shapes of
the ``http`` adapter (OpenAI multipart, generic JSON), records every request it
receives, and answers with whatever the test's ``responder`` returns; the cloud provider
fakes (``provider_servers.py``) are served by :class:`LoopbackServer` too.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class BacklogServer(ThreadingHTTPServer):
    """A threading server whose listen backlog takes a burst of connections: Python's
    default of 5, set as the server binds, drops a SYN now and then, and that connection
    waits 1 s to retransmit it (a real provider's server does not)."""

    request_queue_size = 128
    daemon_threads = True


@dataclass
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    #: Multipart text fields (``model``, ``language``, ...); a repeated name keeps its last.
    fields: dict[str, str] = field(default_factory=dict)
    #: Multipart text fields in order, repeated names included (``keyterms`` lists).
    field_pairs: list[tuple[str, str]] = field(default_factory=list)
    #: Multipart files: name -> (filename, content type, bytes).
    files: dict[str, tuple[str, str, bytes]] = field(default_factory=dict)
    #: The parsed body of a JSON request.
    json: Any = None


@dataclass
class Reply:
    status: int = 200
    body: Any = field(default_factory=lambda: {"text": "  hello from the server  "})
    delay_s: float = 0.0
    #: Seconds between the bytes of the body (a service that trickles its answer).
    trickle_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


Responder = Callable[[Recorded], Reply]
#: A reply status that makes the server close the connection without answering.
DROP = 0


def parse_multipart(content_type: str, body: bytes) -> tuple[dict[str, str], dict[str, Any]]:
    """Fields and files of a ``multipart/form-data`` body (parsed with the email package)."""
    pairs, files = parse_multipart_pairs(content_type, body)
    return dict(pairs), files


def parse_multipart_pairs(content_type: str, body: bytes
                          ) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """Fields (in order, repeats kept) and files of a ``multipart/form-data`` body."""
    message = BytesParser(policy=policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    if not message.is_multipart():
        raise ValueError("not a multipart body")
    fields: list[tuple[str, str]] = []
    files: dict[str, tuple[str, str, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is None:
            fields.append((name, payload.decode("utf-8")))
        else:
            files[name] = (filename, part.get_content_type(), payload)
    return fields, files


class LoopbackServer:
    """``with LoopbackServer(handle) as server: ... server.url ...``: every GET, POST and
    DELETE becomes a :class:`Recorded` (``make`` builds it) given to ``handle``, whose
    :class:`Reply` is sent back. ``json_type``: label every answer
    ``application/json``. A handler's ``AssertionError`` or ``KeyError`` (the client
    sent something wrong) is answered 400 with the reason."""

    #: HTTP version of the answers (``HTTP/1.1`` keeps connections open).
    protocol = "HTTP/1.0"
    json_type = False

    def __init__(self, handle: Callable[[Any], Reply],
                 make: Callable[..., Recorded] = Recorded) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = owner.protocol

            def setup(self) -> None:
                super().setup()  # headers and body at once (no delayed-ACK stalls)
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

            def do_DELETE(self) -> None:
                self._serve("DELETE")

            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                request = make(method, self.path, dict(self.headers.items()), body)
                kind = self.headers.get("Content-Type", "")
                if kind.startswith("multipart/form-data"):
                    request.field_pairs, request.files = parse_multipart_pairs(kind, body)
                    request.fields = dict(request.field_pairs)
                elif kind.startswith("application/json"):
                    request.json = json.loads(body)
                try:
                    reply = handle(request)
                except (AssertionError, KeyError) as exc:  # the client sent something wrong
                    reply = Reply(400, {"error": {"message": f"fake refused: {exc}"}})
                self._answer(reply)

            def _answer(self, reply: Reply) -> None:
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status == DROP:  # hang up without a word
                    self.close_connection = True
                    return
                data = (reply.body if isinstance(reply.body, bytes)
                        else json.dumps(reply.body).encode())
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    if owner.json_type:
                        self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if not reply.trickle_s:
                        self.wfile.write(data)
                    for index in range(len(data) if reply.trickle_s else 0):
                        self.wfile.write(data[index:index + 1])
                        self.wfile.flush()
                        time.sleep(reply.trickle_s)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = BacklogServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,),
                                        daemon=True)

    def __enter__(self) -> Any:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class SttServer(LoopbackServer):
    """``with SttServer(responder) as server: ... server.url ... server.requests``."""

    def __init__(self, responder: Responder | None = None) -> None:
        self.responder: Responder = responder or (lambda request: Reply())
        self.requests: list[Recorded] = []
        super().__init__(self._record)

    def _record(self, request: Recorded) -> Reply:
        self.requests.append(request)
        return self.responder(request)
