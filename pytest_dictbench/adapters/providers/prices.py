"""The bundled, dated price table of the provider kinds (``prices.toml``) and its loader.

A price is per audio minute (``usd_per_audio_minute``) or per million tokens
(``usd_per_million_tokens``, by token kind). A product's own ``[pricing]`` with
``usd_per_audio_minute`` replaces the bundled entry. Costs are exact decimals.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import ProductError

__all__ = ["PRICES_FILE", "Price", "bundled_prices", "price_for"]

#: The bundled table.
PRICES_FILE = Path(__file__).with_name("prices.toml")
_MILLION = Decimal(1_000_000)


@dataclass(frozen=True)
class Price:
    """One model's list price, with its date and source."""

    kind: str
    model: str
    snapshot_date: str
    source_url: str
    usd_per_audio_minute: Decimal | None = None
    usd_per_million_tokens: Mapping[str, Decimal] = field(default_factory=dict)
    #: "bundled" or "product" (the product's ``[pricing]``).
    origin: str = "bundled"
    #: Whether the figure was found on the provider's own page ("verified: ...") or not
    #: ("unverified: ..."), for a bundled price.
    checked: str = ""

    def cost(self, billed_seconds: float | None, tokens: Mapping[str, int]) -> Decimal | None:
        """USD for one capture; ``None`` when the answer lacks what the price needs."""
        if self.usd_per_audio_minute is not None:
            if billed_seconds is None:
                return None
            return self.usd_per_audio_minute * Decimal(str(billed_seconds)) / 60
        if not tokens or any(kind not in self.usd_per_million_tokens for kind in tokens):
            return None
        return sum((self.usd_per_million_tokens[k] * n for k, n in sorted(tokens.items())),
                   Decimal(0)) / _MILLION

    def reference(self) -> dict[str, str]:
        """Where the price comes from, for the capture record."""
        return {"origin": self.origin, "snapshot_date": self.snapshot_date,
                "source_url": self.source_url}


def _decimal(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ProductError(f"{where} must be a number, got {value!r}")
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise ProductError(f"{where} must be a number, got {value!r}") from None
    if not number.is_finite() or number < 0:
        raise ProductError(f"{where} must be a non-negative number, got {value!r}")
    return number


@lru_cache(maxsize=1)
def bundled_prices() -> dict[tuple[str, str], Price]:
    """The bundled table, by (kind, model)."""
    with PRICES_FILE.open("rb") as handle:
        table = tomllib.load(handle)
    prices = {}
    for kind, models in table.items():
        for model, entry in models.items():
            where = f"{PRICES_FILE.name} [{kind}.{model!r}]"
            tokens = {k: _decimal(v, f"{where} usd_per_million_tokens.{k}")
                      for k, v in entry.get("usd_per_million_tokens", {}).items()}
            minute = entry.get("usd_per_audio_minute")
            prices[kind, model] = Price(
                kind, model, str(entry["snapshot_date"]), entry["source_url"],
                None if minute is None else _decimal(minute, f"{where} usd_per_audio_minute"),
                tokens, checked=str(entry.get("checked", "")))
    return prices


def price_for(kind: str, model: str, pricing: Mapping[str, Any]) -> Price | None:
    """The product's ``[pricing]`` when it has a per-minute price, else the bundled one."""
    if "usd_per_audio_minute" in pricing:
        return Price(kind, model, str(pricing.get("snapshot_date", "")),
                     str(pricing.get("source_url", "")),
                     _decimal(pricing["usd_per_audio_minute"],
                              "[pricing] usd_per_audio_minute"), origin="product")
    return bundled_prices().get((kind, model))
