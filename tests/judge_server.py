"""A loopback HTTP server that speaks enough of the Messages API to test the judge.

It runs a stdlib ``ThreadingHTTPServer`` on 127.0.0.1 (port 0), records every request
(path, headers, JSON body) and answers from a script: a queue of :class:`Reply` objects,
then a responder function of the recorded request. The default responder gives every rule
named in the ``record_verdicts`` tool schema the score 2.

Run as a script (``python tests/judge_server.py --delay 0.2``) it prints its base URL on
the first line of stdout and serves until stdin closes; the benchmark uses that.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOOL_NAME = "record_verdicts"


@dataclass(frozen=True)
class Reply:
    """One scripted answer: status, body (JSON-able, or raw bytes), headers, delay."""

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it (header names lower-cased)."""

    path: str
    headers: Mapping[str, str]
    body: Any
    time: float


#: Chooses the answer to a request (body and headers as recorded).
Responder = Callable[[Recorded], Reply]


def requested_rules(body: Mapping[str, Any]) -> list[str]:
    """The rule ids a request asks for, read from its tool's input schema."""
    for tool in body.get("tools", ()):
        if tool.get("name") == TOOL_NAME:
            return list(tool["input_schema"]["properties"]["verdicts"]["required"])
    return []


def user_text(body: Mapping[str, Any]) -> str:
    """All text of the request's user message(s)."""
    parts: list[str] = []
    for message in body.get("messages", ()):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        else:
            parts.extend(block.get("text", "") for block in content or ())
    return "\n".join(parts)


_ids = itertools.count(1)


def message_body(
    tool_input: Any, *, model: str = "m", input_tokens: int = 100, output_tokens: int = 20
) -> dict[str, Any]:
    """A Messages API response whose only content block is a ``record_verdicts`` call."""
    n = next(_ids)
    return {
        "id": f"msg_{n:06d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [
            {"type": "tool_use", "id": f"toolu_{n:06d}", "name": TOOL_NAME, "input": tool_input}
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def verdict_reply(
    scores: Mapping[str, int],
    *,
    reasons: Mapping[str, str] | None = None,
    input_tokens: int = 100,
    output_tokens: int = 20,
    delay: float = 0.0,
) -> Reply:
    """A successful answer giving each rule its score (reason defaults to ``"ok"``)."""
    reasons = reasons or {}
    verdicts = {
        rule: {"score": score, "reason": reasons.get(rule, "ok")} for rule, score in scores.items()
    }
    body = message_body(
        {"verdicts": verdicts}, input_tokens=input_tokens, output_tokens=output_tokens
    )
    return Reply(body=body, delay=delay)


def error_reply(status: int, kind: str, *, retry_after: str | None = None) -> Reply:
    """An API error answer in the Messages API error shape."""
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    body = {"type": "error", "error": {"type": kind, "message": f"scripted {status}"}}
    return Reply(status=status, body=body, headers=headers)


def all_twos(request: Recorded, *, delay: float = 0.0) -> Reply:
    """Default responder: score 2 on every requested rule."""
    return verdict_reply({rule: 2 for rule in requested_rules(request.body)}, delay=delay)


class _Server(ThreadingHTTPServer):
    # The stdlib default backlog (5) refuses connections when many clients open at once.
    request_queue_size = 128


class MessagesServer:
    """The loopback server; use as a context manager or call start/stop."""

    def __init__(self, responder: Responder | None = None, *, delay: float = 0.0):
        self.responder: Responder = responder or (lambda request: all_twos(request, delay=delay))
        self.queue: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *replies: Reply) -> None:
        """Queue answers to give, in order, before the responder is used."""
        with self._lock:
            self.queue.extend(replies)

    def next_reply(self, request: Recorded) -> Reply:
        with self._lock:
            if self.queue:
                return self.queue.popleft()
        return self.responder(request)

    def record(self, item: Recorded) -> None:
        with self._lock:
            self.requests.append(item)

    def start(self) -> MessagesServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> MessagesServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes: without TCP_NODELAY the body waits
            # for the client's delayed ACK (about 40 ms on Linux) on a kept-alive socket.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                headers = {k.lower(): v for k, v in self.headers.items()}
                recorded = Recorded(self.path, headers, body, time.monotonic())
                server.record(recorded)
                if self.path.split("?")[0] != "/v1/messages":
                    reply = error_reply(404, "not_found_error")
                else:
                    reply = server.next_reply(recorded)
                if reply.delay:
                    time.sleep(reply.delay)
                payload = (
                    reply.body
                    if isinstance(reply.body, bytes)
                    else json.dumps(reply.body).encode()
                )
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # the client gave up (timeout): nothing to do
                    pass

        return Handler


def main(argv: list[str] | None = None) -> None:
    """Serve with a fixed answer delay until stdin closes (used by the benchmark)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args(argv)
    with MessagesServer(delay=args.delay) as server:
        print(server.url, flush=True)
        sys.stdin.read()
        print(len(server.requests), flush=True)


if __name__ == "__main__":
    main()
