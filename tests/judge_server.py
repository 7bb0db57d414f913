"""A loopback HTTP server that speaks enough of the Messages API to test the judge.

It runs a stdlib ``ThreadingHTTPServer`` on 127.0.0.1 (port 0), records every request
(path, headers, JSON body) and answers from a script: a queue of :class:`Reply` objects,
then a responder function of the recorded request. The default responder gives every rule
listed in the request's ``<rules>`` block the score 2.

Besides ``POST /v1/messages`` it serves:

* ``POST /v1/messages/count_tokens`` - :func:`count_tokens` of the body (the server's
  own tokenizer stand-in; ``counted_twos`` bills the same count, with prompt caching:
  the first request carrying a ``cache_control`` prefix writes it, later ones read it);
* Message Batches: ``POST /v1/messages/batches`` (create), ``GET .../{id}`` (retrieve),
  ``GET .../{id}/results`` (JSONL), ``POST .../{id}/cancel``. A batch ends
  ``batch_delay`` seconds after creation; its requests are then answered by the same
  queue and responder (a non-200 reply becomes an ``errored`` result), except the
  custom ids in ``expire`` (``expired``); with ``end_after_polls`` set it ends at that
  many status checks plus one instead. :meth:`MessagesServer.expire_batch` ends a
  batch at once with every request expired;
* ``POST /v1/chat/completions`` - an OpenAI-compatible endpoint: the responder's
  ``record_verdicts`` input comes back as the JSON content of ``choices[0].message``.

Run as a script (``python tests/judge_server.py --delay 0.2``) it prints its base URL on
the first line of stdout and serves until stdin closes; the benchmark uses that.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from http_stt_server import BacklogServer

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


_RULE_LINE = re.compile(r"^- ([A-Za-z0-9_.-]+): ", re.MULTILINE)


def requested_rules(body: Mapping[str, Any]) -> list[str]:
    """The rule ids a request asks for, read from the ``<rules>`` block of its user turn."""
    text = user_text(body)
    start, end = text.rfind("<rules>"), text.rfind("</rules>")
    return _RULE_LINE.findall(text[start:end]) if 0 <= start < end else []


def _system_text(body: Mapping[str, Any]) -> str:
    system = body.get("system", "")
    if isinstance(system, str):
        return system
    return "".join(block.get("text", "") for block in system)


def _tokens(text: str) -> int:
    """The server's token count of a text: each run of letters or digits counts one
    token per 5 characters begun, each other non-space character one token."""
    words = re.findall(r"[A-Za-z0-9]+", text)
    rest = re.sub(r"[A-Za-z0-9\s]+", "", text)
    return sum(math.ceil(len(w) / 5) for w in words) + len(rest)


#: Tokens the server adds for a tool definition's preamble.
TOOL_PREAMBLE = 300


def prefix_tokens(body: Mapping[str, Any]) -> int:
    """Tokens of the tools and system text (the cacheable prefix)."""
    tools = json.dumps(body.get("tools", []), sort_keys=True)
    return _tokens(tools) + _tokens(_system_text(body)) + (TOOL_PREAMBLE if tools else 0)


def count_tokens(body: Mapping[str, Any]) -> int:
    """Input tokens of a Messages request as this server counts (and bills) them."""
    return prefix_tokens(body) + _tokens(user_text(body))


def _cached_prefix(body: Mapping[str, Any]) -> bool:
    system = body.get("system")
    return isinstance(system, list) and any("cache_control" in b for b in system)


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


class PromptCache:
    """The server's prompt cache: prefixes seen, by hash."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def usage(self, body: Mapping[str, Any], output_tokens: int) -> dict[str, int]:
        """Usage of one request: a marked prefix is written once, then read."""
        total, prefix = count_tokens(body), prefix_tokens(body)
        if not _cached_prefix(body):
            return {"input_tokens": total, "output_tokens": output_tokens}
        key = hashlib.sha256(json.dumps([body.get("tools"), body.get("system"),
                                         body.get("model")], sort_keys=True).encode())
        with self._lock:
            first = key.hexdigest() not in self._seen
            self._seen.add(key.hexdigest())
        cache = "cache_creation_input_tokens" if first else "cache_read_input_tokens"
        return {"input_tokens": total - prefix, "output_tokens": output_tokens, cache: prefix}


def counted_twos(cache: PromptCache, *, output_tokens: int = 20, delay: float = 0.0
                 ) -> Responder:
    """A responder giving 2 everywhere and billing :func:`count_tokens` with caching."""

    def respond(request: Recorded) -> Reply:
        reply = all_twos(request, delay=delay)
        reply.body["usage"] = cache.usage(request.body, output_tokens)
        return reply

    return respond


def chat_body(reply: Reply, request: Recorded) -> Reply:
    """A Messages API reply turned into an OpenAI chat completion (errors pass through)."""
    if reply.status != 200 or not isinstance(reply.body, dict):
        return reply
    blocks = [b for b in reply.body.get("content", []) if b.get("type") == "tool_use"]
    content = json.dumps(blocks[0]["input"]) if blocks else "not json"
    usage = reply.body.get("usage", {})
    prompt = sum(int(usage.get(k, 0)) for k in (
        "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    body = {
        "id": reply.body.get("id", "chatcmpl"), "object": "chat.completion",
        "model": (request.body or {}).get("model", "m"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": usage.get("output_tokens", 0),
                  "prompt_tokens_details": {
                      "cached_tokens": int(usage.get("cache_read_input_tokens", 0))}},
    }
    return Reply(body=body, headers=reply.headers, delay=reply.delay)


@dataclass
class Batch:
    """One Message Batch on the server."""

    id: str
    requests: list[Mapping[str, Any]]
    created: float
    status: str = "in_progress"
    results: list[dict[str, Any]] = field(default_factory=list)
    canceled: bool = False
    #: Status retrievals so far.
    polls: int = 0


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


class MessagesServer:
    """The loopback server; use as a context manager or call start/stop."""

    def __init__(self, responder: Responder | None = None, *, delay: float = 0.0):
        self.responder: Responder = responder or (lambda request: all_twos(request, delay=delay))
        self.queue: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self.batches: dict[str, Batch] = {}
        #: Seconds from creation until a batch ends.
        self.batch_delay = 0.0
        #: When set, a batch ends at its status retrieval number ``end_after_polls + 1``
        #: instead of after ``batch_delay``.
        self.end_after_polls: int | None = None
        #: When set, the answer to every batch creation (an error reply, say) ...
        self.refuse_batches: Reply | None = None
        #: ... or to this many of them only (None: every one).
        self.refusals_left: int | None = None
        #: Seconds from a batch's creation to its ``expires_at``.
        self.batch_expiry = 86400.0
        #: When set, called with each batch creation's body as it arrives.
        self.on_create: Callable[[Any], None] | None = None
        #: When set, a batch creation with more requests is answered 413 (too large).
        self.max_batch_requests: int | None = None
        #: When set, the origin (``scheme://host:port``) an ended batch's ``results_url``
        #: names instead of this server's own.
        self.results_origin: str | None = None
        #: Batch id -> the raw JSONL body of that batch's results download, if set.
        self.results_body: dict[str, bytes] = {}
        #: Custom ids answered ``expired`` when their batch ends.
        self.expire: set[str] = set()
        self._lock = threading.Lock()
        self._batch_ids = itertools.count(1)
        self._httpd = BacklogServer(("127.0.0.1", 0), self._handler_class())
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

    # -- batches ---------------------------------------------------------------------

    def create_batch(self, body: Mapping[str, Any]) -> dict[str, Any]:
        batch = Batch(f"msgbatch_{next(self._batch_ids):06d}", list(body["requests"]),
                      time.time())
        with self._lock:
            self.batches[batch.id] = batch
        return self.batch_json(batch)

    def expire_batch(self, batch_id: str) -> None:
        """End a batch now with every unanswered request expired."""
        self._end(self.batches[batch_id], everything="expired")

    def _end(self, batch: Batch, everything: str | None = None) -> None:
        if batch.status == "ended":
            return
        results = []
        for entry in batch.requests:
            custom_id = entry["custom_id"]
            kind = everything or ("expired" if custom_id in self.expire else "succeeded")
            if kind != "succeeded":
                results.append({"custom_id": custom_id, "result": {"type": kind}})
                continue
            recorded = Recorded("/v1/messages", {}, entry["params"], time.monotonic())
            reply = self.next_reply(recorded)
            if reply.status == 200:
                result = {"type": "succeeded", "message": reply.body}
            else:
                result = {"type": "errored", "error": reply.body}
            results.append({"custom_id": custom_id, "result": result})
        with self._lock:
            batch.results, batch.status = results, "ended"

    def batch_json(self, batch: Batch, *, poll: bool = False) -> dict[str, Any]:
        batch.polls += poll
        if self.end_after_polls is not None:
            due = batch.polls > self.end_after_polls
        else:
            due = time.time() - batch.created >= self.batch_delay
        if batch.status != "ended" and due:
            self._end(batch, "canceled" if batch.canceled else None)
        counts = dict.fromkeys(("processing", "succeeded", "errored", "canceled", "expired"), 0)
        if batch.status == "ended":
            for line in batch.results:
                counts[line["result"]["type"]] += 1
        else:
            counts["processing"] = len(batch.requests)
        return {
            "id": batch.id, "type": "message_batch", "processing_status": batch.status,
            "request_counts": counts, "created_at": _iso(batch.created),
            "expires_at": _iso(batch.created + self.batch_expiry),
            "ended_at": _iso(time.time()) if batch.status == "ended" else None,
            "cancel_initiated_at": _iso(batch.created) if batch.canceled else None,
            "archived_at": None,
            "results_url": (f"{self.results_origin or self.url}/v1/messages/batches/"
                            f"{batch.id}/results" if batch.status == "ended" else None),
        }

    def cancel_batch(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        batch.canceled = True
        if batch.status != "ended":
            batch.status = "canceling"
            self._end(batch, "canceled")
        return self.batch_json(batch)

    def route(self, method: str, path: str, recorded: Recorded) -> Reply:
        """The answer to one request, by method and path."""
        parts = path.split("?")[0].rstrip("/").split("/")
        if method == "POST" and path == "/v1/messages":
            return self.next_reply(recorded)
        if method == "POST" and path == "/v1/chat/completions":
            return chat_body(self.next_reply(recorded), recorded)
        if method == "POST" and path == "/v1/messages/count_tokens":
            return Reply(body={"input_tokens": count_tokens(recorded.body)})
        if parts[:4] == ["", "v1", "messages", "batches"]:
            if method == "POST" and len(parts) == 4:
                if self.refuse_batches is not None and self.refusals_left != 0:
                    if self.refusals_left is not None:
                        self.refusals_left -= 1
                    return self.refuse_batches
                if self.on_create is not None:
                    self.on_create(recorded.body)
                if self.max_batch_requests is not None and \
                        len(recorded.body["requests"]) > self.max_batch_requests:
                    return error_reply(413, "request_too_large")
                return Reply(body=self.create_batch(recorded.body))
            batch = self.batches.get(parts[4]) if len(parts) > 4 else None
            if batch is None:
                return error_reply(404, "not_found_error")
            if method == "GET" and len(parts) == 5:
                return Reply(body=self.batch_json(batch, poll=True))
            if method == "POST" and parts[5:] == ["cancel"]:
                return Reply(body=self.cancel_batch(batch.id))
            if method == "GET" and parts[5:] == ["results"] and batch.status == "ended":
                lines = "".join(json.dumps(r) + "\n" for r in batch.results).encode()
                lines = self.results_body.get(batch.id, lines)
                return Reply(body=lines, headers={"content-type": "application/binary"})
        return error_reply(404, "not_found_error")

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

            def do_GET(self) -> None:
                self.answer("GET")

            def do_POST(self) -> None:
                self.answer("POST")

            def answer(self, method: str) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                headers = {k.lower(): v for k, v in self.headers.items()}
                recorded = Recorded(self.path, headers, body, time.monotonic())
                server.record(recorded)
                reply = server.route(method, self.path.split("?")[0], recorded)
                if reply.delay:
                    time.sleep(reply.delay)
                payload = (
                    reply.body
                    if isinstance(reply.body, bytes)
                    else json.dumps(reply.body).encode()
                )
                try:
                    self.send_response(reply.status)
                    if "content-type" not in reply.headers:
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
    parser.add_argument("--batch-delay", type=float, default=2.0)
    args = parser.parse_args(argv)
    with MessagesServer(delay=args.delay) as server:
        server.batch_delay = args.batch_delay
        print(server.url, flush=True)
        sys.stdin.read()
        print(len(server.requests), flush=True)


if __name__ == "__main__":
    main()
