"""The one WebSocket session engine of the streaming kinds (over ``websockets``).

One session per item, all of a process's sessions on one event loop: connect with the
key in its header (never the URL), send the opening messages, wait for the provider's
ready message where the protocol has one, then send the audio in chunks of ``chunk_s``
paced on one monotonic clock (chunk ``k`` is due at ``(k + 1) * chunk_s`` after the
clock's zero, see :mod:`.timeline`; with ``realtime=False`` they go out as fast as the
socket takes them), then the protocol's end of stream. Every message received is
logged with its receive time on the same clock. The session ends when the protocol
reads the provider's last message. A socket that takes the audio slowly holds the
sending, so its lateness is measured: ``send`` returns only once the whole message is
in the kernel (``websockets``' write buffer limit 0, see :func:`limit_send_queue`), and
the kernel takes it only once what was sent before it has gone on the wire
(``TCP_NOTSENT_LOWAT``), not into a send buffer that grows to megabytes.

Faults are named, never scored: a failed connection is retried (at most
``CONNECT_ATTEMPTS`` times, before any audio is sent); a socket closed before the last
message, a provider error, no last message within ``final_timeout_s`` after the end of
the audio, or a protocol error raise :class:`StreamError` with what was logged so far.
Messages that cannot be read are counted and quoted (scrubbed) in the log; they do not
end the session.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...errors import CaptureError, ProductError
from ...redact import scrub
from .protocol import Reader
from .timeline import Send, StreamLog, Update

__all__ = ["CONNECT_ATTEMPTS", "MALFORMED", "NOTSENT_LOWAT", "StreamError",
           "import_websockets", "limit_send_queue", "run_session"]

#: Connection attempts before a session fails (only before any audio went out).
CONNECT_ATTEMPTS = 3
#: Characters of a provider message quoted in an error or the log.
QUOTE_CHARS = 200
#: What a protocol's reader raises for a message it cannot read (counted as malformed).
MALFORMED = (ValueError, KeyError, TypeError, IndexError, AttributeError)
#: Largest message read from a provider.
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
#: Bytes not yet transmitted that the kernel may hold before it takes more
#: (``TCP_NOTSENT_LOWAT``; ``None`` leaves the system's default, unbounded).
NOTSENT_LOWAT: int | None = 1
#: High-water mark of ``websockets``' own write buffer: 0, ``send`` waits until the
#: whole message is in the kernel.
WRITE_LIMIT = 0


class StreamError(CaptureError):
    """A streaming session failed; ``log`` holds what it had received."""

    def __init__(self, message: str, log: StreamLog) -> None:
        super().__init__(message)
        self.log = log


def import_websockets() -> Any:
    """``websockets``' asyncio client, or a clear error naming the extra."""
    try:
        from websockets.asyncio import client
    except ImportError:
        raise ProductError("the streaming adapters need websockets: pip install "
                           "'pytest-dictbench[providers]'") from None
    return client


def quote(message: str | bytes, secret_free: Callable[[str], str] = scrub) -> str:
    text = message if isinstance(message, str) else f"<{len(message)} binary bytes>"
    return secret_free(text[:QUOTE_CHARS])


def run_session(url: str, headers: Mapping[str, str], reader: Reader,
                opening: Sequence[str | bytes], chunks: Sequence[str | bytes],
                closing: Sequence[str | bytes], *, chunk_s: float, realtime: bool = True,
                wait_ready: bool = False, final_timeout_s: float = 30.0,
                open_timeout_s: float = 10.0) -> StreamLog:
    """Run one session to its end (see module doc); its log, or :class:`StreamError`."""
    log = StreamLog(chunk_s=chunk_s, realtime=realtime)
    future = asyncio.run_coroutine_threadsafe(
        _session(url, headers, reader, opening, chunks, closing, log, wait_ready,
                 final_timeout_s, open_timeout_s), _shared_loop())
    try:
        return future.result()
    except BaseException:
        future.cancel()
        raise


_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _shared_loop() -> asyncio.AbstractEventLoop:
    """The one event loop every session of the process runs on (its own daemon thread):
    concurrent sessions share one timer queue instead of contending threads, so each
    chunk goes out closer to its due time."""
    global _loop
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="dictbench-streaming",
                             daemon=True).start()
        return _loop


async def _connect(url: str, headers: Mapping[str, str], open_timeout_s: float,
                   log: StreamLog) -> Any:
    client = import_websockets()
    from websockets.exceptions import InvalidStatus

    problem = ""
    for attempt in range(CONNECT_ATTEMPTS):
        try:
            return await client.connect(url, additional_headers=dict(headers),
                                        open_timeout=open_timeout_s, max_size=MAX_MESSAGE_BYTES,
                                        compression=None, ping_interval=None, proxy=None,
                                        write_limit=WRITE_LIMIT)
        except InvalidStatus as exc:
            status = exc.response.status_code
            body = exc.response.body.decode("utf-8", "replace") if exc.response.body else ""
            problem = f"the handshake was refused with HTTP {status}" + \
                (f": {quote(body)}" if body else "")
            if status < 500 and status != 429:
                break  # a refusal (bad key, bad parameter) is not retried
        except (OSError, TimeoutError) as exc:
            problem = f"cannot connect: {type(exc).__name__}: {exc}"
        if attempt + 1 < CONNECT_ATTEMPTS:
            await asyncio.sleep(0.25 * 2 ** attempt)
    raise StreamError(scrub(problem), log)


def limit_send_queue(ws: Any) -> bool:
    """Keep audio from queueing unseen below the sender: the kernel takes a message only
    once the bytes before it have been transmitted (``TCP_NOTSENT_LOWAT`` on the
    connection's socket, where the system has it: Linux, macOS), and under TLS asyncio's
    own buffer of the encrypted bytes is held to 0 as well (its default is 64 KiB).
    Bytes in flight (sent, not yet acknowledged) are not held back: they need no more
    audio to wait, and a link's round trip does not count as lateness. Whether the
    kernel limit was set."""
    transport = ws.transport
    inner = getattr(getattr(transport, "_ssl_protocol", None), "_transport", None)
    if inner is not None and hasattr(inner, "set_write_buffer_limits"):
        inner.set_write_buffer_limits(0)  # the TLS layer's socket transport
    option = getattr(socket, "TCP_NOTSENT_LOWAT", None)
    sock = transport.get_extra_info("socket")
    if NOTSENT_LOWAT is None or option is None or sock is None:
        return False
    try:
        sock.setsockopt(socket.IPPROTO_TCP, option, NOTSENT_LOWAT)
    except OSError:
        return False
    return True


async def _session(url: str, headers: Mapping[str, str], reader: Reader,
                   opening: Sequence[str | bytes], chunks: Sequence[str | bytes],
                   closing: Sequence[str | bytes], log: StreamLog, wait_ready: bool,
                   final_timeout_s: float, open_timeout_s: float) -> StreamLog:
    from websockets.exceptions import ConnectionClosed

    ws = await _connect(url, headers, open_timeout_s, log)
    log.facts["send_queue_limited"] = limit_send_queue(ws)
    ready = asyncio.Event()
    if not wait_ready:
        ready.set()
    zero = 0.0
    clock = time.monotonic
    outcome: dict[str, str | None] = {"error": None}

    def now() -> float:
        return clock() - zero

    async def receive() -> None:
        try:
            async for message in ws:
                t = now()
                log.messages += 1
                try:
                    reading = reader.read(message)
                except MALFORMED as exc:
                    log.malformed.append(f"{exc}: {quote(message)}")
                    continue
                log.facts.update(reading.facts)
                log.updates.extend(Update(t, s.segment, s.text, s.final, s.audio_end)
                                   for s in reading.updates)
                if reading.ready:
                    ready.set()
                if reading.error is not None:
                    outcome["error"] = f"the provider reported an error: {quote(reading.error)}"
                    return
                if reading.done:
                    return
        except ConnectionClosed:
            pass
        rcvd = ws.close_code if ws.close_code is not None else "none"
        reason = quote(ws.close_reason or "")
        outcome["error"] = (f"the connection closed before the last result (close code "
                            f"{rcvd}{': ' + reason if reason else ''})")

    async def send() -> None:
        nonlocal zero
        for message in opening:
            await ws.send(message)
        await ready.wait()
        zero = clock()
        for k, chunk in enumerate(chunks):
            due = (k + 1) * log.chunk_s
            if log.realtime:
                wait = due - now()
                if wait > 0:
                    await asyncio.sleep(wait)
            else:
                due = now()
            await ws.send(chunk)
            log.sends.append(Send(due, now()))
        for message in closing:
            await ws.send(message)
        log.end_sent = now()
        ended = getattr(reader, "ended", None)
        if ended is not None:  # a reader that needs to know the stream has ended
            ended()

    receiver = asyncio.create_task(receive())
    sender = asyncio.create_task(send())
    audio_s = len(chunks) * log.chunk_s
    try:
        problem = await _phases(sender, receiver, ready, open_timeout_s,
                                audio_s + final_timeout_s, final_timeout_s)
        if problem is not None:
            outcome["error"] = problem
    except ConnectionClosed:
        outcome["error"] = outcome["error"] or (
            f"the connection closed while audio was being sent (close code {ws.close_code})")
    finally:
        for task in (sender, receiver):
            task.cancel()
        await asyncio.gather(sender, receiver, return_exceptions=True)
        log.closed = now()
        log.facts.setdefault("close_code", ws.close_code)
        await ws.close()
    if outcome["error"] is not None:
        raise StreamError(scrub(outcome["error"]), log)
    return log


async def _phases(sender: asyncio.Task[None], receiver: asyncio.Task[None],
                  ready: asyncio.Event, ready_s: float, sending_s: float, final_s: float
                  ) -> str | None:
    """Each phase on its own deadline: the provider ready within ``ready_s``, the audio
    sent within ``sending_s``, the last message within ``final_s`` after the end of the
    audio. What went wrong, or ``None`` (the receiver's outcome stands). A failure of
    the sending (a closed socket) raises."""
    waiting = asyncio.ensure_future(ready.wait())
    try:
        done, _ = await asyncio.wait({waiting, receiver}, timeout=ready_s,
                                     return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiting.cancel()
    if receiver in done:
        return None
    if not ready.is_set():
        return f"the provider never said it was ready for audio within {ready_s:g} s"
    done, _ = await asyncio.wait({sender, receiver}, timeout=sending_s,
                                 return_when=asyncio.FIRST_COMPLETED)
    if receiver in done:
        return None
    if sender not in done:
        return f"the audio could not be sent within {sending_s:g} s (the socket took it slowly)"
    sender.result()  # raises what stopped the sending
    done, _ = await asyncio.wait({receiver}, timeout=final_s)
    if receiver in done:
        return None
    return f"no last result within final_timeout_s = {final_s:g} s after the end of the audio"
