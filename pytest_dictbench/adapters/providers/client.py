"""The one HTTP client of the cloud provider kinds: a deadline per capture, the key in
its header only, redirects refused, transient failures retried with the project's
backoff (:func:`pytest_dictbench.judge.backoff.with_backoff`).

A :class:`ProviderClient` holds the provider's API root and key. Each capture opens a
:class:`Session` whose deadline (``timeout_s``) covers every request and poll of that
capture: a service that trickles its answer or a job that never finishes ends as
"no complete answer within ...", never as a hung item.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ...errors import CaptureError, ProductError
from ...jsonl import DuplicateKeyError, loads_strict
from ...judge.records import RetryPolicy
from ...judge.transport import TransportError
from ...redact import REDACTED, key_url_problem, public_url, register_secret, scrub_quote

__all__ = ["LOOPBACK", "MAX_ANSWER_BYTES", "ProviderClient", "Reply", "Session", "TooLate",
           "check_base_url", "import_httpx"]

#: Hosts a key may be sent to over plain http (the machine itself, e.g. tests).
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
#: Largest answer body read, in bytes (a transcript is far smaller).
MAX_ANSWER_BYTES = 32 * 1024 * 1024
#: Characters of a provider's error message quoted in the item's error.
_MESSAGE_CHARS = 300


def import_httpx() -> Any:
    """The ``httpx`` module, or a clear error naming the extra that installs it."""
    try:
        import httpx
    except ImportError:
        raise ProductError("the cloud provider adapters need httpx: pip install "
                           "'pytest-dictbench[providers]'") from None
    return httpx


class TooLate(CaptureError):
    """The capture's deadline passed (never retried)."""


def check_base_url(base_url: str, has_key: bool) -> str | None:
    """Why ``base_url`` cannot be used (``None`` when it can): http(s) only, a root
    (with an optional path prefix, as behind a proxy) without query or user info, no
    whitespace or control character, not a link-local or metadata address
    (:func:`~pytest_dictbench.redact.key_url_problem`), and a key only over https or to
    loopback. The URL is quoted with its query values and user info redacted."""
    shown = public_url(base_url)
    problem = key_url_problem(base_url)
    if problem:
        return f"base_url {shown!r}: {problem}"
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"base_url must be an http(s) URL, got {shown!r}"
    if parts.query or parts.fragment or "@" in parts.netloc:
        return (f"base_url must be the API root (scheme, host, port, optional path) without "
                f"query or user info, got {shown!r}; put the key in the environment "
                "variable named by api_key_env")
    if has_key and parts.scheme == "http" and parts.hostname not in LOOPBACK:
        return (f"an API key is only sent over https (or to a loopback address), not to "
                f"{parts.hostname!r}")
    return None


class Reply:
    """A provider's successful answer: status, headers and the parsed JSON body."""

    def __init__(self, status: int, headers: Mapping[str, str], body: Any) -> None:
        self.status, self.headers, self.body = status, headers, body


class ProviderClient:
    """One provider's API root and key; ``session()`` per capture (see module doc)."""

    def __init__(self, name: str, base_url: str, key: str | None, auth: tuple[str, str],
                 timeout_s: float, policy: RetryPolicy | None = None) -> None:
        self.name, self.base_url = name, base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.policy = policy or RetryPolicy()
        self._key = key
        #: Until when (monotonic) every request of this product holds off: a 429 with a
        #: wait holds all the requests in flight, not only the one that got it.
        self._hold_until = 0.0
        self._hold_lock = threading.Lock()
        header, template = auth
        self._headers = {header: template.format(key=key)} if key else {}
        from ...judge import backoff  # imports anthropic: only once a provider is configured

        #: The project's one backoff (imported before any deadline starts running).
        self.backoff = (backoff.GaveUp, backoff.with_backoff)
        self._httpx = httpx = import_httpx()
        self._http = httpx.Client(follow_redirects=False, trust_env=False,
                                  headers={"Accept": "application/json"})

    def session(self, seed: str, timeout_s: float | None = None) -> Session:
        """A capture's requests, sharing one deadline (``timeout_s``, by default the
        product's); ``seed`` fixes the retry jitter."""
        seconds = self.timeout_s if timeout_s is None else timeout_s
        return Session(self, time.monotonic() + seconds, random.Random(seed))

    def hold(self, seconds: float) -> None:
        """Hold every request for ``seconds`` from now (a rate limit was hit)."""
        with self._hold_lock:
            self._hold_until = max(self._hold_until, time.monotonic() + seconds)

    def held(self) -> float:
        """Seconds until requests may be sent again (0 when they may now)."""
        with self._hold_lock:
            return max(0.0, self._hold_until - time.monotonic())

    def scrubbed(self, text: str) -> str:
        """``text`` without the key or any other registered secret, nor a run of 8 or
        more of their characters (a provider's message may quote part of the key)."""
        if self._key:
            register_secret(self._key)  # the runs of it are found like the others'
        return scrub_quote(text.replace(self._key, REDACTED) if self._key else text)

    def close(self) -> None:
        self._http.close()


class Session:
    """The requests of one capture: retries, waits and the deadline they share."""

    def __init__(self, client: ProviderClient, deadline: float, rng: random.Random) -> None:
        self.client, self.deadline, self.rng = client, deadline, rng
        #: Seconds waited before each retry (the capture record keeps them).
        self.waits: list[float] = []
        #: Requests sent, retries included.
        self.requests = 0
        #: Seconds held back by another request's rate limit, before each request.
        self.holds: list[float] = []
        #: HTTP status of the last failed attempt (``None``: no answer).
        self.last_status: int | None = None

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def late(self) -> TooLate:
        return TooLate(f"no complete answer from {self.client.name} within timeout_s = "
                       f"{self.client.timeout_s:g} s")

    def wait(self, seconds: float) -> None:
        """Sleep ``seconds`` unless that would pass the deadline (then :class:`TooLate`)."""
        if seconds >= self.remaining():
            raise self.late()
        time.sleep(max(0.0, seconds))

    def same_origin(self, url: str) -> str:
        """``url`` when it is on the API root's scheme, host and port (an upload URL the
        provider handed out), else :class:`CaptureError`: the key goes nowhere else."""
        mine, theirs = urlsplit(self.client.base_url), urlsplit(url)
        if (theirs.scheme, theirs.hostname, theirs.port) != \
                (mine.scheme, mine.hostname, mine.port):
            raise CaptureError(f"{self.client.name} handed out a URL on another host "
                               f"({theirs.scheme}://{theirs.hostname}); the key is not sent "
                               "there")
        return url

    def send(self, method: str, path: str, *, params: Any = None, json: Any = None,
             content: bytes | None = None, headers: Mapping[str, str] | None = None,
             text: bool = False) -> Reply:
        """One API call, retried on 408/409/429/5xx and dropped connections (honouring
        ``Retry-After``); a permanent failure is a :class:`CaptureError` quoting the
        provider's scrubbed message. The answer is JSON, or with ``text`` plain text.
        ``path`` is appended to the API root, or is a full URL checked by
        :meth:`same_origin`."""

        async def attempt() -> Reply:
            return self._once(method, path, params, json, content, headers, text)

        async def pause(seconds: float) -> None:
            self.waits.append(round(seconds, 3))
            if self.last_status == 429:
                self.client.hold(seconds)  # the others in flight wait too
            self.wait(seconds)

        GaveUp, with_backoff = self.client.backoff
        try:
            return _loop().run_until_complete(
                with_backoff(attempt, self.client.policy, self.rng, pause))
        except GaveUp as exc:
            tries = f" (after {exc.attempts} attempts)" if exc.attempts > 1 else ""
            raise CaptureError(self.client.scrubbed(str(exc.error)) + tries) from None

    def _once(self, method: str, path: str, params: Any, json: Any, content: bytes | None,
              headers: Mapping[str, str] | None, text: bool) -> Reply:
        client = self.client
        self.last_status = None
        held = client.held()
        if held:  # another request of this product hit a rate limit: wait with it
            self.holds.append(round(held, 3))
            self.wait(held)
        remaining = self.remaining()
        if remaining <= 0:
            raise self.late()
        httpx = client._httpx
        url = path if "://" in path else client.base_url + path
        where = f"{client.name} ({urlsplit(url).path})"
        self.requests += 1
        try:
            with client._http.stream(method, url, params=params, json=json, content=content,
                                     headers={**client._headers, **(headers or {})},
                                     timeout=httpx.Timeout(remaining)) as response:
                raw = bytearray()
                for chunk in response.iter_bytes():
                    raw.extend(chunk)
                    if time.monotonic() > self.deadline:
                        raise self.late()
                    if len(raw) > MAX_ANSWER_BYTES:
                        raise CaptureError(f"answer from {where} is larger than "
                                           f"{MAX_ANSWER_BYTES:,} bytes")
        except httpx.TimeoutException:
            raise self.late() from None
        except httpx.TransportError as exc:  # refused, reset, dropped mid-answer
            if self.remaining() <= 0:
                raise self.late() from None
            raise TransportError(client.scrubbed(f"connection to {where} failed: "
                                                 f"{type(exc).__name__}: {exc}")) from None
        status = response.status_code
        if 300 <= status < 400:  # the key must not follow a redirect to another host
            # the Location's query is often a signed URL (a credential): values redacted
            location = public_url(response.headers.get("location", "?"))
            raise CaptureError(f"{where} answered HTTP {status} (a redirect to "
                               f"{client.scrubbed(location)}); redirects are refused")
        if status >= 400:
            self.last_status = status
            raise TransportError(client.scrubbed(f"HTTP {status} from {where}"
                                                 f"{_message(bytes(raw))}"),
                                 status_code=status, headers=dict(response.headers))
        try:
            decoded = bytes(raw).decode("utf-8")
            body = decoded if text else loads_strict(decoded) if raw.strip() else None
        except DuplicateKeyError as exc:  # valid syntax, a key twice: say which (CF21)
            raise CaptureError(f"answer from {where} repeats the key {exc.key!r} in one "
                               "object") from None
        except (UnicodeDecodeError, ValueError):
            if text:
                raise CaptureError(f"answer from {where} is not UTF-8 text") from None
            raise CaptureError(client.scrubbed(f"answer from {where} is not valid JSON"
                                               f"{_snippet(bytes(raw))}")) from None
        return Reply(status, dict(response.headers), body)


_LOOPS = threading.local()


def _loop() -> asyncio.AbstractEventLoop:
    """This thread's event loop for the backoff (one per thread, kept: a new loop per
    request costs about a millisecond)."""
    loop = getattr(_LOOPS, "loop", None)
    if loop is None or loop.is_closed():
        loop = _LOOPS.loop = asyncio.new_event_loop()
    return loop


def _message(raw: bytes) -> str:
    """The provider's error message from its error body (the known shapes), else a
    snippet of the body."""
    try:
        body = loads_strict(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _snippet(raw)
    for found in _messages(body):
        return ": " + _clip(found)
    return _snippet(raw)


def _messages(body: Any) -> list[str]:
    """Messages in an error body: ``error.message``, ``error``, ``err_msg``,
    ``detail.message``, ``detail``, ``message`` (first found wins); ``detail`` as a list
    of validation problems (``{"loc": [...], "msg": ...}``) gives them all, each with
    the field it names."""
    if not isinstance(body, Mapping):
        return []
    found = []
    for key in ("error", "detail", "err_msg", "message", "reason"):
        value = body.get(key)
        if isinstance(value, str) and value:
            found.append(value)
        elif isinstance(value, Mapping):
            found.extend(_messages(value))
        elif isinstance(value, list) and value:
            problems = [_problem(v) for v in value]
            if all(problems):
                found.append("; ".join(p for p in problems if p))
    return found


def _problem(entry: Any) -> str | None:
    """``body.field: message`` of one validation problem, ``None`` if it is not one."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("msg"), str):
        return None
    loc = entry.get("loc")
    where = ".".join(str(part) for part in loc) if isinstance(loc, list) and loc else ""
    return f"{where}: {entry['msg']}" if where else entry["msg"]


def _snippet(raw: bytes) -> str:
    text = " ".join(raw.decode("utf-8", "replace").split())
    return f": {_clip(text)}" if text else ""


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text[:_MESSAGE_CHARS] + ("..." if len(text) > _MESSAGE_CHARS else "")
