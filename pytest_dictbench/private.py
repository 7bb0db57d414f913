"""Private suites (``private = true`` in ``suite.toml``): what a record may keep.

A private suite's item records keep scores, statuses, metrics, rule scores and sources,
flags and timings, so aggregates, intervals and comparisons are computed as usual. They
lose everything that could quote the data: the output text, messages, rule evidence and
the judges' reasons. The case id becomes a stable keyed hash, so runs can still be
compared and repeated items paired, but the id says nothing.

The key is the suite's own secret: 32 random bytes, hex, in :data:`SECRET_FILE` beside
``suite.toml``. It is never listed in ``[[files]]``, never quoted (unlike the canary,
which exists to be quoted), and is created by ``dictbench hash`` or, failing that, the
first time an id is needed. Whoever holds the suite with its secret gets the same ids
(``--lf``, baselines); rotating it (delete the file, run ``dictbench hash``) changes
every id. See docs/workbench.md ("Private suites").
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import SuiteError
from .files import read_regular
from .model import Suite

__all__ = ["REDACTED", "SECRET_FILE", "ensure_secret", "is_private", "public_case_id",
           "redact_record", "suite_secret"]

#: The file, beside a private suite's ``suite.toml``, holding the key of its case ids.
SECRET_FILE = ".dictbench-secret"
_SECRET = re.compile(rb"[0-9a-f]{64}\n?")
_SECRETS: dict[Path, bytes] = {}

#: What replaces a message or a piece of evidence of a private suite.
REDACTED = "[private suite: withheld]"


def is_private(suite: Suite) -> bool:
    return suite.manifest.get("private") is True


def ensure_secret(root: Path) -> bool:
    """Create the suite's secret in ``root`` unless it exists; returns whether it was
    created. Safe when several processes race: the file appears whole or not at all."""
    path = root / SECRET_FILE
    if path.exists():
        return False
    tmp = root / f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(secrets.token_hex(32) + "\n")
        os.link(tmp, path)  # fails if another process made it first: theirs is kept
    except FileExistsError:
        return False
    except OSError as exc:
        why = "read-only file system" if exc.errno == errno.EROFS else exc.strerror
        raise SuiteError(
            f"cannot create the private suite's secret ({why}): run 'dictbench hash "
            f"{root}' on a writable checkout, or copy the suite's {SECRET_FILE} here, "
            "and keep it out of git", path=path) from None
    finally:
        with contextlib.suppress(OSError):  # never hides the error above
            tmp.unlink(missing_ok=True)
    return True


def suite_secret(root: Path) -> bytes:
    """The key of a private suite's case ids (created when missing), read once."""
    key = root.resolve()
    if key not in _SECRETS:
        ensure_secret(root)
        data = read_regular(root / SECRET_FILE, SuiteError, max_bytes=200)
        if not _SECRET.fullmatch(data):
            raise SuiteError("not a private suite secret (64 hex digits expected); delete "
                             "it and run 'dictbench hash' to make a new one (every private "
                             "case id changes)", path=root / SECRET_FILE)
        _SECRETS[key] = bytes.fromhex(data.strip().decode("ascii"))
    return _SECRETS[key]


def public_case_id(suite: Suite, case_id: str) -> str:
    """The case id shown for a private suite: ``p-`` and 16 hex digits of an HMAC keyed
    with the suite's secret (:func:`suite_secret`)."""
    digest = hmac.new(suite_secret(suite.root), case_id.encode("utf-8"), hashlib.sha256)
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
