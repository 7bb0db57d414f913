"""The judge's data: requests, verdicts, outcomes and the retry policy.

Plain data with JSON round trips; no I/O and no network. A judge's configuration and
prices live in :mod:`.config`, token usage in :mod:`.usage`, a run's spend in
:mod:`.spend`; their names are re-exported here for the modules that import them from
this one.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from ..jsonl import canonical_line
from .config import FAMILIES, JudgeConfig
from .spend import ModelSpend, SpendMeter
from .usage import TokenUsage, usage_from

__all__ = [
    "FAMILIES",
    "HIDDEN_CASE_FIELDS",
    "JudgeConfig",
    "JudgeOutcome",
    "JudgeRequest",
    "ModelSpend",
    "OutcomeStatus",
    "RetryPolicy",
    "RuleVerdict",
    "SpendMeter",
    "TokenUsage",
    "Verdict",
    "canonical_json",
    "content_hash",
    "output_hash",
    "usage_from",
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
    usage: TokenUsage = field(default_factory=TokenUsage)
    #: Obtained through the Message Batches API (charged at the batch discount).
    batch: bool = False
    #: Further answer fields a judge task keeps besides per-rule scores (see
    #: :class:`~.task.JudgeTask`); empty for the rubric.
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: Tokens billed through a batch for unusable answers to this request before it was
    #: judged again live (charged at the batch discount, whatever ``batch`` says).
    batch_usage: TokenUsage = field(default_factory=TokenUsage)

    @property
    def billed_usage(self) -> TokenUsage:
        """Every token billed to obtain this verdict (the batch tokens included)."""
        return self.usage + self.batch_usage

    def cost_decimal(self, config: JudgeConfig) -> Decimal | None:
        """Exact list price of every token billed for this verdict (``None``: unknown)."""
        cost = config.cost_decimal(self.usage, batch=self.batch)
        if self.batch_usage == TokenUsage():
            return cost
        earlier = config.cost_decimal(self.batch_usage, batch=True)
        return None if cost is None or earlier is None else cost + earlier

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
        if self.batch_usage != TokenUsage():
            data["batch_usage"] = self.batch_usage.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict:
        """Rebuild from :meth:`to_json`, checking the stored types: a score is a
        non-negative integer (never ``1.9``, ``true`` or ``"2"``), a reason, judge, model
        and hash are strings (raises ``KeyError``/``TypeError``/``ValueError``). Whether a
        score is in its rule's range is the task's to say (:func:`~.request.cached_problem`)."""
        rules: dict[str, RuleVerdict] = {}
        for rule, v in _object(data["rules"], "rules").items():
            score, reason = _object(v, f"rule {rule}")["score"], v["reason"]
            if isinstance(score, bool) or not isinstance(score, int) or score < 0:
                raise ValueError(f"rule {rule}: score {score!r} is not a verdict score")
            rules[rule] = RuleVerdict(score, _text(reason, f"rule {rule} reason"))
        batch = data.get("batch", False)
        if not isinstance(batch, bool):
            raise ValueError(f"batch is {batch!r}, not true or false")
        return cls(
            judge=_text(data["judge"], "judge"),
            model=_text(data["model"], "model"),
            content_hash=_text(data["hash"], "hash"),
            rules=rules,
            usage=TokenUsage.from_json(data.get("usage")),
            batch=batch,
            extra=dict(_object(data.get("extra") or {}, "extra")),
            batch_usage=TokenUsage.from_json(data.get("batch_usage")),
        )


def _object(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{what} is not an object")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} is {value!r}, not a string")
    return value


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
    #: A server wait longer than this is not shortened: the call gives up instead.
    max_retry_after: float = 120.0
    seed: int = 0
    #: Attempts when the server answers 429 (``None``: ``max_attempts``; a caller with
    #: its own deadline, such as a cloud provider capture, keeps trying within it).
    max_rate_limited_attempts: int | None = None
    #: The shortest wait a server's ``retry-after`` may ask for (``0`` would retry at once).
    min_retry_after: float = 0.0

    def delay(self, attempt: int, rng: random.Random, retry_after: float | None) -> float:
        if retry_after is not None and retry_after >= 0:
            return max(self.min_retry_after, min(retry_after, self.max_retry_after))
        return min(self.max_delay, self.base_delay * 2 ** (attempt - 1)) * (
            0.5 + rng.random() / 2
        )
