"""Tokens billed for judge calls: one answer's usage, and usage read from an answer.

Plain data with JSON round trips; no I/O and no network.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["TokenUsage", "usage_from"]


@dataclass(frozen=True)
class TokenUsage:
    """Tokens billed for one or more API calls.

    ``input_tokens`` are the uncached input tokens; prompt-cache writes and reads are
    counted apart because they have their own prices. ``unknown`` is set when an answer
    reported no usage, or an invalid one (negative, not an integer): its cost is then
    unknown, never $0 and never subtracted.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    unknown: bool = False
    #: Of ``cache_write_tokens``, those written to the one-hour cache (their own price).
    cache_write_1h_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.unknown or other.unknown,
            self.cache_write_1h_tokens + other.cache_write_1h_tokens,
        )

    def to_json(self) -> dict[str, Any]:
        """Token counts; the cache counts only when non-zero (older lines lack them)."""
        data: dict[str, Any] = {"input_tokens": self.input_tokens,
                                "output_tokens": self.output_tokens}
        if self.cache_write_tokens:
            data["cache_write_tokens"] = self.cache_write_tokens
        if self.cache_read_tokens:
            data["cache_read_tokens"] = self.cache_read_tokens
        if self.cache_write_1h_tokens:
            data["cache_write_1h_tokens"] = self.cache_write_1h_tokens
        if self.unknown:
            data["unknown"] = True
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> TokenUsage:
        """Rebuild from :meth:`to_json`; a count that is not a non-negative integer raises
        ``ValueError`` (a stored line is never read as a nearby number)."""
        data = data or {}
        if not isinstance(data, Mapping):
            raise ValueError("usage is not an object")

        def count(name: str) -> int:
            value = data.get(name, 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"usage {name} is {value!r}, not a count")
            return value

        return cls(*(count(name) for name in (
            "input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens")),
            unknown=data.get("unknown") is True,
            cache_write_1h_tokens=count("cache_write_1h_tokens"))


def usage_from(values: Mapping[str, Any] | None, names: Sequence[str]) -> TokenUsage:
    """A :class:`TokenUsage` from an answer's usage fields ``names`` (input, output,
    cache write, cache read; a name may be ``""`` for a count the API does not give).
    No usage, or a field that is negative or not an integer, gives an *unknown* usage."""
    if values is None:
        return TokenUsage(unknown=True)
    counts = []
    for name in names:
        value = values.get(name) if name else 0
        if value is None and name not in names[:2]:
            value = 0
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return TokenUsage(unknown=True)
        counts.append(value)
    return TokenUsage(*counts)
