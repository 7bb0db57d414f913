"""Spend during a run: calls, tokens and list-price cost per model."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .config import JudgeConfig
from .usage import TokenUsage

__all__ = ["ModelSpend", "SpendMeter"]


@dataclass
class ModelSpend:
    """Calls, tokens and list-price cost summed for one model."""

    model: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    #: Why some of this spend has no known cost (then ``cost_usd`` counts the rest).
    unknown: list[str] = field(default_factory=list)

    def add(self, config: JudgeConfig, usage: TokenUsage, *, batch: bool = False) -> None:
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cache_write_tokens += usage.cache_write_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        cost = config.cost_decimal(usage, batch=batch)
        if cost is None:
            why = config.missing_price or f"judge {config.name!r}: an answer without valid usage"
            if why not in self.unknown:
                self.unknown.append(why)
            return
        self.cost_usd = float(Decimal(str(self.cost_usd)) + cost)

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cost_usd": None if self.unknown else round(self.cost_usd, 6),
            **({"cost_unknown": list(self.unknown)} if self.unknown else {}),
        }


@dataclass
class SpendMeter:
    """Accumulates HTTP calls and token usage per model during a run."""

    by_model: dict[str, ModelSpend] = field(default_factory=dict)

    def _spend(self, config: JudgeConfig) -> ModelSpend:
        return self.by_model.setdefault(config.model, ModelSpend(config.model))

    def count_call(self, config: JudgeConfig) -> None:
        self._spend(config).calls += 1

    def add_usage(self, config: JudgeConfig, usage: TokenUsage, *, batch: bool = False) -> None:
        self._spend(config).add(config, usage, batch=batch)

    @property
    def calls(self) -> int:
        return sum(s.calls for s in self.by_model.values())

    @property
    def cost_usd(self) -> float:
        return sum(s.cost_usd for s in self.by_model.values())
