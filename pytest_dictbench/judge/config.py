"""One judge's configuration and list prices, and the exact cost of its token usage."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .usage import TokenUsage

__all__ = ["FAMILIES", "JudgeConfig", "decimal_price"]


def decimal_price(value: float | int) -> Decimal:
    """A price as written: ``0.1`` is exactly one tenth, not the float next to it."""
    return Decimal(str(value))


#: Model families a judge may belong to (how its endpoint is spoken to).
FAMILIES = ("anthropic", "openai")


@dataclass(frozen=True)
class JudgeConfig:
    """One judge: a name, the model it calls, its settings and its list prices.

    ``temperature`` is ``None`` by default and then not sent: API version 2026-10-21
    (what anthropic SDK 2.x speaks) rejects sampling parameters. Set it only for a
    server that accepts it; it is sent as an extra body field.

    ``family`` is ``anthropic`` (Messages API) or ``openai`` (any OpenAI-compatible
    chat-completions endpoint with structured output); ``base_url`` and ``api_key_env``
    name that judge's own endpoint and key variable. Cache prices default to the usual
    list ratios of the input price: writes 1.25x, reads 0.1x. ``batch_discount`` is the
    share of the live price charged for a Message Batches request.

    A judge without both list prices has an *unknown* cost (:meth:`cost_usd` is
    ``None``), never $0. Costs are computed in exact decimal arithmetic from the prices
    as written (``Decimal(str(price))``), then given as the nearest float.
    """

    name: str
    model: str
    temperature: float | None = None
    max_tokens: int = 1024
    #: US dollars per million input tokens (``None``: unknown).
    price_in_per_mtok: float | None = None
    #: US dollars per million output tokens (``None``: unknown).
    price_out_per_mtok: float | None = None
    family: str = "anthropic"
    base_url: str | None = None
    api_key_env: str | None = None
    #: US dollars per million tokens written to the prompt cache (default 1.25x input).
    price_cache_write_per_mtok: float | None = None
    #: US dollars per million tokens read from the prompt cache (default 0.1x input).
    price_cache_read_per_mtok: float | None = None
    #: US dollars per million tokens written to the one-hour prompt cache (default 2x
    #: input, the API's list ratio).
    price_cache_write_1h_per_mtok: float | None = None
    batch_discount: float = 0.5

    def settings(self) -> dict[str, Any]:
        """What shapes this judge's answers (prices, endpoint and key do not), for the
        cache key. ``family`` enters only when it is not the default, so keys made before
        families existed stay valid."""
        settings: dict[str, Any] = {
            "name": self.name,
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.family != "anthropic":
            settings["family"] = self.family
        return settings

    @property
    def priced(self) -> bool:
        """Both list prices are known."""
        return self.price_in_per_mtok is not None and self.price_out_per_mtok is not None

    @property
    def missing_price(self) -> str:
        """Why this judge's cost is unknown (``""`` when priced)."""
        return "" if self.priced else (f"judge {self.name!r} has no price "
                                       "(price_in_per_mtok / price_out_per_mtok)")

    def decimal_prices(self) -> tuple[Decimal, Decimal, Decimal, Decimal]:
        """Input, output, cache-write and cache-read prices per Mtok, as exact decimals
        (an unknown price as 0: check :attr:`priced` first)."""
        price_in = decimal_price(self.price_in_per_mtok or 0)
        write = (decimal_price(self.price_cache_write_per_mtok)
                 if self.price_cache_write_per_mtok is not None else price_in * Decimal("1.25"))
        read = (decimal_price(self.price_cache_read_per_mtok)
                if self.price_cache_read_per_mtok is not None else price_in * Decimal("0.1"))
        return price_in, decimal_price(self.price_out_per_mtok or 0), write, read

    @property
    def cache_write_price(self) -> float:
        return float(self.decimal_prices()[2])

    @property
    def cache_read_price(self) -> float:
        return float(self.decimal_prices()[3])

    def cost_decimal(self, usage: TokenUsage, *, batch: bool = False) -> Decimal | None:
        """Exact list price of ``usage`` (``None`` when a price or the usage is unknown)."""
        if not self.priced or usage.unknown:
            return None
        price_in, price_out, write, read = self.decimal_prices()
        write_1h = (decimal_price(self.price_cache_write_1h_per_mtok)
                    if self.price_cache_write_1h_per_mtok is not None else price_in * 2)
        five_minute = usage.cache_write_tokens - usage.cache_write_1h_tokens
        cost = (usage.input_tokens * price_in + usage.output_tokens * price_out
                + five_minute * write + usage.cache_write_1h_tokens * write_1h
                + usage.cache_read_tokens * read) / Decimal(1_000_000)
        return cost * decimal_price(self.batch_discount) if batch else cost

    def cost_usd(self, usage: TokenUsage, *, batch: bool = False) -> float | None:
        """List price of ``usage`` for this judge's model (cache tokens at their own
        prices; the whole call at ``batch_discount`` when it went through a batch);
        ``None`` when unknown (no price, or usage missing or invalid)."""
        cost = self.cost_decimal(usage, batch=batch)
        return None if cost is None else float(cost)
