"""A loopback WebSocket server (127.0.0.1, a real socket) that speaks one provider's
real-time protocol from a stored example (``tests/streaming_examples/<kind>.json``):
it checks the handshake's path and auth header, answers the opening, replays the
example's timeline as the audio it receives reaches each message's audio position,
and answers the end of the stream with the example's last messages. It records what
it saw: the request, every audio chunk's receive time, the control messages.

``fault`` scripts what goes wrong: ``"refuse"`` (HTTP 401 at the handshake),
``"drop"`` (close with code 1011 after 0.5 s of audio), ``"silent_end"`` (never answers
the end), ``"malformed"`` (a non-JSON message in the timeline), ``"error"`` (the
provider's error message), ``"never_ready"`` (never answers the opening);
``"small_buffers"`` (a receive buffer of ``SMALL_RCVBUF`` bytes on the accepted socket
and at most one unread message in ``websockets``' queue, so a client's sends block as
soon as the server stops reading) and ``"slow_reader"`` (those buffers, and the server
stops reading for ``STALL_S`` once ``STALL_AT_S`` of audio has arrived).
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.http11 import Response

EXAMPLES = Path(__file__).parent / "streaming_examples"
#: The slow reader's receive buffer (the kernel doubles it) and its stall.
SMALL_RCVBUF = 4096
STALL_AT_S, STALL_S = 0.3, 1.5

ERRORS = {
    "deepgram-live": {"type": "Error", "description": "Bad request: unsupported language",
                      "message": "", "variant": "error"},
    "assemblyai-streaming": {"error": "Invalid sample rate"},
    "speechmatics-rt": {"message": "Error", "type": "invalid_audio_type",
                        "reason": "audio format not supported"},
    "openai-realtime": {"type": "error", "error": {"type": "invalid_request_error",
                                                   "code": "invalid_value",
                                                   "message": "Invalid model"}},
    # a provider that echoes the key back: it must reach no output, cache or report
    "soniox-rt": {"error_code": 400, "error_message": "Invalid model for key {key}"},
}


def example(kind: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{kind}.json").read_text(encoding="utf-8"))


@dataclass
class Seen:
    paths: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    opening: list[Any] = field(default_factory=list)
    #: Server receive time (monotonic) and byte count of each audio chunk, per session.
    chunks: list[list[tuple[float, int]]] = field(default_factory=list)
    control: list[Any] = field(default_factory=list)
    sessions: int = 0


class ScriptedServer:
    def __init__(self, kind: str, key: str, rate: int, fault: str | None = None) -> None:
        self.kind, self.key, self.rate, self.fault = kind, key, rate, fault
        self.example = example(kind)
        self.seen = Seen()
        self.port = 0
        self._ready = threading.Event()
        self._stop: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def base_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def _check(self, connection: Any, request: Any) -> Response | None:
        self.seen.paths.append(request.path)
        self.seen.headers.append(dict(request.headers.raw_items()))
        expected = self.example["auth"].format(key=self.key)
        if self.fault == "refuse" or request.headers.get("Authorization") != expected:
            return Response(401, "Unauthorized", Headers(),
                            b'{"err_msg": "Invalid credentials."}')
        if request.path.split("?")[0] != self.example["path"]:
            return Response(404, "Not Found", Headers(), b"")
        return None

    async def _send(self, ws: Any, message: Any) -> None:
        await ws.send(message if isinstance(message, str) else json.dumps(message))

    async def _handler(self, ws: Any) -> None:
        self.seen.sessions += 1
        chunks: list[tuple[float, int]] = []
        self.seen.chunks.append(chunks)
        ex = self.example
        for message in ex["on_connect"]:
            await self._send(ws, message)
        for _ in range(ex["opening_messages"]):
            self.seen.opening.append(json.loads(await ws.recv()))
        if self.fault == "never_ready":
            await ws.wait_closed()
            return
        for message in ex["on_opening"]:
            await self._send(ws, message)
        timeline = list(ex["timeline"])
        if self.fault == "malformed":
            timeline.insert(1, {"at_s": timeline[0]["at_s"], "send": "{not json"})
        received = 0
        stalled = False
        async for message in ws:
            now = time.monotonic()
            size = self._audio_bytes(message)
            if size is None:  # a control message: the end of the stream
                self.seen.control.append(message)
                if self.fault == "silent_end":
                    await ws.wait_closed()
                    return
                for item in timeline:
                    await self._send(ws, item["send"])
                for message_out in ex["on_end"]:
                    await self._send(ws, message_out)
                await ws.close(1000)
                return
            chunks.append((now, size))
            received += size
            position = received / (2 * self.rate)
            if self.fault == "drop" and position >= 0.5:
                await ws.close(1011, "internal server error")
                return
            if self.fault == "error" and position >= 0.5:
                await self._send(ws, json.dumps(ERRORS[self.kind]).replace("{key}", self.key))
                await ws.close(1000)
                return
            if self.fault == "slow_reader" and position >= STALL_AT_S and not stalled:
                stalled = True
                await asyncio.sleep(STALL_S)  # reads nothing: the buffers fill up
            while timeline and timeline[0]["at_s"] <= position + 1e-9:
                await self._send(ws, timeline.pop(0)["send"])

    def _audio_bytes(self, message: str | bytes) -> int | None:
        """Bytes of audio in ``message``; ``None`` for a control message."""
        if isinstance(message, bytes):
            return len(message) if message else None  # Soniox ends with an empty frame
        body = json.loads(message)
        if body.get("type") == "input_audio_buffer.append":
            return len(base64.b64decode(body["audio"]))
        return None

    def run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = self._loop.create_future()
            slow = self.fault in ("small_buffers", "slow_reader")
            async with serve(self._handler, "127.0.0.1", 0, process_request=self._check,
                             compression=None, max_queue=1 if slow else 16) as server:
                listening = server.sockets[0]
                if slow:  # set before any connection: the accepted sockets inherit it
                    listening.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_RCVBUF)
                self.port = listening.getsockname()[1]
                self._ready.set()
                await self._stop

        asyncio.run(main())

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(
                lambda: self._stop.done() or self._stop.set_result(None))


@contextmanager
def scripted_server(kind: str, key: str, rate: int, fault: str | None = None
                    ) -> Iterator[ScriptedServer]:
    server = ScriptedServer(kind, key, rate, fault)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    if not server._ready.wait(10):
        raise RuntimeError("the scripted WebSocket server did not start")
    try:
        yield server
    finally:
        server.stop()
        thread.join(10)
