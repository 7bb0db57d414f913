"""Reading and rewriting a suite's ``cases.jsonl`` safely while a person edits it.

Every save is checked against the fingerprint (sha256) of the file the editor loaded:
when the file changed on disk since then, the save is refused and nothing is written.
A save is refused too while the file does not match the digest the manifest lists (it
changed outside the workbench): a save never lists a digest over lines nobody reviewed.
A save that changes nothing writes nothing.
A save replaces one case's line (every other line keeps its bytes) and the ``cases.jsonl``
digest in the manifest's ``[[files]]`` tables, as one set (both files are written in
full beside their targets, then renamed), under one sidecar lock
(``.<cases file>.lock``), the convention of the capture and verdict caches. Digests of
other files are never refreshed by a save: a file changed outside the workbench is
reported (:func:`suite_warnings`), not blessed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DictbenchError, SuiteError
from ..files import atomic_write_set, file_lock
from ..jsonl import read_jsonl
from ..suites import MANIFEST, inside, read_toml

__all__ = ["DRAFT", "ConcurrentEdit", "Snapshot", "is_draft", "read_cases", "save_case",
           "save_cases", "suite_root", "suite_warnings"]

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
    #: the line number (1-based, as :func:`~pytest_dictbench.jsonl.read_jsonl` counts)
    #: of each row
    lines: tuple[int, ...] = ()

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
    numbered = list(read_jsonl(path, SuiteError))
    return Snapshot(path, tuple(obj for _, obj in numbered), _fingerprint(data),
                    tuple(n for n, _ in numbered))


def case_line(row: Mapping[str, Any]) -> str:
    """One case as the workbench writes it: one JSON object, keys in order, no newline."""
    return json.dumps(dict(row), ensure_ascii=False, allow_nan=False)


def cases_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """``cases.jsonl`` as written by the workbench: one object per line, keys in order."""
    return "".join(case_line(r) + "\n" for r in rows)


def _manifest_text(root: Path, cases_rel: str, digest: str) -> str | None:
    """``suite.toml`` with only the cases file's digest changed (``None``: unchanged)."""
    from ..hashes import files_table_text

    entries = [dict(e) for e in read_toml(root / MANIFEST).get("files", [])]
    for entry in entries:
        if Path(str(entry.get("path", ""))).as_posix().removeprefix("./") == cases_rel:
            entry["sha256"] = digest
            break
    else:
        entries.insert(0, {"path": cases_rel, "sha256": digest})
    return files_table_text(root, entries)


def _listed_digest(root: Path, rel: str) -> str | None:
    """The sha256 ``suite.toml`` lists for ``rel`` (``None``: not listed)."""
    for entry in read_toml(root / MANIFEST).get("files", []):
        if Path(str(entry.get("path", ""))).as_posix().removeprefix("./") == rel:
            digest = entry.get("sha256")
            return digest if isinstance(digest, str) else None
    return None


def _check_not_stale(root: Path, path: Path, data: bytes) -> None:
    """Refuse to write over a cases file whose listed digest is already stale: its text
    changed outside the workbench (or a save was interrupted), and a save would list the
    digest of lines nobody reviewed here."""
    rel = path.relative_to(root).as_posix()
    digest = _listed_digest(root, rel)
    if digest is not None and digest != _fingerprint(data):
        raise ConcurrentEdit(
            f"{rel} does not match the sha256 {MANIFEST} lists: it was edited outside the "
            "workbench (or an earlier save was interrupted); check the change, run "
            f"'dictbench hash {root}' to accept it, then reload (nothing was saved)",
            path=path)


def _write(root: Path, path: Path, data: bytes) -> None:
    rel = path.relative_to(root).as_posix()
    manifest = _manifest_text(root, rel, _fingerprint(data))
    texts = {rel: data.decode("utf-8")}
    if manifest is not None:
        texts[MANIFEST] = manifest
    atomic_write_set(root, texts)


def save_case(root: Path, case_id: str, row: Mapping[str, Any], expected: str) -> str:
    """Replace the line of case ``case_id`` with ``row`` and list the new digest of the
    cases file in the manifest; every other line keeps its bytes, line end included.

    A row equal to the stored one writes nothing (the line keeps its bytes). Raises
    :class:`ConcurrentEdit`, writing nothing, when the file on disk is not the one whose
    fingerprint the editor loaded (``expected``), or when it no longer matches the digest
    the manifest lists (changed outside the workbench: never blessed by a save). Returns
    the new fingerprint.
    """
    path = cases_file(root)
    with file_lock(path.with_name(f".{path.name}.lock")):
        data = path.read_bytes()
        if _fingerprint(data) != expected:
            raise ConcurrentEdit("the cases file changed on disk since it was loaded; "
                                 "reload to see the other edit (nothing was saved)", path=path)
        _check_not_stale(root, path, data)
        snapshot = read_cases(root)
        found = next(((r, n) for r, n in zip(snapshot.rows, snapshot.lines, strict=True)
                      if r.get("id") == case_id), None)
        if found is None:
            raise SuiteError(f"no case {case_id!r}", path=path)
        old, number = found
        if old == dict(row):
            return expected  # nothing changed: both files keep their bytes
        bom = data.startswith(b"\xef\xbb\xbf")
        lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
        ending = b"\r" if lines[number - 1].endswith(b"\r") else b""
        lines[number - 1] = case_line(row).encode("utf-8") + ending
        new = (b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines)
        _write(root, path, new)
    return _fingerprint(new)


def save_cases(root: Path, rows: Sequence[Mapping[str, Any]], expected: str | None) -> str:
    """Rewrite the whole cases file with ``rows`` and list its new digest.

    ``expected`` is the fingerprint the editor loaded (``None`` skips the check, for a
    file the caller just created). Raises :class:`ConcurrentEdit` when the file on disk
    is not that one any more. Returns the new fingerprint.
    """
    path = cases_file(root)
    with file_lock(path.with_name(f".{path.name}.lock")):
        current = _fingerprint(path.read_bytes()) if path.exists() else None
        if expected is not None and current != expected:
            raise ConcurrentEdit("the cases file changed on disk since it was loaded; "
                                 "reload to see the other edit (nothing was saved)", path=path)
        text = cases_text(rows)
        _write(root, path, text.encode("utf-8"))
    return _fingerprint(text.encode("utf-8"))


def suite_warnings(root: Path) -> list[str]:
    """What the review page should say about files that no longer match their listed
    digests (nothing is refreshed for them)."""
    from ..hashes import stale_files

    cases_rel = cases_file(root).relative_to(root).as_posix()
    out = []
    for rel in stale_files(root):
        if rel == cases_rel:
            out.append(f"{rel} does not match the sha256 {MANIFEST} lists: it was edited "
                       "outside the workbench, or an earlier save was interrupted; saves are "
                       "refused until you check the change, run 'dictbench hash' to accept "
                       "it and reload")
        else:
            out.append(f"{rel} changed outside the workbench (or is missing): its digest is "
                       "not refreshed here; run 'dictbench hash' if the change is intended")
    return out
