"""What a selection's captures would cost, with nothing sent (``--capture-estimate``).

For every selected item of a live product: is its output cached (a usable line, not an
error; ``--recapture`` ignores the cache), and if not, how long is its audio. A provider
product's minutes are priced from its price (its ``[pricing]`` or the bundled table);
a per-token price is estimated from the audio's input tokens only (output tokens are
not known before the run, so the figure is a lower bound and says so).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from ...audio.io import AudioError
from ...audio.length import audio_seconds
from ...errors import DictbenchError
from ...model import Case, Product, Suite
from .prices import Price, price_for

__all__ = ["AUDIO_TOKENS_PER_SECOND", "CaptureEstimate", "ProductEstimate", "estimated_cost"]

#: Input tokens per audio second, by kind, where the provider publishes it: Gemini
#: represents each second of audio as 32 tokens (its audio guide).
AUDIO_TOKENS_PER_SECOND = {"gemini": 32}


@dataclass
class ProductEstimate:
    """One live product's share of the selection."""

    product: str
    adapter: str
    model: str | None
    captures: int = 0
    cached: int = 0
    audio_seconds: float = 0.0
    cost_usd: Decimal | None = Decimal(0)
    #: Why there is no cost, or what it leaves out.
    note: str = ""

    def line(self) -> str:
        cost = "no price" if self.cost_usd is None else f"${self.cost_usd:.6f}"
        minutes = self.audio_seconds / 60
        note = f" ({self.note})" if self.note else ""
        return (f"  {self.product} [{self.adapter}{f', {self.model}' if self.model else ''}]: "
                f"{self.captures} captures ({minutes:.2f} audio minutes), {self.cached} "
                f"cached; {cost}{note}")


class CaptureEstimate:
    """Adds up the captures of a selection (see module doc)."""

    def __init__(self, default_models: Mapping[str, str | None]) -> None:
        #: Provider kind -> the model it uses when a product names none.
        self.default_models = dict(default_models)
        self.providers = frozenset(default_models)
        self.products: dict[str, ProductEstimate] = {}
        self._cached: dict[tuple[str, str], dict[tuple[str, int], Any]] = {}
        #: (product, suite, case, repetition) counted so far: a recogniser under several
        #: pipelines is captured once per case.
        self._seen: set[tuple[str, str, str, int]] = set()
        #: The refine requests of the selection's pipelines, when any
        #: (:class:`pytest_dictbench.adapters.pipeline.estimate.RefineEstimate`).
        self.refine: Any = None

    def add(self, product: Product, suite: Suite, case: Case, repetition: int,
            adapter: Any, recapture: bool) -> None:
        """Count one selected item; ``adapter`` is its live adapter (with ``cache``).
        An item already counted (the same recogniser under another pipeline) is not."""
        seen = (product.name, suite.id, case.id, repetition)
        if seen in self._seen:
            return
        self._seen.add(seen)
        model = product.settings.get("model", self.default_models.get(product.adapter))
        entry = self.products.get(product.name)
        if entry is None:
            entry = self.products[product.name] = ProductEstimate(
                product.name, product.adapter, model if isinstance(model, str) else None)
            if product.adapter not in self.providers and "usd_per_audio_minute" \
                    not in product.pricing:
                entry.cost_usd, entry.note = None, "no [pricing]"
        if not recapture and (case.id, repetition) in self._usable(product, suite, adapter):
            entry.cached += 1
            return
        entry.captures += 1
        seconds = _seconds(suite, case)
        if seconds is None:
            entry.cost_usd, entry.note = None, f"audio length of {case.id!r} unknown"
            return
        entry.audio_seconds += seconds
        if entry.cost_usd is None:
            return
        price = self._price(product, entry)
        if price is None:
            entry.cost_usd, entry.note = None, "no price in [pricing] or the bundled table"
            return
        options = product.settings.get("options")
        cost, note = estimated_cost(price, product.adapter, seconds,
                                    options if isinstance(options, dict) else {})
        entry.cost_usd = None if cost is None else entry.cost_usd + cost
        entry.note = note or entry.note

    def _price(self, product: Product, entry: ProductEstimate) -> Price | None:
        return price_for(product.adapter, entry.model or "", product.pricing)

    def _usable(self, product: Product, suite: Suite, adapter: Any
                ) -> dict[tuple[str, int], Any]:
        key = (product.name, suite.id)
        if key not in self._cached:
            try:
                lines = adapter.cache.read()
            except DictbenchError:
                lines = {}
            self._cached[key] = {k: out for k, out in lines.items() if not out.is_error}
        return self._cached[key]

    def cached_output(self, product: Product, suite: Suite, case: Case, repetition: int,
                      adapter: Any, recapture: bool) -> Any:
        """The usable output a live ``adapter`` holds for the item, or ``None``."""
        if recapture:
            return None
        return self._usable(product, suite, adapter).get((case.id, repetition))

    def lines(self) -> list[str]:
        out = ["capture estimate (nothing was sent, no item ran)"]
        total, priced = Decimal(0), True
        for _, entry in sorted(self.products.items()):
            out.append(entry.line())
            if entry.cost_usd is None:
                priced = False
            else:
                total += entry.cost_usd
        refine = self.refine.lines() if self.refine is not None else []
        out += refine
        captures = sum(e.captures for e in self.products.values())
        requests = f"{self.refine.requests} refine requests; " if refine else ""
        out.append(f"  total: {captures} captures; {requests}${total:.6f}"
                   + ("" if priced else " for the priced products only")
                   + (" (refine requests not priced)" if refine else ""))
        return out


def estimated_cost(price: Price, kind: str, seconds: float, options: Mapping[str, Any]
                   ) -> tuple[Decimal | None, str]:
    """What ``seconds`` of audio would cost at ``price`` before it is sent, and what the
    figure leaves out: a per-minute price with its minimum, increment and surcharges; a
    per-token one from the audio's input tokens where the provider publishes their rate."""
    if price.usd_per_audio_minute is not None:
        return price.charge(seconds, {}, options).cost, ""
    per_second = AUDIO_TOKENS_PER_SECOND.get(kind)
    if per_second is None:
        return None, (f"billed in tokens, and {kind}'s audio tokens per second are not "
                      "published: known only after the run")
    tokens = {"input_audio": round(seconds * per_second)}
    return (price.cost(None, tokens) or Decimal(0),
            "audio input tokens only: output and thinking tokens not estimated")


def _seconds(suite: Suite, case: Case) -> float | None:
    """The case's audio length: its ``duration_s``, else measured from the file."""
    duration = case.data.get("duration_s")
    if isinstance(duration, (int, float)) and not isinstance(duration, bool):
        return float(duration)
    audio = case.data.get("audio")
    if not isinstance(audio, str):
        return None
    try:
        return audio_seconds(Path(suite.root) / audio)
    except (AudioError, OSError):
        return None
