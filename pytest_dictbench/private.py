"""Private suites (``private = true`` in ``suite.toml``): what a record may keep.

A private suite's item records keep scores, statuses, metrics, rule scores and sources,
flags and timings, so aggregates, intervals and comparisons are computed as usual. They
lose everything that could quote the data: the output text, messages, rule evidence and
the judges' reasons. The case id becomes a stable keyed hash (HMAC-SHA256 keyed with the
suite's canary, which stays in the suite folder), so runs can still be compared and
repeated items paired, but the id says nothing. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

from .model import Suite

__all__ = ["REDACTED", "is_private", "public_case_id", "redact_record"]

#: What replaces a message or a piece of evidence of a private suite.
REDACTED = "[private suite: withheld]"


def is_private(suite: Suite) -> bool:
    return suite.manifest.get("private") is True


def public_case_id(suite: Suite, case_id: str) -> str:
    """The case id shown for a private suite: ``p-`` and 16 hex digits of an HMAC."""
    digest = hmac.new(suite.canary.encode("utf-8"), case_id.encode("utf-8"), hashlib.sha256)
    return "p-" + digest.hexdigest()[:16]


def _rules(rules: Mapping[str, Any]) -> dict[str, Any]:
    return {rule: {**value, "evidence": REDACTED if value.get("evidence") else ""}
            for rule, value in rules.items()}


def _pending(entry: Mapping[str, Any], case: str) -> dict[str, Any]:
    judges = [{**j, "reason": REDACTED} for j in entry.get("judges", ())]
    return {**entry, "case": case, "judges": judges}


def redact_record(record: Mapping[str, Any], suite: Suite) -> dict[str, Any]:
    """A private suite's item record with its text-bearing fields withheld."""
    case = public_case_id(suite, str(record["case_id"]))
    out = dict(record)
    out["case_id"] = case
    out["text"] = None
    out["message"] = REDACTED if record.get("message") else ""
    out["rules"] = _rules(record.get("rules") or {})
    if "pending" in out:
        out["pending"] = [_pending(p, case) for p in record["pending"]]
    return out
