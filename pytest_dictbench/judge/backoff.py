"""Our backoff for API calls (judges, batches, drafting): which failures are worth
another attempt, how long to wait (:class:`~.records.RetryPolicy`, or the server's
``retry-after``), and when to give up. The SDK's own retries are off."""

from __future__ import annotations

import random
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .records import RetryPolicy
from .transport import TransportError

__all__ = ["GaveUp", "classify", "retry_after_seconds", "with_backoff"]

#: HTTP statuses worth retrying besides 429 and 5xx: request timeout and conflict.
_RETRY_STATUSES = frozenset({408, 409, 429})


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """``retry-after-ms`` or ``retry-after`` (seconds) as seconds; None if absent or a date."""
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) / scale
        except ValueError:
            continue
    return None


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
        return retryable, retry_after_seconds(exc.headers) if retryable else None
    return False, None


def _api_errors() -> tuple[type[BaseException], ...]:
    """The errors an API call can raise: ours, and the SDK's once it is imported."""
    sdk = _loaded_sdk()
    return (TransportError,) if sdk is None else (TransportError, sdk.APIError)


class GaveUp(Exception):
    """An API call failed for good: its last error, after ``attempts`` attempts."""

    def __init__(self, error: BaseException, attempts: int) -> None:
        super().__init__(str(error))
        self.error, self.attempts = error, attempts


async def with_backoff(call: Callable[[], Awaitable[Any]], policy: RetryPolicy,
                       rng: random.Random, sleep: Callable[[float], Awaitable[Any]]) -> Any:
    """``await call()``, again after a retryable API error (:func:`classify`) with the
    policy's delay, up to ``policy.max_attempts``; then :class:`GaveUp`. Other errors
    propagate at once."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await call()
        except _api_errors() as exc:
            retryable, retry_after = classify(exc)
            if not retryable or attempt >= policy.max_attempts:
                raise GaveUp(exc, attempt) from None
            await sleep(policy.delay(attempt, rng, retry_after))
