"""What the review page reads and writes: the suite's cases, one case's edits, progress.

Pure rules for an edit (which fields a person may change, what a key point looks like)
plus the calls into :mod:`.store` that save it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import DictbenchError
from ..suites import MANIFEST, read_toml
from .store import APPROVED, DRAFT, Snapshot, is_draft, read_cases, save_cases

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
    return {
        "suite": {k: manifest.get(k) for k in ("id", "title", "locale", "method")}
        | {"private": bool(manifest.get("private", False))},
        "fingerprint": snapshot.fingerprint,
        "cases": list(snapshot.rows),
        **progress(snapshot.rows),
    }


def _key_points(value: Any) -> list[dict[str, str]]:
    """Validated key points; a point without an id (or with a repeated one) gets a new
    ``k<n>`` id that no other point of the case uses."""
    if not isinstance(value, list):
        raise EditError("key_points must be a list")
    points: list[dict[str, str]] = []
    for n, point in enumerate(value, start=1):
        if not isinstance(point, Mapping) or not isinstance(point.get("text"), str):
            raise EditError(f"key point {n} has no text")
        text = point["text"].strip()
        if not text:
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
        new["reference"] = edit["reference"].strip()
    if "key_points" in edit:
        new["key_points"] = _key_points(edit["key_points"])
    if "status" in edit:
        if edit["status"] not in (DRAFT, APPROVED):
            raise EditError("status must be draft or approved")
        if edit["status"] == APPROVED and not new.get("reference", "").strip():
            raise EditError("a case without a transcript cannot be approved")
        new["status"] = edit["status"]
    return new


def update_case(root: Path, fingerprint: str, edit: Mapping[str, Any]) -> dict[str, Any]:
    """Apply an edit to one case and save (refused if the file changed on disk)."""
    snapshot: Snapshot = read_cases(root)
    case_id = edit.get("id")
    if not isinstance(case_id, str):
        raise EditError("the edit names no case id")
    row = snapshot.row(case_id)  # raises for an unknown id
    method = read_toml(root / MANIFEST).get("method")
    for name in ("reference", "key_points"):  # never add a field the method refuses
        if name in edit and name not in row and method != "keypoints":
            raise EditError(f"cases of method {method!r} have no {name!r} to edit here")
    rows = [apply_edit(r, edit) if r.get("id") == case_id else r for r in snapshot.rows]
    new_fingerprint = save_cases(root, rows, fingerprint)
    return {"fingerprint": new_fingerprint,
            "case": next(r for r in rows if r.get("id") == case_id), **progress(rows)}
