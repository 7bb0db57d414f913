"""The streaming provider kinds, by name, and their adapter factories."""

from __future__ import annotations

from ..base import AdapterFactory
from .adapter import streaming_adapter
from .assemblyai import ASSEMBLYAI_STREAMING
from .deepgram import DEEPGRAM_LIVE
from .openai import OPENAI_REALTIME
from .protocol import Protocol
from .soniox import SONIOX_RT
from .speechmatics import SPEECHMATICS_RT

__all__ = ["PROTOCOLS", "STREAMING_ADAPTERS"]

PROTOCOLS: dict[str, Protocol] = {p.kind: p for p in (
    DEEPGRAM_LIVE, ASSEMBLYAI_STREAMING, OPENAI_REALTIME, SPEECHMATICS_RT, SONIOX_RT)}
STREAMING_ADAPTERS: dict[str, AdapterFactory] = {k: streaming_adapter(p)
                                                  for k, p in PROTOCOLS.items()}
