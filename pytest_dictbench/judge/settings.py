"""Reading the ``[judge]`` configuration table into judge configs and runner settings.

The table (from a suite manifest or project file; the plugin decides where)::

    [judge]
    concurrency = 16        # HTTP calls in flight, all judges together
    timeout = 60.0          # seconds per HTTP call
    max_attempts = 4        # per request, for 429 / 5xx / timeouts / connection errors
    base_delay = 1.0        # first backoff delay, doubled each attempt
    max_delay = 30.0        # backoff cap
    seed = 0                # jitter seed
    base_url = "https://..."  # optional; else ANTHROPIC_BASE_URL, else the SDK default
    budget_usd = 5.0        # optional: stop sending before the run would cost more
    batch_poll = 5.0        # seconds between batch status checks while waiting
    batch_failures = "live" # expired/errored/canceled batch requests: "live" or "report"

    [[judge.judges]]
    name = "judge-a"
    model = "..."
    max_tokens = 1024
    price_in_per_mtok = 3.0
    price_out_per_mtok = 15.0
    # optional: price_cache_write_per_mtok, price_cache_read_per_mtok, batch_discount

    [[judge.judges]]
    name = "judge-b"
    family = "openai"       # any OpenAI-compatible chat-completions endpoint
    model = "..."
    base_url = "https://host/v1"
    api_key_env = "OTHER_API_KEY"

The API key is never configured here (a key-like field is rejected): it comes from the
judge's ``api_key_env`` variable, else ``ANTHROPIC_API_KEY`` / ``OPENAI_API_KEY``.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import JudgeError
from ..redact import register_secret
from ..schemas import checked_schema
from .records import FAMILIES, JudgeConfig, RetryPolicy
from .transport import safe_url, url_problem

__all__ = ["JUDGE_SETTINGS_SCHEMA", "JudgeSettings", "parse_judge_settings"]

_PRICE = {"type": "number", "minimum": 0}
_POSITIVE = {"type": "number", "exclusiveMinimum": 0}
_SECRET_FIELDS = ("api_key", "key", "token", "auth_token", "authorization")

_JUDGE = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]*$"},
        "model": {"type": "string", "minLength": 1},
        "temperature": {"type": "number", "minimum": 0, "maximum": 1},
        "max_tokens": {"type": "integer", "minimum": 1},
        "price_in_per_mtok": _PRICE,
        "price_out_per_mtok": _PRICE,
        "price_cache_write_per_mtok": _PRICE,
        "price_cache_read_per_mtok": _PRICE,
        "price_cache_write_1h_per_mtok": _PRICE,
        "batch_discount": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        "family": {"enum": list(FAMILIES)},
        "base_url": {"type": "string", "pattern": "^https?://"},
        "api_key_env": {"type": "string", "pattern": "^[A-Z_][A-Z0-9_]*$"},
    },
    "required": ["name", "model"],
    "additionalProperties": False,
}

JUDGE_SETTINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "judges": {"type": "array", "items": _JUDGE, "minItems": 1},
        "concurrency": {"type": "integer", "minimum": 1},
        "timeout": _POSITIVE,
        "max_attempts": {"type": "integer", "minimum": 1},
        "base_delay": {"type": "number", "minimum": 0},
        "max_delay": {"type": "number", "minimum": 0},
        "seed": {"type": "integer"},
        "base_url": {"type": "string", "pattern": "^https?://"},
        "budget_usd": {"type": "number", "minimum": 0},
        "batch_poll": _POSITIVE,
        "batch_failures": {"enum": ["live", "report"]},
    },
    "required": ["judges"],
    "additionalProperties": False,
}

#: Checks a ``[judge]`` table; its ``jsonschema`` validator is made when first used.
_SETTINGS = checked_schema(JUDGE_SETTINGS_SCHEMA)


@dataclass(frozen=True)
class JudgeSettings:
    """Judges plus how to run them."""

    judges: tuple[JudgeConfig, ...]
    concurrency: int = 16
    timeout: float = 60.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    base_url: str | None = None
    #: Spending limit of a run, in US dollars (``None``: none).
    budget_usd: float | None = None
    batch_poll: float = 5.0
    batch_failures: str = "live"


def _secret_field(table: Mapping[str, Any]) -> str | None:
    tables = [table, *(j for j in table.get("judges", ()) if isinstance(j, Mapping))]
    for t in tables:
        for name in t:
            if str(name).lower() in _SECRET_FIELDS:
                return str(name)
    return None


def _value_problem(table: Mapping[str, Any]) -> str | None:
    """A number that is not finite (NaN, inf: every comparison with NaN is false, so a
    NaN budget would be no limit) or a base URL holding credentials, by its key."""
    places = [("[judge]", table)] + [(f"[judge].judges[{n}]", j)
                                     for n, j in enumerate(table.get("judges", ()))]
    for where, values in places:
        for key, value in values.items():
            if isinstance(value, float) and not math.isfinite(value):
                return f"{where}.{key}: {value!r} is not a finite number"
            if key == "base_url" and isinstance(value, str):
                problem = url_problem(value)
                if problem:
                    return f"{where}.base_url {safe_url(value)!r} {problem}"
    return None


def _warn_twins(judges: tuple[JudgeConfig, ...], base_url: str | None,
                path: Path | str | None) -> None:
    """Double judging with one model on one endpoint is not two independent judges."""
    seen: dict[tuple[str, str, str], str] = {}
    for judge in judges:
        where = (judge.family, judge.base_url or base_url or "", judge.model)
        if where in seen:
            warnings.warn(f"{path or '[judge]'}: judges {seen[where]!r} and {judge.name!r} "
                          f"call the same model {judge.model!r} on the same endpoint: their "
                          "verdicts are not independent, so double judging checks little",
                          UserWarning, stacklevel=3)
        seen.setdefault(where, judge.name)


def parse_judge_settings(table: Mapping[str, Any], *, path: Path | str | None = None
                         ) -> JudgeSettings:
    """Validate a ``[judge]`` table; errors are :class:`JudgeError` naming ``path``."""
    secret = _secret_field(table)
    if secret is not None:
        raise JudgeError(
            f"[judge] must not hold a credential ({secret!r}); name its environment "
            "variable in api_key_env (default ANTHROPIC_API_KEY)",
            path=path,
        )
    errors = sorted(_SETTINGS.python.iter_errors(dict(table)),
                    key=lambda e: list(e.absolute_path))
    if errors:
        where = ".".join(str(p) for p in errors[0].absolute_path)
        raise JudgeError(f"[judge]{'.' + where if where else ''}: {errors[0].message}",
                         path=path)
    problem = _value_problem(table)
    if problem:
        raise JudgeError(problem, path=path)
    judges = tuple(JudgeConfig(**entry) for entry in table["judges"])
    for judge in judges:  # known from now on in this process, whichever client is built
        register_secret(os.environ.get(judge.api_key_env) if judge.api_key_env else None,
                        judge.api_key_env or "")
    for judge in judges:
        if judge.family == "openai" and judge.base_url is None:
            raise JudgeError(f"[judge] judge {judge.name!r}: family 'openai' needs a base_url",
                             path=path)
    if table.get("budget_usd") is not None:
        for judge in judges:
            if not judge.priced:
                raise JudgeError(f"[judge].budget_usd is set but {judge.missing_price}: its "
                                 "spend cannot be bounded; give both prices or drop the "
                                 "budget", path=path)
    _warn_twins(judges, table.get("base_url"), path)
    names = [j.name for j in judges]
    if len(set(names)) != len(names):
        raise JudgeError(f"[judge] judge names must be unique, got {names}", path=path)
    defaults = RetryPolicy()
    retry = RetryPolicy(
        max_attempts=table.get("max_attempts", defaults.max_attempts),
        base_delay=float(table.get("base_delay", defaults.base_delay)),
        max_delay=float(table.get("max_delay", defaults.max_delay)),
        seed=table.get("seed", defaults.seed),
    )
    return JudgeSettings(
        judges=judges,
        concurrency=table.get("concurrency", 16),
        timeout=float(table.get("timeout", 60.0)),
        retry=retry,
        base_url=table.get("base_url"),
        budget_usd=table.get("budget_usd"),
        batch_poll=float(table.get("batch_poll", 5.0)),
        batch_failures=table.get("batch_failures", "live"),
    )
