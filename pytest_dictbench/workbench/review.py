"""What the review page reads and writes: the suite's cases, one case's edits, progress.

Pure rules for an edit (which fields a person may change, what a key point looks like)
plus the calls into :mod:`.store` that save it. Text is kept exactly as edited: nothing
is trimmed, and a transcript whose saved form used CRLF (or CR) line ends keeps them (a
browser's text box always hands back LF).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import DictbenchError
from ..suites import MANIFEST, read_toml
from .checks import case_problem, project_max_text_chars
from .store import APPROVED, DRAFT, Snapshot, is_draft, read_cases, save_case, suite_warnings

__all__ = ["EditError", "apply_edit", "progress", "suite_view", "update_case"]

SEVERITIES = ("critical", "minor")


class EditError(DictbenchError):
    """An edit sent by the page is malformed."""


def progress(rows: Any) -> dict[str, int]:
    """How many cases there are and how many are approved (not draft)."""
    rows = list(rows)
    return {"total": len(rows), "approved": sum(not is_draft(r) for r in rows)}


def suite_view(root: Path) -> dict[str, Any]:
    """Everything the review page shows: suite facts, cases, fingerprint, progress."""
    manifest = read_toml(root / MANIFEST)
    snapshot = read_cases(root)
    problems = {}
    limit = project_max_text_chars(root)
    for row in snapshot.rows:
        problem = case_problem(root, row, manifest.get("method"), limit)
        if problem is None and manifest.get("method") == "keypoints" and \
                not row.get("key_points"):
            problem = f"case {row.get('id')!r}: key points need review (there are none)"
        if problem is not None and isinstance(row.get("id"), str):
            problems[row["id"]] = problem
    return {
        "suite": {k: manifest.get(k) for k in ("id", "title", "locale", "method")}
        | {"private": bool(manifest.get("private", False))},
        "path": str(root),
        "fingerprint": snapshot.fingerprint,
        "cases": list(snapshot.rows),
        "problems": problems,
        "warnings": suite_warnings(root),
        **progress(snapshot.rows),
    }


def _line_ends(old: Any, new: str) -> str:
    """``new`` with the line ends of ``old``: a text box hands back LF only."""
    if not isinstance(old, str):
        return new
    if new == old.replace("\r\n", "\n").replace("\r", "\n"):
        return old  # not edited: the very bytes it had
    if "\r\n" in old:
        return new.replace("\r\n", "\n").replace("\n", "\r\n")
    if "\r" in old and "\n" not in old:
        return new.replace("\n", "\r")
    return new


def _key_points(value: Any) -> list[dict[str, str]]:
    """Validated key points; a point without an id (or with a repeated one) gets a new
    ``k<n>`` id that no other point of the case uses."""
    if not isinstance(value, list):
        raise EditError("key_points must be a list")
    points: list[dict[str, str]] = []
    for n, point in enumerate(value, start=1):
        if not isinstance(point, Mapping) or not isinstance(point.get("text"), str):
            raise EditError(f"key point {n} has no text")
        text = point["text"]
        if not text.strip():
            raise EditError(f"key point {n} is empty")
        severity = point.get("severity", "minor")
        if severity not in SEVERITIES:
            raise EditError(f"key point {n}: severity must be critical or minor")
        points.append({"id": str(point.get("id") or ""), "text": text, "severity": severity})
    used = {p["id"] for p in points if p["id"]}
    seen: set[str] = set()
    counter = 1
    for point in points:
        if not point["id"] or point["id"] in seen:
            while f"k{counter}" in used:
                counter += 1
            point["id"] = f"k{counter}"
            used.add(point["id"])
        seen.add(point["id"])
    return points


def apply_edit(row: Mapping[str, Any], edit: Mapping[str, Any]) -> dict[str, Any]:
    """``row`` with a person's edit applied: ``reference``, ``key_points``, ``status``.

    Other fields of the edit are refused; the row's other fields are kept as they are.
    """
    unknown = set(edit) - {"id", "reference", "key_points", "status"}
    if unknown:
        raise EditError(f"these fields cannot be edited here: {', '.join(sorted(unknown))}")
    new = dict(row)
    if "reference" in edit:
        if not isinstance(edit["reference"], str):
            raise EditError("reference must be text")
        new["reference"] = _line_ends(row.get("reference"), edit["reference"])
    if "key_points" in edit:
        # a text box hands back LF: a point keeps the line ends it had (matched by id)
        before = {p.get("id"): p.get("text") for p in row.get("key_points") or ()
                  if isinstance(p, Mapping)}
        new["key_points"] = [{**p, "text": _line_ends(before.get(p["id"]), p["text"])}
                             for p in _key_points(edit["key_points"])]
    if "status" in edit:
        if edit["status"] not in (DRAFT, APPROVED):
            raise EditError("status must be draft or approved")
        reference = new.get("reference")
        if edit["status"] == APPROVED and "reference" in new and \
                not (isinstance(reference, str) and reference.strip()):
            raise EditError("a case without a transcript cannot be approved")
        new["status"] = edit["status"]
    return new


def update_case(root: Path, fingerprint: str, edit: Mapping[str, Any]) -> dict[str, Any]:
    """Apply an edit to one case and save it, after checking that the edited case would
    still load (nothing is written otherwise; refused if the file changed on disk)."""
    if not isinstance(edit, Mapping):
        raise EditError("case must be a JSON object")
    snapshot: Snapshot = read_cases(root)
    case_id = edit.get("id")
    if not isinstance(case_id, str):
        raise EditError("the edit names no case id")
    row = snapshot.row(case_id)  # raises for an unknown id
    method = read_toml(root / MANIFEST).get("method")
    for name in ("reference", "key_points"):  # never add a field the method refuses
        if name in edit and name not in row and method != "keypoints":
            raise EditError(f"cases of method {method!r} have no {name!r} to edit here")
    new = apply_edit(row, edit)
    problem = case_problem(root, new, method, project_max_text_chars(root))
    if problem is not None:
        raise EditError(f"{problem} (nothing was saved)")
    new_fingerprint = save_case(root, case_id, new, fingerprint)
    rows = [new if r.get("id") == case_id else r for r in snapshot.rows]
    return {"fingerprint": new_fingerprint, "case": new, "warnings": suite_warnings(root),
            **progress(rows)}
