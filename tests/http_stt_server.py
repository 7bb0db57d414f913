"""A loopback speech-to-text server for the http adapter tests.

It speaks both request shapes of the adapter (OpenAI multipart, generic JSON), records
every request it receives, and answers with whatever the test's ``responder`` returns.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    #: Multipart text fields (``model``, ``language``, ...).
    fields: dict[str, str] = field(default_factory=dict)
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


def parse_multipart(content_type: str, body: bytes) -> tuple[dict[str, str], dict[str, Any]]:
    """Fields and files of a ``multipart/form-data`` body (parsed with the email package)."""
    message = BytesParser(policy=policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    if not message.is_multipart():
        raise ValueError("not a multipart body")
    fields: dict[str, str] = {}
    files: dict[str, tuple[str, str, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is None:
            fields[name] = payload.decode("utf-8")
        else:
            files[name] = (filename, part.get_content_type(), payload)
    return fields, files


class SttServer:
    """``with SttServer(responder) as server: ... server.url ... server.requests``."""

    def __init__(self, responder: Responder | None = None) -> None:
        self.responder: Responder = responder or (lambda request: Reply())
        self.requests: list[Recorded] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                request = Recorded("POST", self.path, dict(self.headers.items()), body)
                kind = self.headers.get("Content-Type", "")
                if kind.startswith("multipart/form-data"):
                    request.fields, request.files = parse_multipart(kind, body)
                elif kind.startswith("application/json"):
                    request.json = json.loads(body)
                owner.requests.append(request)
                reply = owner.responder(request)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data = (reply.body if isinstance(reply.body, bytes)
                        else json.dumps(reply.body).encode())
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
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

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,),
                                        daemon=True)

    def __enter__(self) -> SttServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
