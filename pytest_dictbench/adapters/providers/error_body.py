"""What a provider's error body says: its message (the known shapes of the seven
providers, the specific reason beside a generic one) and its retry hints (Google's
``RetryInfo``, OpenAI's quota codes). Never raises, whatever the bytes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...jsonl import loads_strict

__all__ = ["Hints", "hints", "message", "snippet"]

#: Characters of a provider's error message quoted in the item's error.
_MESSAGE_CHARS = 300


def message(raw: bytes) -> str:
    """The provider's error message from its error body (the known shapes), else a
    snippet of the body."""
    try:
        body = loads_strict(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return snippet(raw)
    for found in _messages(body):
        return ": " + _clip(found + _reason(body, found))
    return snippet(raw)


def _reason(body: Any, first: str) -> str:
    """The specific reason beside a generic message: Speechmatics' ``detail`` after its
    ``error`` ("Job rejected"), Deepgram's ``details`` after its ``message``."""
    if not isinstance(body, Mapping):
        return ""
    for key in ("detail", "details"):
        value = body.get(key)
        if isinstance(value, str) and value.strip() and value != first:
            return f": {value}"
    return ""


class Hints:
    """What an error body says about retrying: a wait (Google's ``RetryInfo``) and
    whether to retry at all (``False`` for OpenAI's ``insufficient_quota``)."""

    def __init__(self, retry_after: float | None = None, retryable: bool | None = None):
        self.retry_after, self.retryable = retry_after, retryable


#: Error codes that need the user to act (billing, quota): retrying cannot help.
_USER_ACTION = frozenset({"insufficient_quota", "billing_hard_limit_reached",
                          "billing_not_active"})
_DURATION = re.compile(r"(\d+(?:\.\d+)?)s")


def hints(raw: bytes) -> Hints:
    """The retry hints of an error body (see :class:`_Hints`)."""
    try:
        body = loads_strict(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return Hints()
    error = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(error, Mapping):
        return Hints()
    if error.get("code") in _USER_ACTION or error.get("type") in _USER_ACTION:
        return Hints(retryable=False)
    details = error.get("details")
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, Mapping) and str(detail.get("@type", "")).endswith(
                "google.rpc.RetryInfo"):
            found = _DURATION.fullmatch(str(detail.get("retryDelay", "")))
            if found:
                return Hints(retry_after=float(found[1]))
    return Hints()


def _messages(body: Any) -> list[str]:
    """Messages in an error body: ``error.message``, ``error``, ``err_msg``,
    ``detail.message``, ``detail``, ``message`` (first found wins); ``detail`` as a list
    of validation problems (``{"loc": [...], "msg": ...}``) gives them all, each with
    the field it names."""
    if not isinstance(body, Mapping):
        return []
    found = []
    for key in ("error", "detail", "err_msg", "message", "reason"):
        value = body.get(key)
        if isinstance(value, str) and value:
            found.append(value)
        elif isinstance(value, Mapping):
            found.extend(_messages(value))
        elif isinstance(value, list) and value:
            problems = [_problem(v) for v in value]
            if all(problems):
                found.append("; ".join(p for p in problems if p))
    return found


def _problem(entry: Any) -> str | None:
    """``body.field: message`` of one validation problem, ``None`` if it is not one."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("msg"), str):
        return None
    loc = entry.get("loc")
    where = ".".join(str(part) for part in loc) if isinstance(loc, list) and loc else ""
    return f"{where}: {entry['msg']}" if where else entry["msg"]


def snippet(raw: bytes) -> str:
    text = " ".join(raw.decode("utf-8", "replace").split())
    return f": {_clip(text)}" if text else ""


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text[:_MESSAGE_CHARS] + ("..." if len(text) > _MESSAGE_CHARS else "")
