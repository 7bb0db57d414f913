"""Our backoff for API calls (judges, batches, drafting): which failures are worth
another attempt, how long to wait (:class:`~.records.RetryPolicy`, or the server's
``retry-after``), and when to give up. The SDK's own retries are off."""

from __future__ import annotations

import email.utils
import math
import random
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .records import RetryPolicy
from .transport import TransportError

__all__ = ["GaveUp", "classify", "retry_after_seconds", "should_retry_header", "with_backoff"]

#: HTTP statuses worth retrying besides 429 and 5xx: request timeout and conflict.
_RETRY_STATUSES = frozenset({408, 409, 429})


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """``retry-after-ms``, or ``retry-after`` in seconds or as an HTTP date (RFC 9110
    10.2.3), as seconds from now; None if absent, unreadable, negative or not finite."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = lower.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            seconds = _date_seconds(value) if name == "retry-after" else None
        if seconds is not None and math.isfinite(seconds) and seconds >= 0:
            return seconds
    return None


def _date_seconds(value: str) -> float | None:
    """Seconds from now to an HTTP date (0 for a date in the past), None if not a date."""
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def should_retry_header(headers: Mapping[str, str] | None) -> bool | None:
    """OpenAI's ``x-should-retry: true|false`` (its SDK obeys it before the status)."""
    value = {k.lower(): v for k, v in (headers or {}).items()}.get("x-should-retry")
    return {"true": True, "false": False}.get(str(value).strip().lower())


def _loaded_sdk() -> Any | None:
    """The anthropic SDK if something imported it, else None. An SDK error exists only
    once the SDK is imported, and a run that never judges must not pay its import
    (1.5 to 3 s) when the plugin loads."""
    return sys.modules.get("anthropic")


def classify(exc: BaseException) -> tuple[bool, float | None]:
    """Whether an API error is worth another attempt, and the server's requested wait."""
    sdk = _loaded_sdk()
    if sdk is not None and isinstance(exc, sdk.APIStatusError):
        status = exc.status_code
        retryable = status in _RETRY_STATUSES or status >= 500
        return retryable, retry_after_seconds(exc.response.headers) if retryable else None
    if sdk is not None and isinstance(exc, sdk.APIConnectionError):  # and APITimeoutError
        return True, None
    if isinstance(exc, TransportError):
        if exc.status_code is None:  # no answer at all: connection failed or timed out
            return True, None
        retryable = exc.status_code in _RETRY_STATUSES or exc.status_code >= 500
        said = should_retry_header(exc.headers)
        if said is not None:
            retryable = said
        if exc.retryable is not None:
            retryable = exc.retryable
        if not retryable:
            return False, None
        wait = retry_after_seconds(exc.headers)
        return True, exc.retry_after if wait is None else wait
    return False, None


def _status(exc: BaseException) -> int | None:
    return getattr(exc, "status_code", None)


def _api_errors() -> tuple[type[BaseException], ...]:
    """The errors an API call can raise: ours, and the SDK's once it is imported."""
    sdk = _loaded_sdk()
    return (TransportError,) if sdk is None else (TransportError, sdk.APIError)


class GaveUp(Exception):
    """An API call failed for good: its last error, after ``attempts`` attempts;
    ``asked_wait``: the server asked for a wait longer than the policy allows."""

    def __init__(self, error: BaseException, attempts: int,
                 asked_wait: float | None = None) -> None:
        super().__init__(str(error))
        self.error, self.attempts, self.asked_wait = error, attempts, asked_wait


async def with_backoff(call: Callable[[], Awaitable[Any]], policy: RetryPolicy,
                       rng: random.Random, sleep: Callable[[float], Awaitable[Any]]) -> Any:
    """``await call()``, again after a retryable API error (:func:`classify`) with the
    policy's delay, up to ``policy.max_attempts`` (``max_rate_limited_attempts`` for a
    429); then :class:`GaveUp`, also when the server asks for a longer wait than
    ``policy.max_retry_after`` (never retried before the asked time). Other errors
    propagate at once."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await call()
        except _api_errors() as exc:
            retryable, retry_after = classify(exc)
            limit = (policy.max_rate_limited_attempts or policy.max_attempts) \
                if _status(exc) == 429 else policy.max_attempts
            if not retryable or attempt >= limit:
                raise GaveUp(exc, attempt) from None
            if retry_after is not None and retry_after > policy.max_retry_after:
                raise GaveUp(exc, attempt, asked_wait=retry_after) from None
            await sleep(policy.delay(attempt, rng, retry_after))
