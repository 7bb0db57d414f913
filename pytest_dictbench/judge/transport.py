"""What every judge client shares: the raw answer, transport errors, key-URL check.

Kept apart from the clients so that each client module imports only this one.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from ..errors import JudgeError
from ..redact import key_url_problem
from .records import TokenUsage

__all__ = ["RawAnswer", "TransportError", "check_key_url", "error_body", "safe_url", "shorten",
           "url_problem"]


def shorten(text: str, keep: int = 120) -> str:
    """One line, both ends kept: jsonschema and API messages can quote whole values.

    Redact before shortening, so that no fragment of a secret survives the cut.
    """
    text = " ".join(text.split())
    return text if len(text) <= 2 * keep else f"{text[:keep]} ... {text[-keep:]}"


class RawAnswer:
    """What came back from one successful HTTP call: the tool input, or why there is none."""

    __slots__ = ("problem", "tool_input", "usage")

    def __init__(self, tool_input: Any = None, usage: TokenUsage | None = None, problem: str = ""):
        self.tool_input = tool_input
        self.usage = usage or TokenUsage()
        self.problem = problem


_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def url_problem(url: str) -> str | None:
    """Why ``url`` may not be a judge endpoint: credentials in it (user-info, a query, a
    fragment) would be copied into error texts and reports. ``None`` when it is fine."""
    problem = key_url_problem(url)
    if problem:
        return problem
    parts = urllib.parse.urlsplit(url)
    if "@" in parts.netloc:
        return "has user-info (user:password@); put the key in its api_key_env variable"
    if parts.query or url.rstrip().endswith("?"):
        return "has a query (?...); a key in the URL would be written into reports"
    if parts.fragment or "#" in url:
        return "has a fragment (#...)"
    return None


def safe_url(url: str) -> str:
    """``url`` without user-info, query and fragment, for messages."""
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


def check_key_url(judge: str, url: str | None) -> None:
    """Refuse to send a key over plain http to anything but a loopback address, or to a
    URL holding credentials (:func:`url_problem`)."""
    if url is None:
        return
    problem = url_problem(url)
    if problem:
        raise JudgeError(f"judge {judge!r}: base URL {safe_url(url)!r} {problem}")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "https" and not (parts.scheme == "http" and parts.hostname in _LOOPBACK):
        raise JudgeError(f"judge {judge!r}: the key is only sent over https (or to a "
                         f"loopback address), not to {safe_url(url)!r}")


def error_body(data: Any, judge: str) -> TransportError | None:
    """An API error sent with HTTP 200 (``{"type": "error", "error": {...}}`` or
    ``{"error": {...}}``) as the :class:`TransportError` its kind would have had: an
    overload or server error is retried with the normal backoff, the rest is not."""
    if not isinstance(data, Mapping) or "error" not in data or data.get("choices") \
            or data.get("content"):
        return None
    error = data["error"]
    kind = str(error.get("type", "")) if isinstance(error, Mapping) else ""
    message = str(error.get("message", error)) if isinstance(error, Mapping) else str(error)
    text = f"{kind} {message}".lower()
    status = 529 if "overload" in text else 500 if ("server" in text or kind == "api_error") \
        else 400
    return TransportError(f"judge {judge!r}: the API answered HTTP 200 with an error: "
                          f"{shorten(f'{kind}: {message}'.strip(': '))}", status_code=status)


class TransportError(Exception):
    """An HTTP failure of a client that is not the anthropic SDK (the runner retries it
    like the SDK's errors: 408/409/429/5xx and connection failures)."""

    def __init__(self, message: str, *, status_code: int | None = None,
                 headers: Mapping[str, str] | None = None, retry_after: float | None = None,
                 retryable: bool | None = None):
        super().__init__(message)
        self.status_code = status_code
        self.headers = dict(headers or {})
        #: A wait the error body asks for (Google's ``RetryInfo``), when headers give none.
        self.retry_after = retry_after
        #: The body's word on retrying (``False``: a quota that needs the user to act).
        self.retryable = retryable
