"""Cloud speech-to-text providers as adapter kinds, one module per provider, all on the
one live adapter engine and one HTTP client (:mod:`.client`). See ``docs/providers.md``."""

from __future__ import annotations

from ..base import AdapterFactory
from .assemblyai import ASSEMBLYAI
from .azure import AZURE
from .base import Provider, provider_adapter
from .deepgram import DEEPGRAM
from .elevenlabs import ELEVENLABS
from .gemini import GEMINI
from .openai import OPENAI
from .speechmatics import SPEECHMATICS

__all__ = ["PROVIDERS", "PROVIDER_ADAPTERS"]

#: Every provider kind, by name.
PROVIDERS: dict[str, Provider] = {p.kind: p for p in (OPENAI, DEEPGRAM, GEMINI, ASSEMBLYAI,
                                                      ELEVENLABS, SPEECHMATICS, AZURE)}
#: Their adapter factories, for :data:`pytest_dictbench.adapters.BUILTIN_ADAPTERS`.
PROVIDER_ADAPTERS: dict[str, AdapterFactory] = {k: provider_adapter(p)
                                                 for k, p in PROVIDERS.items()}
