"""The judge's data: configurations, requests, verdicts, outcomes and spend.

Everything here is plain data with JSON round trips; no I/O and no network.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from ..jsonl import canonical_line

__all__ = [
    "FAMILIES",
    "HIDDEN_CASE_FIELDS",
    "JudgeConfig",
    "JudgeOutcome",
    "JudgeRequest",
    "ModelSpend",
    "OutcomeStatus",
    "RuleVerdict",
    "SpendMeter",
    "TokenUsage",
    "Verdict",
    "canonical_json",
    "content_hash",
    "output_hash",
]

#: Case fields never shown to a judge: they identify the item, not its content.
HIDDEN_CASE_FIELDS = frozenset({"id", "canary", "audio"})

#: What happened to one (request, judge) pair.
OutcomeStatus = Literal["judged", "cached", "missing", "pending", "error"]


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same data always gives the same text."""
    return canonical_line(value)


def content_hash(value: Any) -> str:
    """sha256 (hex) of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def output_hash(text: str) -> str:
    """sha256 (hex) of an output text as UTF-8: how decisions name the output they judged."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _dec(value: float | int) -> Decimal:
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
        price_in = _dec(self.price_in_per_mtok or 0)
        write = (_dec(self.price_cache_write_per_mtok)
                 if self.price_cache_write_per_mtok is not None else price_in * Decimal("1.25"))
        read = (_dec(self.price_cache_read_per_mtok)
                if self.price_cache_read_per_mtok is not None else price_in * Decimal("0.1"))
        return price_in, _dec(self.price_out_per_mtok or 0), write, read

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
        write_1h = (_dec(self.price_cache_write_1h_per_mtok)
                    if self.price_cache_write_1h_per_mtok is not None else price_in * 2)
        five_minute = usage.cache_write_tokens - usage.cache_write_1h_tokens
        cost = (usage.input_tokens * price_in + usage.output_tokens * price_out
                + five_minute * write + usage.cache_write_1h_tokens * write_1h
                + usage.cache_read_tokens * read) / Decimal(1_000_000)
        return cost * _dec(self.batch_discount) if batch else cost

    def cost_usd(self, usage: TokenUsage, *, batch: bool = False) -> float | None:
        """List price of ``usage`` for this judge's model (cache tokens at their own
        prices; the whole call at ``batch_discount`` when it went through a batch);
        ``None`` when unknown (no price, or usage missing or invalid)."""
        cost = self.cost_decimal(usage, batch=batch)
        return None if cost is None else float(cost)


@dataclass(frozen=True)
class JudgeRequest:
    """One output of one case to be judged on a list of rules.

    The product name and repetition identify the item in reports and decisions; they are
    never shown to the judge and do not enter the cache key.
    """

    suite: str
    product: str
    repetition: int
    #: The case as read from ``cases.jsonl`` (``id`` names it).
    case: Mapping[str, Any]
    output_text: str
    #: ``(rule id, one-line meaning)`` of every rule the judges must score.
    rules: Sequence[tuple[str, str]]
    #: Automated check results by rule id: ``{"score": 0|1|2|None, "evidence": str}``.
    auto_results: Mapping[str, Any] = field(default_factory=dict)
    rubric_version: str = ""
    #: The judge task that turns this request into a prompt and reads the answer (a
    #: :class:`~.task.JudgeTask`); ``None`` means the rubric task with the guide alone.
    task: Any = None

    @property
    def case_id(self) -> str:
        return str(self.case.get("id", ""))

    @property
    def key(self) -> str:
        """``suite/case/product/repetition``: the item this request is about."""
        return f"{self.suite}/{self.case_id}/{self.product}/{self.repetition}"

    @property
    def rule_ids(self) -> tuple[str, ...]:
        return tuple(rule for rule, _ in self.rules)

    @property
    def output_hash(self) -> str:
        return output_hash(self.output_text)

    def visible_case(self) -> dict[str, Any]:
        """The case fields a judge sees (identifiers and file paths left out)."""
        return {k: v for k, v in self.case.items() if k not in HIDDEN_CASE_FIELDS}

    def auto_json(self) -> dict[str, dict[str, Any]]:
        """Automated results as plain JSON (accepts mappings or ``RuleScore``-like objects)."""
        result: dict[str, dict[str, Any]] = {}
        for rule, value in self.auto_results.items():
            if isinstance(value, Mapping):
                score, evidence = value.get("score"), value.get("evidence", "")
            else:
                score, evidence = getattr(value, "score", None), getattr(value, "evidence", "")
            result[str(rule)] = {"score": score, "evidence": str(evidence)}
        return result


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
        data = data or {}
        return cls(*(int(data.get(name) or 0) for name in (
            "input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens")),
            unknown=data.get("unknown") is True,
            cache_write_1h_tokens=int(data.get("cache_write_1h_tokens") or 0))


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


@dataclass(frozen=True)
class RuleVerdict:
    """A judge's score (0, 1 or 2) for one rule and its one-sentence reason."""

    score: int
    reason: str


@dataclass(frozen=True)
class Verdict:
    """One judge's validated answer on one request content."""

    judge: str
    model: str
    #: The cache key: content hash of judge settings, guide, rubric and item content.
    content_hash: str
    rules: Mapping[str, RuleVerdict]
    #: Tokens spent to obtain this verdict (invalid first answers included).
    usage: TokenUsage = TokenUsage()
    #: Obtained through the Message Batches API (charged at the batch discount).
    batch: bool = False
    #: Further answer fields a judge task keeps besides per-rule scores (see
    #: :class:`~.task.JudgeTask`); empty for the rubric.
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "hash": self.content_hash,
            "judge": self.judge,
            "model": self.model,
            "rules": {r: {"score": v.score, "reason": v.reason} for r, v in self.rules.items()},
            "usage": self.usage.to_json(),
        }
        if self.batch:
            data["batch"] = True
        if self.extra:
            data["extra"] = dict(self.extra)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict:
        """Rebuild from :meth:`to_json` (raises ``KeyError``/``TypeError``/``ValueError``)."""
        rules = {
            str(rule): RuleVerdict(int(v["score"]), str(v["reason"]))
            for rule, v in data["rules"].items()
        }
        return cls(
            judge=str(data["judge"]),
            model=str(data["model"]),
            content_hash=str(data["hash"]),
            rules=rules,
            usage=TokenUsage.from_json(data.get("usage")),
            batch=bool(data.get("batch", False)),
            extra=dict(data.get("extra") or {}),
        )


@dataclass(frozen=True)
class JudgeOutcome:
    """What one judge produced for one request: a verdict or an error, never both."""

    judge: str
    status: OutcomeStatus
    verdict: Verdict | None = None
    #: Class name of the error that ended the attempts (``status == "error"``).
    error: str | None = None
    #: A short, redacted description of the error or of why nothing was judged.
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "status": self.status,
            "verdict": self.verdict.to_json() if self.verdict else None,
            "error": self.error,
            "detail": self.detail,
        }


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


@dataclass(frozen=True)
class RetryPolicy:
    """Our backoff: delay = min(max_delay, base_delay * 2**(attempt-1)) * jitter.

    Jitter is uniform in [0.5, 1.0), drawn from a ``random.Random`` seeded by ``seed``,
    the judge and the request hash, so delays do not depend on task scheduling. A
    ``retry-after`` (or ``retry-after-ms``) header replaces the computed delay, capped
    at ``max_retry_after``.
    """

    max_attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 120.0
    seed: int = 0

    def delay(self, attempt: int, rng: random.Random, retry_after: float | None) -> float:
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_retry_after)
        return min(self.max_delay, self.base_delay * 2 ** (attempt - 1)) * (
            0.5 + rng.random() / 2
        )
