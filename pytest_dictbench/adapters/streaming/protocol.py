"""What a provider protocol module supplies to the one session engine (:mod:`.session`).

A :class:`Protocol` names the provider's documented WebSocket endpoint, the header that
carries the key, the audio format it takes, and builds the messages of one session: the
URL's query (never a key), the opening messages, one audio chunk, the end of the
stream. Its :class:`Reader` turns each server message into transcript updates (the
display model of :mod:`.timeline`), says when the session is over and names errors.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from typing import Protocol as TypingProtocol

__all__ = ["Config", "Protocol", "Reader", "Reading", "Segment", "json_message"]


@dataclass(frozen=True)
class Config:
    """One product's streaming settings as the protocol needs them."""

    model: str | None
    language: str | None
    sample_rate: int
    #: Provider options from ``[settings.options]`` (checked against the protocol's).
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Segment:
    """A transcript update before it gets its receive time."""

    segment: str
    text: str
    final: bool
    audio_end: float | None = None


@dataclass
class Reading:
    """What one server message meant."""

    updates: list[Segment] = field(default_factory=list)
    #: The session is over (the provider's last message arrived).
    done: bool = False
    #: The provider reported an error (quoted, scrubbed by the engine).
    error: str | None = None
    #: The provider is ready for audio (a protocol that waits for it).
    ready: bool = False
    #: Facts to keep (session id, model version, ...).
    facts: dict[str, Any] = field(default_factory=dict)


class Reader(TypingProtocol):
    def read(self, message: str | bytes) -> Reading:
        """The meaning of one message; raise ``ValueError`` for a malformed one."""
        ...


@dataclass(frozen=True)
class Protocol:
    """One provider's real-time protocol (see module doc)."""

    kind: str
    title: str
    #: The documented WebSocket root (scheme, host) and the endpoint's path.
    default_base_url: str
    path: str
    #: The header carrying the key and its value with ``{key}``.
    auth: tuple[str, str]
    #: Sample rate of the 16-bit little-endian mono PCM the provider is sent.
    sample_rate: int
    query: Any  # (Config) -> list[tuple[str, str]]
    opening: Any  # (Config) -> list[str]
    audio: Any  # (bytes) -> str | bytes
    closing: Any  # (Config, chunks_sent) -> list[str | bytes]
    reader: Any  # (Config) -> Reader
    #: Options accepted in ``[settings.options]``.
    options: frozenset[str] = frozenset()
    default_model: str | None = None
    #: Whether audio waits for the provider's ready message (Begin, RecognitionStarted).
    wait_ready: bool = False
    #: Extra headers of the handshake (a beta flag), never the key.
    headers: Mapping[str, str] = field(default_factory=dict)


def json_message(message: str | bytes) -> dict[str, Any]:
    """A server message as a JSON object; ``ValueError`` when it is not one."""
    if isinstance(message, bytes):
        raise ValueError("a binary message where JSON was expected")
    value = json.loads(message)
    if not isinstance(value, dict):
        raise ValueError("a JSON message that is not an object")
    return value


def number(value: Any) -> float | None:
    """A JSON number as float (``None`` for anything else)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)
