"""Streaming speech-to-text: audio sent at real-time pace over one session, every
message logged on one monotonic clock, and the timings a dictating user feels worked
out from that log (``docs/streaming.md``).

- :mod:`.timeline` and :mod:`.metrics`: the log and its figures (pure);
- :mod:`.marks`: where the speech is in an item's audio;
- :mod:`.session`: the one WebSocket session engine (pacing clock, message log);
- one module per provider protocol (:mod:`.deepgram`, :mod:`.assemblyai`,
  :mod:`.openai`, :mod:`.speechmatics`, :mod:`.soniox`) and :mod:`.adapter`, which
  makes them adapter kinds;
- :mod:`.summary`: a product's streaming table (p50/p90/p95, paired accuracy loss).

Nothing here is imported until a streaming product or report needs it.
"""

#: The streaming adapter kinds (``adapters/streaming/``), registered in
#: :data:`pytest_dictbench.adapters.BUILTIN_ADAPTERS`.
STREAMING_KINDS = ("deepgram-live", "assemblyai-streaming", "openai-realtime",
                   "speechmatics-rt", "soniox-rt")
