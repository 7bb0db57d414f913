"""What judging will cost before anything is sent, and a budget that stops it in time.

**Local token estimate** (the offline default): a prompt's input tokens are estimated
from its text - the system text, the user text and the sent tool schema as JSON - as
``ceil(ascii_chars / 4) + other_chars`` (Latin text runs about four characters a
token; kana, kanji and other non-ASCII characters about one each), plus
:data:`TOOL_OVERHEAD` tokens for the tool-use preamble the API adds. Example: a prompt
of 4,000 ASCII and 300 Japanese characters is ``1000 + 300 + 350 = 1650`` tokens.
The API's own count (``messages.count_tokens``) is exact but is a network call; the
plugin uses it only when asked (``--judge-estimate=api``).

**Output tokens** are estimated as ``OUTPUT_BASE + OUTPUT_PER_RULE x rules``, capped at
the judge's ``max_tokens`` (a score and a one-sentence reason per rule).

**Cost**: live requests of one judge share the cacheable system prefix: the first
writes it to the prompt cache, the others read it. Batch requests cost the same tokens
at the judge's ``batch_discount``. The estimate assumes every prefix after the first
is a cache hit (the API caches prefixes of at least 1,024 tokens only).

**Budget**: before each call (or batch submission) the worst case of that request is
reserved - estimated input at the dearer of the input and cache-write prices, plus
``max_tokens`` of output - and replaced by the real cost when the answer comes. A
request whose reservation would take the run over ``budget_usd`` is not sent; it is
left unjudged (never scored). The ledger is kept in exact decimals (each amount taken
as written, ``Decimal(str(x))``), so requests that fit the limit exactly all go through:
three $0.10 requests under ``budget_usd = 0.30`` are all sent. A request whose answer
reports no valid usage keeps its reservation as spent (its real cost is unknown).

A judge without prices has no estimate (``cost_live_usd`` is ``None``, shown as
"unknown (no price)"), and a budget is refused for it at load.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..files import atomic_write
from .records import JudgeConfig, TokenUsage
from .task import Prompt

__all__ = [
    "OUTPUT_BASE",
    "OUTPUT_PER_RULE",
    "TOOL_OVERHEAD",
    "Budget",
    "Estimate",
    "SharedBudget",
    "budget_report",
    "estimate_output",
    "estimate_prompt",
    "estimate_text",
    "merge_budget_figures",
    "worst_case_cost",
]

TOOL_OVERHEAD = 350
OUTPUT_BASE = 20
OUTPUT_PER_RULE = 30


def estimate_text(text: str) -> int:
    """Local token estimate of ``text`` (see the module docstring)."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


@lru_cache(maxsize=64)
def _prefix_tokens(system: str, tool_schema: str) -> int:
    return estimate_text(system + tool_schema) + TOOL_OVERHEAD


def estimate_prompt(prompt: Prompt) -> tuple[int, int]:
    """``(prefix tokens, other input tokens)``: the cacheable part and the rest."""
    schema = json.dumps(dict(prompt.tool_schema), sort_keys=True)
    return _prefix_tokens(prompt.system, schema), estimate_text(prompt.user)


def estimate_output(prompt: Prompt, rules: int) -> int:
    """Expected output tokens of an answer scoring ``rules`` rules."""
    return min(prompt.max_tokens, OUTPUT_BASE + OUTPUT_PER_RULE * rules)


def worst_case_cost(config: JudgeConfig, prompt: Prompt, *, batch: bool = False) -> float:
    """The reservation of one request: estimated input at the dearer input price (with
    a 20% margin for the estimate's error) plus ``max_tokens`` of output. An unpriced
    judge reserves nothing (a budget is refused for it at load)."""
    if not config.priced:
        return 0.0
    prefix, rest = estimate_prompt(prompt)
    price_in, price_out, write, _ = config.decimal_prices()
    cost = (math.ceil((prefix + rest) * 1.2) * max(price_in, write)
            + prompt.max_tokens * price_out) / Decimal(1_000_000)
    return float(cost * _d(config.batch_discount) if batch else cost)


@dataclass
class Estimate:
    """Expected requests, tokens and cost of one judge's uncached requests."""

    judge: str
    model: str
    requests: int = 0
    #: Input tokens: the cacheable prefix and the rest, summed over requests.
    prefix_tokens: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    #: ``None`` when the judge has no price.
    cost_live_usd: float | None = 0.0
    cost_batch_usd: float | None = 0.0

    def add(self, config: JudgeConfig, prompt: Prompt, rules: int,
            counted: int | None = None) -> None:
        """Count one request; ``counted`` = the API's input token count, if asked."""
        prefix, rest = estimate_prompt(prompt)
        if counted is not None:  # exact total; the split keeps the local proportion
            rest = max(0, counted - prefix)
            prefix = counted - rest
        output = estimate_output(prompt, rules)
        first = self.requests == 0
        self.requests += 1
        self.prefix_tokens += prefix
        self.input_tokens += prefix + rest
        self.output_tokens += output
        live = config.cost_decimal(TokenUsage(rest, output, prefix if first else 0,
                                              0 if first else prefix))
        batch = config.cost_decimal(TokenUsage(prefix + rest, output), batch=True)
        if live is None or batch is None or self.cost_live_usd is None \
                or self.cost_batch_usd is None:
            self.cost_live_usd = self.cost_batch_usd = None
            return
        self.cost_live_usd = float(Decimal(str(self.cost_live_usd)) + live)
        self.cost_batch_usd = float(Decimal(str(self.cost_batch_usd)) + batch)

    def to_json(self) -> dict[str, Any]:
        return {"judge": self.judge, "model": self.model, "requests": self.requests,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost_live_usd": _round(self.cost_live_usd),
                "cost_batch_usd": _round(self.cost_batch_usd)}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _d(value: float | Decimal) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


@dataclass
class Budget:
    """A spending limit shared by every request of a process (``None``: no limit)."""

    limit: float | None = None
    spent: float = 0.0
    reserved: float = 0.0
    #: Requests not sent because of the limit.
    refused: int = 0
    notes: list[str] = field(default_factory=list)
    #: The worst case held for the requests that were sent (the estimate the limit was
    #: checked against), to set beside what they cost.
    held: float = 0.0

    def figures(self) -> dict[str, Any]:
        """This process's share, as exact decimal strings (summed across xdist workers
        by :func:`merge_budget_figures`)."""
        return {"budget_usd": self.limit, "spent": str(_d(self.spent)),
                "held": str(_d(self.held)), "refused": self.refused}

    @property
    def limited(self) -> bool:
        return self.limit is not None

    def reserve(self, amount: float) -> bool:
        """Hold ``amount`` for one request; False (and counted) when it does not fit."""
        if self.limit is not None and \
                _d(self.spent) + _d(self.reserved) + _d(amount) > _d(self.limit):
            self.refused += 1
            return False
        self.reserved = float(_d(self.reserved) + _d(amount))
        return True

    def settle(self, reserved: float, actual: float) -> None:
        """Replace a reservation by what the request really cost."""
        self.reserved = float(_d(self.reserved) - _d(reserved))
        self.spent = float(_d(self.spent) + _d(actual))
        self.held = float(_d(self.held) + _d(reserved))


def merge_budget_figures(into: dict[str, dict[str, Any]],
                         figures: Mapping[str, Mapping[str, Any]]) -> None:
    """Add one process's :meth:`Budget.figures` per suite to ``into`` (exact sums)."""
    for suite, share in figures.items():
        entry = into.setdefault(suite, {"budget_usd": share["budget_usd"], "spent": "0",
                                        "held": "0", "refused": 0})
        entry["spent"] = str(_d(entry["spent"]) + Decimal(share["spent"]))
        entry["held"] = str(_d(entry["held"]) + Decimal(share["held"]))
        entry["refused"] += int(share["refused"])


def budget_report(figures: Mapping[str, Any]) -> dict[str, Any]:
    """The ``judge_budget`` field of a suite in dictbench.json: the limit, the spend,
    the requests the limit stopped, and the worst case held for the requests sent."""
    return {"budget_usd": figures["budget_usd"],
            "spent_usd": round(float(Decimal(figures["spent"])), 6),
            "requests_not_sent": figures["refused"],
            "worst_case_usd": round(float(Decimal(figures["held"])), 6)}


@dataclass
class SharedBudget(Budget):
    """A :class:`Budget` that several processes (xdist workers) share: the amounts spent
    and reserved under ``key`` live in the JSON file ``ledger``, read and changed under
    an exclusive lock at every reservation and settlement, so the limit holds for the
    run as a whole. ``spent`` and ``reserved`` count this process's own share."""

    ledger: Path = Path("budget.json")
    key: str = ""

    def reserve(self, amount: float) -> bool:
        with self._totals() as totals:
            entry = totals.setdefault(self.key, {"spent": "0", "reserved": "0"})
            if self.limit is not None and _d(entry["spent"]) + _d(entry["reserved"]) \
                    + _d(amount) > _d(self.limit):
                self.refused += 1
                return False
            entry["reserved"] = str(_d(entry["reserved"]) + _d(amount))
        self.reserved = float(_d(self.reserved) + _d(amount))
        return True

    def settle(self, reserved: float, actual: float) -> None:
        with self._totals() as totals:
            entry = totals.setdefault(self.key, {"spent": "0", "reserved": "0"})
            entry["reserved"] = str(_d(entry["reserved"]) - _d(reserved))
            entry["spent"] = str(_d(entry["spent"]) + _d(actual))
        super().settle(reserved, actual)

    @contextlib.contextmanager
    def _totals(self) -> Iterator[dict[str, dict[str, str]]]:
        """The ledger's totals, written back when the block ends, all under the lock."""
        import fcntl

        with open(self.ledger.with_name(self.ledger.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                text = self.ledger.read_text(encoding="utf-8") if self.ledger.exists() \
                    else "{}"
                totals = json.loads(text or "{}")
                yield totals
                atomic_write(self.ledger, json.dumps(totals, sort_keys=True))
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
