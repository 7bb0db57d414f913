"""Reading a Message Batch's results: the origin check and the strict line reader.

Pure: no I/O. :func:`check_results_url` refuses a ``results_url`` on any host but the
configured one; :func:`parse_results` reads the JSONL with the one strict JSON reader.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from anthropic.types import Message

from ..errors import JudgeError
from ..jsonl import loads_strict
from .client import read_message
from .records import TokenUsage
from .transport import RawAnswer, shorten

__all__ = ["BatchResult", "check_results_url", "parse_results"]


@dataclass(frozen=True)
class BatchResult:
    """One request's result: ``succeeded`` (with the answer) or why it has none
    (``errored``, ``canceled``, ``expired``)."""

    custom_id: str
    kind: str
    answer: RawAnswer | None = None
    detail: str = ""


def _detail(result: Mapping[str, Any]) -> str:
    error = result.get("error")
    inner = error.get("error") if isinstance(error, Mapping) else None
    if isinstance(inner, Mapping):
        return f"{inner.get('type', '')}: {inner.get('message', '')}".strip(": ")
    return str(result.get("type") or "no result")


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port


def check_results_url(url: Any, base_url: str, batch_id: str) -> None:
    """A batch's ``results_url`` must be on the configured API host (scheme, host and
    port): the results are fetched with the API key, which never goes anywhere else."""
    if not isinstance(url, str) or not url:
        raise JudgeError(f"batch {batch_id} has ended but names no results_url")
    if _origin(url) != _origin(base_url):
        raise JudgeError(f"batch {batch_id}: results_url {shorten(url)} is not the configured "
                         f"API host {shorten(base_url)}; results are fetched only from there "
                         "and the key is not sent elsewhere")


def _lax_line(line: str) -> Mapping[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, Mapping) else {}


def _usage_in(line: Mapping[str, Any]) -> TokenUsage | None:
    message = (line.get("result") or {}).get("message") if isinstance(
        line.get("result"), Mapping) else None
    try:
        return read_message(Message.model_validate(message), "").usage if message else None
    except ValueError:
        return None


def parse_results(text: str, batch_id: str, tool_name: Callable[[str], str]
                  ) -> list[BatchResult]:
    """The result lines of a batch, each read with the strict JSON reader.

    A line that breaks it (a duplicate key, a non-finite number) is an invalid answer of
    its request, its billed tokens counted; a ``custom_id`` seen before is a server
    fault: warned about, the first result kept.
    """
    found: list[BatchResult] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = loads_strict(line)
        except ValueError as exc:
            lax = _lax_line(line)
            problem = f"result line {number} of batch {batch_id} is not valid JSON: {exc}"
            entry = {"custom_id": lax.get("custom_id"), "broken": problem}
        if not isinstance(entry, Mapping) or not isinstance(entry.get("custom_id"), str):
            warnings.warn(f"batch {batch_id}: result line {number} has no custom_id; "
                          "dropped", UserWarning, stacklevel=2)
            continue
        custom_id = entry["custom_id"]
        if custom_id in seen:
            warnings.warn(f"batch results: custom_id {custom_id!r} twice in batch {batch_id}"
                          f" (line {number}); the first result is kept", UserWarning,
                          stacklevel=2)
            continue
        seen.add(custom_id)
        if "broken" in entry:
            usage = _usage_in(_lax_line(line))
            found.append(BatchResult(custom_id, "succeeded",
                                     RawAnswer(None, usage, entry["broken"])))
            continue
        result = entry.get("result") if isinstance(entry.get("result"), Mapping) else {}
        kind = str(result.get("type", ""))
        if kind != "succeeded":
            found.append(BatchResult(custom_id, kind, None, _detail(result)))
            continue
        try:
            message = Message.model_validate(result.get("message"))
        except ValueError as exc:
            found.append(BatchResult(custom_id, kind, RawAnswer(
                None, None, f"result message is not a Message: {shorten(str(exc))}")))
            continue
        found.append(BatchResult(custom_id, kind, read_message(message, tool_name(custom_id))))
    return found
