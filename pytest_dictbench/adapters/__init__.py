"""Product adapters: where a product's outputs come from.

``cache`` reads recorded outputs; the live kinds (``command``, ``http``, ``whisper``,
``python``, ``desktop``) capture them on a cache miss and keep them in the same file (see
``docs/adapters.md``); ``pipeline`` rewrites another product's output with language
models (``docs/refine.md``).
"""

from __future__ import annotations

from .base import Adapter, AdapterFactory, AdapterOptions
from .cache import CacheAdapter
from .command import command_adapter
from .desktop import desktop_adapter
from .http import http_adapter
from .live import CaptureRequest, LiveAdapter, Transcriber
from .pipeline import pipeline_adapter
from .providers import PROVIDER_ADAPTERS
from .python import python_adapter
from .whisper import whisper_adapter

__all__ = [
    "BUILTIN_ADAPTERS",
    "Adapter",
    "AdapterFactory",
    "AdapterOptions",
    "CaptureRequest",
    "LiveAdapter",
    "Transcriber",
    "builtin_adapters",
]

#: The live adapter kinds dictbench registers itself (``cache`` is registered separately).
BUILTIN_ADAPTERS: dict[str, AdapterFactory] = {
    "command": command_adapter,
    "http": http_adapter,
    "whisper": whisper_adapter,
    "python": python_adapter,
    **PROVIDER_ADAPTERS,  # the cloud providers (adapters/providers/)
    "pipeline": pipeline_adapter,
    "desktop": desktop_adapter,
}


def builtin_adapters() -> dict[str, AdapterFactory]:
    """Every adapter kind dictbench registers itself, ``cache`` first."""
    return {"cache": CacheAdapter, **BUILTIN_ADAPTERS}
