"""``http``: send each item's audio to a speech-to-text web service.

Two request shapes:

* ``mode = "openai"`` (default): ``POST {base_url}/v1/audio/transcriptions`` as
  ``multipart/form-data`` with ``file``, ``model``, ``language`` and optional ``prompt``;
  the answer is ``{"text": ...}`` (the OpenAI shape, also spoken by many local servers).
* ``mode = "json"``: ``POST {url}`` with a JSON object holding the audio as base64 under
  ``audio_field`` plus the fixed ``fields``; the text is read from ``text_field`` (a
  dotted path such as ``result.text``), or with ``answer = "record"`` the object found
  there is a transcript record (``text``, ``status``, ``error``, ``capture_complete``,
  ``edit_actions``; see :mod:`.live`), so a service can answer ``unsupported``.

An API key is read from the environment variable *named* by ``api_key_env`` and sent as
``Authorization: Bearer``. It is never written anywhere: error messages are scrubbed of
it, and redirects are refused so that it cannot follow one to another host.

``timeout_s`` is a deadline for the whole capture (connect, send, the complete answer):
a service that trickles its answer a byte at a time cannot hold an item past it.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import secrets
import socket
import threading
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ..errors import CaptureError, ProductError
from ..model import Product, Suite
from ..redact import REDACTED, key_problem, key_url_problem, public_url, scrub_quote
from .base import AdapterOptions
from .live import CaptureRequest, LiveAdapter
from .settings import Settings

__all__ = ["HttpTranscriber", "encode_multipart", "http_adapter"]

#: Seconds to wait for a response (``timeout_s``).
DEFAULT_TIMEOUT_S = 120.0
#: Characters of an error response body quoted in the error message.
_BODY_CHARS = 200
_AUDIO_TYPES = {".wav": "audio/wav", ".flac": "audio/flac", ".mp3": "audio/mpeg",
                ".ogg": "audio/ogg", ".m4a": "audio/mp4", ".webm": "audio/webm"}
_KNOWN = {"mode", "base_url", "url", "model", "language", "prompt", "audio_field",
          "text_field", "fields", "locale_field", "api_key_env", "timeout_s", "answer"}


def encode_multipart(fields: Mapping[str, str] | Sequence[tuple[str, str]], file_field: str,
                     filename: str, content: bytes, content_type: str) -> tuple[bytes, str]:
    """A ``multipart/form-data`` body and its ``Content-Type`` header value; ``fields``
    as a mapping, or as (name, value) pairs when a name repeats (a list field)."""
    boundary = "dictbench-" + secrets.token_hex(16)
    while boundary.encode() in content:  # astronomically unlikely, but cheap to rule out
        boundary = "dictbench-" + secrets.token_hex(16)
    parts = []
    for name, value in (fields.items() if isinstance(fields, Mapping) else fields):
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{_quote(name)}"'
                     f"\r\n\r\n{value}\r\n".encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{_quote(file_field)}";'
                 f' filename="{_quote(filename)}"\r\nContent-Type: {content_type}\r\n\r\n'
                 .encode() + content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


#: Hosts a key may be sent to over plain http (the machine itself).
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


class HttpTranscriber:
    """Posts one request per item (see module doc)."""

    decodes_audio = False

    def __init__(self, settings: Settings, key: str | None, describe: Mapping[str, Any]
                 ) -> None:
        self.mode: str = settings.get("mode", str, "openai")
        self.timeout_s = settings.positive("timeout_s", DEFAULT_TIMEOUT_S)
        self.language: str | None = settings.get("language", str, None)
        if self.mode == "openai":
            base = settings.get("base_url", str).rstrip("/")
            self.url = base + ("/audio/transcriptions" if base.endswith("/v1")
                               else "/v1/audio/transcriptions")
            self.model: str = settings.get("model", str)
            self.prompt: str | None = settings.get("prompt", str, None)
            if "answer" in settings.values:
                raise settings.error("[settings] answer applies to mode = 'json' only")
        elif self.mode == "json":
            self.url = settings.get("url", str)
            self.audio_field: str = settings.get("audio_field", str, "audio")
            self.text_field: str = settings.get("text_field", str, "text")
            self.fields: Mapping[str, Any] = settings.get("fields", dict, {})
            self.locale_field: str | None = settings.get("locale_field", str, None)
            self.answer: str = settings.get("answer", str, "text")
            if self.answer not in ("text", "record"):
                raise settings.error(f"[settings] answer must be 'text' or 'record', got "
                                     f"{self.answer!r}")
        else:
            raise settings.error(f"[settings] mode must be 'openai' or 'json', got {self.mode!r}")
        #: The URL as messages quote it (user info and query values redacted).
        self.shown_url = public_url(self.url)
        problem = key_url_problem(self.url)
        if problem:
            raise settings.error(f"[settings] service URL {self.shown_url!r}: {problem}")
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https"):
            raise settings.error("[settings] the service URL must be http(s), got "
                                 f"{self.shown_url!r}")
        if key and parts.scheme == "http" and parts.hostname not in _LOOPBACK:
            raise settings.error("[settings] an API key is only sent over https (or to a "
                                 f"loopback address), not to {parts.hostname!r}")
        self._key = key
        self._describe = dict(describe)

    def describe(self) -> Mapping[str, Any]:
        return self._describe

    def transcribe(self, request: CaptureRequest) -> str | Mapping[str, Any]:
        audio = request.audio_path()
        try:
            content = audio.read_bytes()
        except OSError as exc:
            raise CaptureError(f"cannot read audio: {exc.strerror}", path=audio) from None
        body, content_type = (self._openai_body(request, content) if self.mode == "openai"
                              else self._json_body(request, content))
        answer = self._post(body, content_type)
        field = "text" if self.mode == "openai" else self.text_field
        text = _field(answer, field)
        if self.mode == "json" and self.answer == "record":
            if not isinstance(text, Mapping):
                raise CaptureError(f"response from {self.shown_url} has no transcript record at "
                                   f"{field!r}")
            return text
        if not isinstance(text, str):
            raise CaptureError(f"response from {self.shown_url} has no text at {field!r}")
        return text.strip()

    def _openai_body(self, request: CaptureRequest, content: bytes) -> tuple[bytes, str]:
        fields = {"model": self.model, "response_format": "json"}
        language = request.language if self.language is None else self.language
        if language:
            fields["language"] = language
        if self.prompt:
            fields["prompt"] = request.fill(self.prompt)  # "{context}" from the case
        audio = request.audio_path()
        kind = _AUDIO_TYPES.get(audio.suffix.lower(), "application/octet-stream")
        return encode_multipart(fields, "file", audio.name, content, kind)

    def _json_body(self, request: CaptureRequest, content: bytes) -> tuple[bytes, str]:
        payload = dict(self.fields)
        payload[self.audio_field] = base64.b64encode(content).decode("ascii")
        if self.locale_field:
            payload[self.locale_field] = request.locale
        return json.dumps(payload).encode("utf-8"), "application/json"

    def _post(self, body: bytes, content_type: str) -> Any:
        headers = {"Content-Type": content_type, "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        parts = urlsplit(self.url)
        kind = http.client.HTTPSConnection if parts.scheme == "https" else \
            http.client.HTTPConnection
        connection = kind(parts.hostname or "", parts.port, timeout=self.timeout_s)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        expired = threading.Event()
        sockets: list[socket.socket] = []  # the connection drops its socket on HTTP/1.0
        watchdog = threading.Timer(self.timeout_s, _abort, (sockets, expired))
        watchdog.daemon = True
        watchdog.start()
        late = f"no response from {self.shown_url} within {self.timeout_s:g} s"
        try:
            try:
                connection.connect()
                sockets.append(connection.sock)
                if expired.is_set():
                    raise TimeoutError
            except OSError as exc:
                if expired.is_set() or isinstance(exc, TimeoutError):
                    raise CaptureError(late) from None
                raise CaptureError(self._scrub(f"cannot reach {self.shown_url}: {exc}")) from None
            try:
                connection.request("POST", target, body=body, headers=headers)
                response = connection.getresponse()
                raw = response.read()
            except (OSError, http.client.HTTPException) as exc:
                if expired.is_set() or isinstance(exc, TimeoutError):
                    raise CaptureError(late) from None
                raise CaptureError(self._scrub(f"connection to {self.shown_url} failed: {exc}")
                                   ) from None
        finally:
            watchdog.cancel()
            connection.close()
        if expired.is_set():
            raise CaptureError(late)
        if response.status >= 300:  # redirects are never followed (the key stays here)
            raise CaptureError(self._scrub(f"HTTP {response.status} from {self.shown_url}"
                                           f"{_snippet(raw)}"))
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise CaptureError(self._scrub(f"response from {self.shown_url} is not JSON"
                                           f"{_snippet(raw)}")) from None

    def _scrub(self, message: str) -> str:
        return scrub_quote(message.replace(self._key, REDACTED) if self._key else message)


def http_adapter(product: Product, suite: Suite, options: AdapterOptions) -> LiveAdapter:
    """Adapter factory for ``adapter = "http"``."""
    if "api_key" in product.settings:
        raise ProductError("[settings] api_key is not accepted: put the key in an environment "
                           "variable and name that variable in api_key_env", path=product.path)
    settings = Settings(product, _KNOWN)
    key_env: str | None = settings.get("api_key_env", str, None)
    describe = {"engine": settings.get("engine", str, "http"),
                "engine_version": settings.get("engine_version", str, None),
                "model": settings.get("model", str, None)}
    HttpTranscriber(settings, None, describe)  # validate the settings at collection time

    def make() -> HttpTranscriber:
        key = None
        if key_env:
            key = os.environ.get(key_env)
            if not key:
                raise CaptureError(f"environment variable {key_env} (api_key_env) is not set")
            problem = key_problem(key)
            if problem is not None:  # it could not be scrubbed from what comes back
                raise CaptureError(f"environment variable {key_env} (api_key_env) holds "
                                   f"{problem}; it is not sent")
        return HttpTranscriber(settings, key, describe)

    return LiveAdapter(product, suite, options, make)


def _abort(sockets: list[socket.socket], expired: threading.Event) -> None:
    """The capture's deadline has passed: end the connection so that no read can block."""
    expired.set()
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _field(answer: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(answer, Mapping) or part not in answer:
            return None
        answer = answer[part]
    return answer


def _snippet(raw: bytes) -> str:
    text = " ".join(raw.decode("utf-8", "replace").split())
    if not text:
        return ""
    return f": {text[:_BODY_CHARS]}{'...' if len(text) > _BODY_CHARS else ''}"


def _quote(value: str) -> str:
    """A value for a quoted header parameter (as browsers encode form file names)."""
    return value.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace(
        "\n", "%0A")
