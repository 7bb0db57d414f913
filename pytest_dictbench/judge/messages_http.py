"""A lean ``POST /v1/messages`` over httpx2, for live judge calls.

The anthropic SDK spends about 2 ms of CPU on each call besides the HTTP work (building
request options, tracing, typed responses). A run judges from one event loop, so at
concurrency 16 that CPU queues up in front of every answer. A live judge call needs one
request and the raw body, so it is sent here: one pooled ``httpx2.AsyncClient`` per judge
(httpx2 is the maintained httpx that the SDK itself runs on), the headers the SDK sends
(``authorization: Bearer``, ``anthropic-version``), no redirects followed (the key must
not go elsewhere), no retries. Plain http is allowed only to loopback
(:func:`~.transport.check_key_url`); such a client builds no TLS context and takes no
proxy from the environment, which would otherwise see the key.

Failures raise :class:`~.transport.TransportError` subclasses named as the SDK names its
errors (``RateLimitError`` for 429, ``APITimeoutError`` for no answer in time, ...), so
that outcomes, reports and the backoff read the same whichever client made the call.
Message Batches and token counts still go through the SDK (see ``client.py``).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import httpx2 as httpx

from .transport import TransportError, safe_url, shorten

__all__ = ["ANTHROPIC_VERSION", "DEFAULT_BASE_URL", "MessagesEndpoint", "api_error"]

#: The Messages API version sent with each call (the SDK 2.x default).
ANTHROPIC_VERSION = "2026-10-21"
DEFAULT_BASE_URL = "https://api.anthropic.com"

#: The SDK's error names by HTTP status; other 5xx are ``InternalServerError``, other
#: statuses ``APIStatusError``.
_STATUS_NAMES = {
    400: "BadRequestError", 401: "AuthenticationError", 402: "PaymentRequiredError",
    403: "PermissionDeniedError", 404: "NotFoundError", 408: "RequestTimeoutError",
    409: "ConflictError", 412: "PreconditionFailedError", 413: "RequestTooLargeError",
    422: "UnprocessableEntityError", 429: "RateLimitError", 501: "HTTPNotImplementedError",
    503: "ServiceUnavailableError", 504: "GatewayTimeoutError", 529: "OverloadedError",
}


@cache
def _error_class(name: str) -> type[TransportError]:
    return type(name, (TransportError,), {"__module__": __name__, "__doc__":
                                          f"A Messages API failure the SDK calls {name}."})


def api_error(name: str, message: str, status: int | None = None,
              headers: dict[str, str] | None = None) -> TransportError:
    """A :class:`TransportError` whose class is called ``name``."""
    return _error_class(name)(message, status_code=status, headers=headers)


def _status_name(status: int) -> str:
    return _STATUS_NAMES.get(status) or ("InternalServerError" if status >= 500
                                         else "APIStatusError")


class MessagesEndpoint:
    """One judge's pooled connection to ``{base_url}/v1/messages``."""

    def __init__(self, *, api_key: str, base_url: str | None = None, timeout: float = 60.0):
        self.url = (base_url or DEFAULT_BASE_URL).rstrip("/") + "/v1/messages"
        tls = self.url.startswith("https:")
        self._http = httpx.AsyncClient(
            timeout=timeout, follow_redirects=False, verify=tls, trust_env=tls,
            headers={"accept": "application/json", "content-type": "application/json",
                     "authorization": f"Bearer {api_key}",
                     "anthropic-version": ANTHROPIC_VERSION,
                     "user-agent": "pytest-dictbench"})

    def __repr__(self) -> str:
        return f"MessagesEndpoint(url={safe_url(self.url)!r})"

    async def create(self, body: dict[str, Any]) -> str:
        """The text of a 2xx answer to ``body``; a failure raises (see the module)."""
        where = safe_url(self.url)
        try:
            response = await self._http.post(
                self.url, content=json.dumps(body, ensure_ascii=False).encode("utf-8"))
        except httpx.TimeoutException:
            raise api_error("APITimeoutError", f"no answer from {where} in time") from None
        except httpx.HTTPError as exc:  # refused, reset, cut short, bad URL
            raise api_error("APIConnectionError", f"connection to {where} failed: "
                            f"{type(exc).__name__}: {exc}") from None
        if response.is_success:
            return response.text
        status = response.status_code
        raise api_error(_status_name(status),
                        f"HTTP {status} from {where}: {shorten(response.text[:600])}",
                        status, {k.lower(): v for k, v in response.headers.items()})

    async def aclose(self) -> None:
        await self._http.aclose()
