"""Product adapters: where a product's outputs come from.

``cache`` reads recorded outputs; the live kinds (``command``, ``http``, ``whisper``,
``python``, ``desktop``) capture them on a cache miss and keep them in the same file (see
``docs/adapters.md``); ``pipeline`` rewrites another product's output with language
models (``docs/refine.md``). Every kind but ``cache`` is registered as a
:class:`~pytest_dictbench.deferred.Deferred`: its module loads when a product uses it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ..deferred import Deferred
from .base import Adapter, AdapterFactory, AdapterOptions
from .cache import CacheAdapter
from .streaming import STREAMING_KINDS

__all__ = [
    "BUILTIN_ADAPTERS",
    "PROVIDER_KINDS",
    "STREAMING_KINDS",
    "Adapter",
    "AdapterFactory",
    "AdapterOptions",
    "CaptureRequest",
    "LiveAdapter",
    "Transcriber",
    "builtin_adapters",
]

#: The cloud provider kinds (``adapters/providers/``; a test checks them against it).
PROVIDER_KINDS = ("openai", "deepgram", "gemini", "assemblyai", "elevenlabs", "speechmatics",
                  "azure")


def _deferred(module: str, name: str) -> AdapterFactory:
    return Deferred(f"{__name__}.{module}:{name}")  # type: ignore[return-value]


#: The live adapter kinds dictbench registers itself (``cache`` is registered separately).
BUILTIN_ADAPTERS: dict[str, AdapterFactory] = {
    "command": _deferred("command", "command_adapter"),
    "http": _deferred("http", "http_adapter"),
    "whisper": _deferred("whisper", "whisper_adapter"),
    "python": _deferred("python", "python_adapter"),
    **{kind: Deferred(f"{__name__}.providers:PROVIDER_ADAPTERS", item=kind)  # type: ignore[misc]
       for kind in PROVIDER_KINDS},
    **{kind: Deferred(f"{__name__}.streaming.kinds:STREAMING_ADAPTERS",  # type: ignore[misc]
                      item=kind) for kind in STREAMING_KINDS},
    "whisper-streaming": _deferred("whisper_streaming", "whisper_streaming_adapter"),
    "pipeline": _deferred("pipeline.adapter", "pipeline_adapter"),
    "desktop": _deferred("desktop", "desktop_adapter"),
}


def builtin_adapters() -> dict[str, AdapterFactory]:
    """Every adapter kind dictbench registers itself, ``cache`` first."""
    return {"cache": CacheAdapter, **BUILTIN_ADAPTERS}


def __getattr__(name: str) -> Any:  # the live capture types load with their module
    if name in ("CaptureRequest", "LiveAdapter", "Transcriber"):
        return getattr(import_module(f"{__name__}.live"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
