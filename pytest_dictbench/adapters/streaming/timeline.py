"""What a streaming session leaves behind: the audio chunks sent and the transcript
updates received, each with its time on the session's one monotonic clock. Pure data.

Times are seconds from the session's zero, the instant the first sample of the audio
counts as spoken: chunk ``k`` (0-based) of ``chunk_s`` seconds holds the audio from
``k * chunk_s`` and is due at ``(k + 1) * chunk_s``, the moment a microphone would have
delivered all of it. An audio position ``p`` is thus spoken at time ``p``.

A provider's messages become :class:`Update` s in one display model: the transcript is
a row of *segments* in the order they first appeared; each segment shows its latest
partial text until a final text replaces it. What the user sees at any moment is the
segments' texts joined by spaces (:func:`display`); the final transcript is the final
texts only (:func:`final_text`): a partial is never scored as final.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

__all__ = ["Send", "StreamLog", "Update", "display", "displays", "final_text"]


@dataclass(frozen=True)
class Update:
    """One transcript update as the client received it."""

    #: Receive time (session seconds).
    t: float
    #: The segment it updates (a Deepgram/Speechmatics result run, an AssemblyAI turn,
    #: an OpenAI item, ...).
    segment: str
    #: The segment's whole text after this update.
    text: str
    #: Whether the text is final (it will not change again).
    final: bool
    #: Audio position (seconds) where the segment's last word ends, when the provider
    #: gives word times: the partial lag is ``t - audio_end``.
    audio_end: float | None = None


@dataclass(frozen=True)
class Send:
    """One audio chunk: when it was due and when it went out (session seconds)."""

    due: float
    sent: float

    @property
    def late_ms(self) -> float:
        return (self.sent - self.due) * 1000.0


@dataclass
class StreamLog:
    """A session's record: chunks, updates, the end of the stream and its outcome."""

    chunk_s: float
    #: Whether audio went out at real-time pace (``False``: as fast as possible, an
    #: accuracy-only run whose timings are not comparable).
    realtime: bool = True
    sends: list[Send] = field(default_factory=list)
    updates: list[Update] = field(default_factory=list)
    #: When the end-of-stream message went out, and when the session closed.
    end_sent: float | None = None
    closed: float | None = None
    #: Every message received (updates and others), malformed ones included.
    messages: int = 0
    #: Messages that could not be read (malformed JSON, unknown shapes), quoted short.
    malformed: list[str] = field(default_factory=list)
    #: Protocol facts kept in the record (session id, model, close code ...).
    facts: dict[str, object] = field(default_factory=dict)


def displays(updates: Sequence[Update]) -> Iterator[tuple[Update, list[str]]]:
    """Each update with the words shown right after it (segments in order of first
    appearance, each its latest text). Updates received at the same instant (the
    updates of one message) count as one change: only the last of them is yielded."""
    texts: dict[str, str] = {}
    for i, update in enumerate(updates):
        texts[update.segment] = update.text
        if i + 1 < len(updates) and updates[i + 1].t == update.t:
            continue
        yield update, " ".join(texts.values()).split()


def display(updates: Sequence[Update]) -> list[str]:
    """The words shown after the last update."""
    texts: dict[str, str] = {}
    for update in updates:
        texts[update.segment] = update.text
    return " ".join(texts.values()).split()


def final_text(updates: Iterable[Update]) -> str:
    """The final transcript: each segment's last final text, in order of first
    appearance; a segment that never got a final contributes nothing."""
    order: dict[str, None] = {}
    finals: dict[str, str] = {}
    for update in updates:
        order.setdefault(update.segment)
        if update.final:
            finals[update.segment] = update.text
    return " ".join(" ".join(finals[s].split()) for s in order
                    if s in finals and finals[s].strip())
