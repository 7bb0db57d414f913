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
import atexit
import random
import threading
import time
from collections.abc import Mapping
from importlib import metadata
from typing import Any
from urllib.parse import urlsplit

from ...errors import CaptureError, ProductError
from ...jsonl import DuplicateKeyError, loads_strict
from ...judge.records import RetryPolicy
from ...judge.transport import TransportError
from ...redact import REDACTED, key_url_problem, public_url, register_secret, scrub_quote
from .error_body import hints as _hints
from .error_body import message as _message
from .error_body import snippet as _snippet

__all__ = ["LOOPBACK", "MAX_ANSWER_BYTES", "ProviderClient", "Reply", "Session", "TooLate",
           "check_base_url", "import_httpx"]

#: Hosts a key may be sent to over plain http (the machine itself, e.g. tests).
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
#: Largest answer body read, in bytes (a transcript is far smaller).
MAX_ANSWER_BYTES = 32 * 1024 * 1024
def _version() -> str:
    try:
        return metadata.version("pytest-dictbench")
    except metadata.PackageNotFoundError:
        return "unknown"


#: The project's backoff as a capture uses it: a 429 is retried for as long as the
#: capture's deadline allows (PV12), and a ``Retry-After: 0`` waits the first delay's
#: least (PV7).
PROVIDER_POLICY = RetryPolicy(max_rate_limited_attempts=1_000_000, min_retry_after=0.5)
#: The User-Agent of every provider request, so a provider can tell benchmark traffic.
USER_AGENT = f"pytest-dictbench/{_version()}"


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
        self.policy = policy or PROVIDER_POLICY
        self._key = key
        #: Until when (monotonic) every request of this product holds off: a 429 with a
        #: wait holds all the requests in flight, not only the one that got it.
        self._hold_until = 0.0
        self._hold_lock = threading.Condition()
        #: After a hold, one request goes first (the probe); the others wait for its
        #: answer, so a server that just rate-limited does not get them all at once.
        self._need_probe = False
        self._probing = False
        header, template = auth
        self._headers = {header: template.format(key=key)} if key else {}
        from ...judge import backoff  # imports anthropic: only once a provider is configured

        #: The project's one backoff (imported before any deadline starts running).
        self.backoff = (backoff.GaveUp, backoff.with_backoff)
        self.retry_after = backoff.retry_after_seconds
        self._httpx = httpx = import_httpx()
        self._http = httpx.Client(follow_redirects=False, trust_env=False,
                                  headers={"Accept": "application/json",
                                           "User-Agent": USER_AGENT})

    def session(self, seed: str, timeout_s: float | None = None) -> Session:
        """A capture's requests, sharing one deadline (``timeout_s``, by default the
        product's); ``seed`` fixes the retry jitter."""
        seconds = self.timeout_s if timeout_s is None else timeout_s
        return Session(self, time.monotonic() + seconds, random.Random(seed))

    def hold(self, seconds: float) -> None:
        """Hold every request for ``seconds`` from now (a rate limit was hit); the first
        request after the hold goes alone (:meth:`admit`)."""
        with self._hold_lock:
            self._hold_until = max(self._hold_until, time.monotonic() + seconds)
            self._need_probe = True

    def held(self) -> float:
        """Seconds until requests may be sent again (0 when they may now)."""
        with self._hold_lock:
            return max(0.0, self._hold_until - time.monotonic())

    def admit(self, deadline: float) -> bool | None:
        """Wait, until ``deadline`` at most, while another request probes a server that
        rate-limited; ``True``: this request is the probe (call :meth:`probed` with its
        outcome), ``False``: go, ``None``: the deadline came first."""
        with self._hold_lock:
            while self._need_probe and self._probing:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._hold_lock.wait(left)
            if self._need_probe:
                self._probing = True
                return True
            return False

    def probed(self, limited: bool) -> None:
        """The probe's answer came (``limited``: another 429, the next request probes
        again after the new hold); the waiting requests go on."""
        with self._hold_lock:
            self._probing = False
            if not limited:
                self._need_probe = False
            self._hold_lock.notify_all()

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
        #: Attempts that got no answer at all (the request may have been acted on).
        self.unanswered = 0
        #: The wait the server asked for after the last failed attempt, and by which hint.
        self.asked: tuple[float, str] | None = None
        #: What the capture is doing, for the deadline's message ("uploading the
        #: audio", "waiting for job J (status running)"); set by the provider module.
        self.phase = ""

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def late(self) -> TooLate:
        doing = f" ({self.phase})" if self.phase else ""
        return TooLate(f"no complete answer from {self.client.name} within timeout_s = "
                       f"{self.client.timeout_s:g} s{doing}")

    def wait(self, seconds: float) -> None:
        """Sleep ``seconds`` unless that would pass the deadline (then :class:`TooLate`)."""
        if seconds >= self.remaining():
            raise self.late()
        time.sleep(max(0.0, seconds))

    def too_long(self, asked: float, hint: str) -> TooLate:
        """The server asked for a wait the deadline (or the policy) does not leave."""
        left = max(0.0, self.remaining())
        return TooLate(f"{self.client.name} asked to wait {asked:g} s ({hint}), more than "
                       f"the {left:.0f} s left of timeout_s = {self.client.timeout_s:g} s"
                       + (f" ({self.phase})" if self.phase else ""))

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
            if self.asked is not None and seconds >= self.remaining():
                raise self.too_long(*self.asked)  # never retried before the asked time
            self.waits.append(round(seconds, 3))
            if self.last_status == 429:
                self.client.hold(seconds)  # the others in flight wait too
            self.wait(seconds)

        GaveUp, with_backoff = self.client.backoff
        try:
            return _loop().run_until_complete(
                with_backoff(attempt, self.client.policy, self.rng, pause))
        except GaveUp as exc:
            if exc.asked_wait is not None and self.asked is not None:
                raise self.too_long(*self.asked) from None
            tries = f" (after {exc.attempts} attempts)" if exc.attempts > 1 else ""
            raise CaptureError(self.client.scrubbed(str(exc.error)) + tries) from None

    def _once(self, method: str, path: str, params: Any, json: Any, content: bytes | None,
              headers: Mapping[str, str] | None, text: bool) -> Reply:
        client = self.client
        self.last_status, self.asked = None, None
        probe = self._admitted()
        try:
            return self._send(method, path, params, json, content, headers, text)
        finally:
            if probe:
                client.probed(self.last_status == 429)

    def _admitted(self) -> bool:
        """Wait out another request's rate limit, and the probe after it; whether this
        request is the probe."""
        client = self.client
        while True:
            held = client.held()
            if held:  # another request of this product hit a rate limit: wait with it
                self.holds.append(round(held, 3))
                self.wait(held)
            start = time.monotonic()
            probe = client.admit(self.deadline)
            if probe is None:
                raise self.late()
            waited = time.monotonic() - start
            if waited >= 0.001:
                self.holds.append(round(waited, 3))
            if not client.held():
                return probe
            if probe:  # a new hold began meanwhile: wait it out first
                client.probed(True)

    def _send(self, method: str, path: str, params: Any, json: Any, content: bytes | None,
              headers: Mapping[str, str] | None, text: bool) -> Reply:
        client = self.client
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
            self.unanswered += 1
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
            hints = _hints(bytes(raw))
            headers_seen = dict(response.headers)
            wait = client.retry_after(headers_seen)
            if wait is not None:
                self.asked = (wait, "Retry-After")
            elif hints.retry_after is not None:
                self.asked = (hints.retry_after, "RetryInfo.retryDelay")
            raise TransportError(client.scrubbed(f"HTTP {status} from {where}"
                                                 f"{_message(bytes(raw))}"),
                                 status_code=status, headers=headers_seen,
                                 retry_after=hints.retry_after, retryable=hints.retryable)
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
#: Every open loop with its thread. A loop is closed here, once its thread has ended or
#: at exit, never left to the garbage collector, whose ``__del__`` can fail at exit
#: ("Invalid file descriptor: -1").
_ALL_LOOPS: list[tuple[threading.Thread, asyncio.AbstractEventLoop]] = []
_ALL_LOOPS_LOCK = threading.Lock()


def _loop() -> asyncio.AbstractEventLoop:
    """This thread's event loop for the backoff (one per thread, kept: a new loop per
    request costs about a millisecond)."""
    loop = getattr(_LOOPS, "loop", None)
    if loop is None or loop.is_closed():
        loop = _LOOPS.loop = asyncio.new_event_loop()
        with _ALL_LOOPS_LOCK:
            if not _ALL_LOOPS:
                atexit.register(_close_loops, everyone=True)
            _close_loops(everyone=False)
            _ALL_LOOPS.append((threading.current_thread(), loop))
    return loop


def _close_loops(everyone: bool) -> None:
    """Close the loops of ended threads (``everyone``: all, at exit)."""
    kept = []
    for thread, loop in _ALL_LOOPS:
        if (everyone or not thread.is_alive()) and not loop.is_running():
            if not loop.is_closed():
                loop.close()
        else:
            kept.append((thread, loop))
    _ALL_LOOPS[:] = kept
