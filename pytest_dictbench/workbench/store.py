"""Reading and rewriting a suite's ``cases.jsonl`` safely while a person edits it.

Every save is checked against the fingerprint (sha256) of the file the editor loaded:
when the file changed on disk since then, the save is refused and nothing is written.
A save is an atomic rewrite of the cases file followed by a refresh of the manifest's
``[[files]]`` digests, both under one sidecar lock (``.<cases file>.lock``), the
convention of the capture and verdict caches.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DictbenchError, SuiteError
from ..files import atomic_write, file_lock
from ..jsonl import read_jsonl
from ..suites import MANIFEST, inside, read_toml

__all__ = ["DRAFT", "ConcurrentEdit", "Snapshot", "is_draft", "read_cases", "save_cases",
           "suite_root"]

#: ``status`` of a case that a person has not approved yet.
DRAFT = "draft"
#: ``status`` of a case a person approved.
APPROVED = "approved"


class ConcurrentEdit(DictbenchError):
    """The cases file changed on disk after the editor loaded it."""


def is_draft(case: Mapping[str, Any]) -> bool:
    """Whether a case (a line of ``cases.jsonl``) still waits for review."""
    return case.get("status") == DRAFT


@dataclass(frozen=True)
class Snapshot:
    """The cases file as read: its rows (in file order) and its fingerprint."""

    path: Path
    rows: tuple[dict[str, Any], ...]
    fingerprint: str

    def row(self, case_id: str) -> dict[str, Any]:
        for row in self.rows:
            if row.get("id") == case_id:
                return row
        raise SuiteError(f"no case {case_id!r}", path=self.path)


def suite_root(path: Path) -> Path:
    """The suite folder of ``path`` (the folder or its ``suite.toml``)."""
    root = path if path.is_dir() else path.parent
    if not (root / MANIFEST).is_file():
        raise SuiteError("no suite manifest here", path=root / MANIFEST)
    return root


def cases_file(root: Path) -> Path:
    manifest = root / MANIFEST
    return inside(root, read_toml(manifest).get("cases", "cases.jsonl"), what="cases file",
                  where=manifest)


def _fingerprint(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_cases(root: Path) -> Snapshot:
    """The suite's cases as plain JSON objects, with the file's fingerprint."""
    path = cases_file(root)
    data = path.read_bytes()
    rows = tuple(obj for _, obj in read_jsonl(path, SuiteError))
    return Snapshot(path, rows, _fingerprint(data))


def cases_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """``cases.jsonl`` as written by the workbench: one object per line, keys in order."""
    return "".join(json.dumps(dict(r), ensure_ascii=False, allow_nan=False) + "\n"
                   for r in rows)


def save_cases(root: Path, rows: Sequence[Mapping[str, Any]], expected: str | None) -> str:
    """Rewrite the cases file with ``rows`` and refresh the manifest digests.

    ``expected`` is the fingerprint the editor loaded (``None`` skips the check, for a
    file the caller just created). Raises :class:`ConcurrentEdit` when the file on disk
    is not that one any more. Returns the new fingerprint.
    """
    from ..hashes import refresh_hashes

    path = cases_file(root)
    with file_lock(path.with_name(f".{path.name}.lock")):
        current = _fingerprint(path.read_bytes()) if path.exists() else None
        if expected is not None and current != expected:
            raise ConcurrentEdit("the cases file changed on disk since it was loaded; "
                                 "reload to see the other edit (nothing was saved)", path=path)
        text = cases_text(rows)
        atomic_write(path, text)
        refresh_hashes(root)
    return _fingerprint(text.encode("utf-8"))
