"""The streaming provider kinds as adapter kinds: settings, key, audio, one session per
item on the session engine, the figures of :mod:`.metrics` in the capture record.

Settings as for the batch provider kinds (``base_url``, ``api_key_env``, ``model``,
``language``, ``options`` checked against the protocol's, ``concurrency``,
``[pricing]``), plus ``chunk_ms`` (default 100), ``realtime`` (default true; false sends
as fast as the socket takes it: an accuracy-only run, marked not comparable for
latency), ``pacing_bound_ms`` (default 100) and ``final_timeout_s`` (default 30).

The record of a capture: the final text (finals only), ``streaming`` (the figures and
what the session saw) and ``provider`` (facts, cost). An item whose pacing broke its
bound is ``invalid``: its text is not scored and its timings stay in the record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

from ...errors import CaptureError
from ...model import Product, Suite
from ...redact import scrub
from ..base import AdapterOptions
from ..live import CaptureRequest
from ..providers.concurrent import DEFAULT_CONCURRENCY, Ahead, ProviderAdapter, timed
from ..providers.keys import read_key, refuse_inline_key
from ..providers.prices import price_for
from ..settings import Settings
from .audio import stream_audio
from .metrics import DEFAULT_PACING_BOUND_MS, streaming_metrics
from .protocol import Config, Protocol
from .session import StreamError, run_session
from .timeline import StreamLog, final_text

__all__ = ["STREAMING_SETTINGS", "StreamingTranscriber", "capture_record",
           "streaming_adapter"]

STREAMING_SETTINGS = frozenset({"base_url", "api_key_env", "language", "options",
                                "concurrency", "chunk_ms", "realtime", "pacing_bound_ms",
                                "final_timeout_s", "batch_product"})
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def check_ws_url(base_url: str, has_key: bool) -> str | None:
    """Why ``base_url`` cannot be a WebSocket root (``None`` when it can)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        return f"base_url must be a ws(s) URL, got {base_url!r}"
    if parts.query or parts.fragment or "@" in parts.netloc:
        return f"base_url must be the API root without query or user info, got {base_url!r}"
    if has_key and parts.scheme == "ws" and parts.hostname not in _LOOPBACK:
        return (f"an API key is only sent over wss (or to a loopback address), not to "
                f"{parts.hostname!r}")
    return None


def capture_record(log: StreamLog, figures: dict[str, Any], facts: dict[str, Any]
                   ) -> dict[str, Any]:
    """The transcript record of a finished session: ``invalid`` when its pacing broke
    the bound, else its final text."""
    streaming = {**figures, "facts": facts,
                 **({"malformed": log.malformed[:5], "malformed_count": len(log.malformed)}
                    if log.malformed else {})}
    pace = figures["pacing"]
    if log.realtime and not pace["valid"]:
        return {"status": "invalid", "text": final_text(log.updates),
                "error": (f"pacing: a chunk went out {pace['max_ms']:g} ms late (bound "
                          f"{pace['bound_ms']:g} ms); its timings are not comparable"),
                "streaming": streaming}
    return {"text": final_text(log.updates), "streaming": streaming}


class StreamingTranscriber:
    """A :class:`~pytest_dictbench.adapters.live.Transcriber` for one streaming product."""

    decodes_audio = True

    def __init__(self, protocol: Protocol, settings: Settings, key: str | None) -> None:
        self.protocol, self.settings, self._key = protocol, settings, key
        self.model = settings.get("model", str, protocol.default_model)
        self.language: str | None = settings.get("language", str, None)
        self.options: dict[str, Any] = dict(settings.get("options", dict, {}))
        unknown = sorted(set(self.options) - protocol.options)
        if unknown:
            raise settings.error(
                f"[settings.options] has unknown option(s) {', '.join(unknown)} for "
                f"{protocol.title} (known: {', '.join(sorted(protocol.options))})")
        self.base_url = settings.get("base_url", str, protocol.default_base_url).rstrip("/")
        problem = check_ws_url(self.base_url, key is not None or "api_key_env" in settings.values)
        if problem:
            raise settings.error(f"[settings] {problem}")
        self.chunk_s = settings.positive("chunk_ms", 100.0) / 1000.0
        self.realtime: bool = settings.get("realtime", bool, True)
        self.bound_ms = settings.positive("pacing_bound_ms", DEFAULT_PACING_BOUND_MS)
        self.final_timeout_s = settings.positive("final_timeout_s", 30.0)
        self.batch_product: str | None = settings.get("batch_product", str, None)
        concurrency: int = settings.get("concurrency", int, DEFAULT_CONCURRENCY)
        if concurrency < 1:
            raise settings.error(f"[settings] concurrency must be at least 1, got {concurrency}")
        self.ahead = Ahead(concurrency)
        self.price = price_for(protocol.kind, str(self.model), settings.product.pricing)

    def describe(self) -> Mapping[str, Any]:
        return {"engine": self.protocol.kind, "engine_version": None, "model": self.model}

    def transcribe(self, request: CaptureRequest) -> Mapping[str, Any]:
        started = None if request.warmup else self.ahead.take(request)
        return started.result() if started is not None else timed(self.capture, request)

    def capture(self, request: CaptureRequest) -> Mapping[str, Any]:
        """One streaming session for ``request`` (see module doc)."""
        if request.warmup:
            return {"status": "not_tested", "error": "warm-up not sent to a streaming provider"}
        protocol = self.protocol
        config = Config(self.model, self.language or request.language,
                        protocol.sample_rate, self.options)
        audio = stream_audio(request.audio_path(), protocol.sample_rate, self.chunk_s)
        query = protocol.query(config)
        url = f"{self.base_url}{protocol.path}" + (f"?{urlencode(query)}" if query else "")
        headers = dict(protocol.headers)
        if self._key:
            name, template = protocol.auth
            headers[name] = template.format(key=self._key)
        chunks = [protocol.audio(c) for c in audio.chunks]
        try:
            log = run_session(url, headers, protocol.reader(config), protocol.opening(config),
                              chunks, protocol.closing(config, len(chunks)),
                              chunk_s=self.chunk_s, realtime=self.realtime,
                              wait_ready=protocol.wait_ready,
                              final_timeout_s=self.final_timeout_s)
        except StreamError as exc:
            raise CaptureError(f"{protocol.title}: {exc}") from None
        figures = streaming_metrics(log, audio.marks, self.bound_ms)
        facts: dict[str, Any] = {k: scrub(v) if isinstance(v, str) else v
                                 for k, v in log.facts.items()}
        record = capture_record(log, figures, facts)
        if self.batch_product:
            record["streaming"]["batch_product"] = self.batch_product
        if self.price is not None:
            cost = self.price.cost(audio.duration_s, {})
            record["provider"] = {"billed_seconds": round(audio.duration_s, 6),
                                  "cost_usd": None if cost is None else str(cost),
                                  "price": self.price.reference()}
        return record


def streaming_adapter(protocol: Protocol) -> Callable[[Product, Suite, AdapterOptions],
                                                      ProviderAdapter]:
    """The adapter factory of ``protocol``: settings checked at collection, the key read
    from ``api_key_env`` when the first item runs."""

    def factory(product: Product, suite: Suite, options: AdapterOptions) -> ProviderAdapter:
        refuse_inline_key(product)
        settings = Settings(product, STREAMING_SETTINGS)
        key_env: str | None = settings.get("api_key_env", str, None)
        StreamingTranscriber(protocol, settings, None)  # check the settings now

        def make() -> StreamingTranscriber:
            return StreamingTranscriber(protocol, settings, read_key(product, key_env))

        return ProviderAdapter(product, suite, options, make,
                               concurrency=settings.get("concurrency", int, DEFAULT_CONCURRENCY))

    factory.__doc__ = f"Adapter factory for ``adapter = {protocol.kind!r}`` ({protocol.title})."
    return factory
