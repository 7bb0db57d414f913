"""The bundled, dated price table of the provider kinds (``prices.toml``) and its loader.

A price is per audio minute (``usd_per_audio_minute``) or per million tokens
(``usd_per_million_tokens``, by token kind), with the provider's billing rules: a
minimum billed duration (``minimum_billed_seconds``: Groq bills at least 10 s), a
billing increment (``billed_increment_seconds``), surcharges for options
(``surcharges``: ElevenLabs' keyterms add 20 %) and a minimum that an option brings
(``option_minimums``). A product's own ``[pricing]`` with ``usd_per_audio_minute`` or
``usd_per_million_tokens`` replaces the bundled entry. Costs are exact decimals, and
:meth:`Price.charge` says which basis gave each.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import ProductError

__all__ = ["PRICES_FILE", "Charge", "Price", "bundled_prices", "price_for"]

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
    #: Shorter audio is billed as this long.
    minimum_billed_seconds: Decimal = Decimal(0)
    #: Billed seconds are rounded up to a multiple of this (0: not rounded).
    billed_increment_seconds: Decimal = Decimal(0)
    #: Option name -> fraction added to the cost when the option is given (0.20: +20 %).
    surcharges: Mapping[str, Decimal] = field(default_factory=dict)
    #: Option name -> (more than this many values, billed at least these seconds).
    option_minimums: Mapping[str, tuple[int, Decimal]] = field(default_factory=dict)

    def cost(self, billed_seconds: float | None, tokens: Mapping[str, int]) -> Decimal | None:
        """USD for one capture without options; ``None`` when the answer lacks what the
        price needs."""
        return self.charge(billed_seconds, tokens).cost

    def charge(self, billed_seconds: float | None, tokens: Mapping[str, int],
               options: Mapping[str, Any] | None = None,
               audio_seconds: float | None = None) -> Charge:
        """The cost of one capture and how it was reached. ``billed_seconds``: what the
        provider billed (or the audio's length where it bills that); ``tokens``: its
        token usage; ``audio_seconds``: the audio's length, used for a per-minute price
        when the answer was billed in tokens only."""
        options = options or {}
        if self.usd_per_audio_minute is None:
            if not tokens or any(kind not in self.usd_per_million_tokens for kind in tokens):
                missing = sorted(set(tokens) - set(self.usd_per_million_tokens))
                return Charge(None, "no token usage in the answer" if not tokens else
                              f"no price for {', '.join(missing)} tokens")
            cost = sum((self.usd_per_million_tokens[k] * n for k, n in sorted(tokens.items())),
                       Decimal(0)) / _MILLION
            return Charge(self._surcharged(cost, options), "tokens")
        basis = "billed seconds"
        if billed_seconds is None and tokens and audio_seconds is not None:
            billed_seconds, basis = audio_seconds, "audio length (a per-minute price for " \
                "an answer billed in tokens)"
        if billed_seconds is None:
            return Charge(None, "no billed duration in the answer")
        seconds = self.billed(Decimal(str(billed_seconds)), options)
        cost = self.usd_per_audio_minute * seconds / 60
        return Charge(self._surcharged(cost, options), basis, seconds)

    def billed(self, seconds: Decimal, options: Mapping[str, Any] | None = None) -> Decimal:
        """``seconds`` as billed: the minimum (and an option's minimum), the increment."""
        floor = self.minimum_billed_seconds
        for name, (above, minimum) in self.option_minimums.items():
            value = (options or {}).get(name)
            if isinstance(value, list) and len(value) > above:
                floor = max(floor, minimum)
        seconds = max(seconds, floor)
        step = self.billed_increment_seconds
        if step > 0:
            seconds = (seconds / step).to_integral_value(rounding=ROUND_CEILING) * step
        return seconds

    def _surcharged(self, cost: Decimal, options: Mapping[str, Any]) -> Decimal:
        extra = sum((fraction for name, fraction in sorted(self.surcharges.items())
                     if options.get(name) not in (None, False, [], "")), Decimal(0))
        return cost * (1 + extra) if extra else cost

    def reference(self) -> dict[str, Any]:
        """Where the price comes from and its billing rules, for the capture record."""
        out: dict[str, Any] = {"origin": self.origin, "snapshot_date": self.snapshot_date,
                               "source_url": self.source_url}
        if self.minimum_billed_seconds:
            out["minimum_billed_seconds"] = str(self.minimum_billed_seconds)
        if self.billed_increment_seconds:
            out["billed_increment_seconds"] = str(self.billed_increment_seconds)
        if self.surcharges:
            out["surcharges"] = {k: str(v) for k, v in sorted(self.surcharges.items())}
        return out


@dataclass(frozen=True)
class Charge:
    """One capture's cost (``None``: unknown, ``basis`` says why) and the seconds the
    price billed (after the minimum and increment), when per minute."""

    cost: Decimal | None
    basis: str
    seconds: Decimal | None = None


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
            prices[kind, model] = _price(kind, model, entry, where, "bundled")
    return prices


def _price(kind: str, model: str, entry: Mapping[str, Any], where: str,
           origin: str) -> Price:
    tokens = {k: _decimal(v, f"{where} usd_per_million_tokens.{k}")
              for k, v in entry.get("usd_per_million_tokens", {}).items()}
    minute = entry.get("usd_per_audio_minute")
    option_minimums = {
        name: (int(rule["above"]), _decimal(rule["seconds"], f"{where} option_minimums.{name}"))
        for name, rule in entry.get("option_minimums", {}).items()}
    return Price(
        kind, model, str(entry.get("snapshot_date", "")), str(entry.get("source_url", "")),
        None if minute is None else _decimal(minute, f"{where} usd_per_audio_minute"),
        tokens, origin=origin, checked=str(entry.get("checked", "")),
        minimum_billed_seconds=_decimal(entry.get("minimum_billed_seconds", 0),
                                        f"{where} minimum_billed_seconds"),
        billed_increment_seconds=_decimal(entry.get("billed_increment_seconds", 0),
                                          f"{where} billed_increment_seconds"),
        surcharges={k: _decimal(v, f"{where} surcharges.{k}")
                    for k, v in entry.get("surcharges", {}).items()},
        option_minimums=option_minimums)


def price_for(kind: str, model: str, pricing: Mapping[str, Any]) -> Price | None:
    """The product's ``[pricing]`` when it has a price (per minute or per token), else
    the bundled one."""
    if "usd_per_audio_minute" in pricing or "usd_per_million_tokens" in pricing:
        return _price(kind, model, pricing, "[pricing]", "product")
    return bundled_prices().get((kind, model))
