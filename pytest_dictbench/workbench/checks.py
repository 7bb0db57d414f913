"""Whether one case, as the review page would save it, still lets the suite load.

A save is checked before anything is written, and only the edited case is checked: a
problem in another case is shown on the page as a warning, never as the reason a save
failed. A draft case is held to the common case schema and the text limit (its key
points may still be missing); an approved one also to its method's case schema, and its
audio must be a readable sound file inside the suite.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..audio.io import audio_info
from ..errors import DictbenchError, SuiteError
from ..schemas import validation_error
from ..suites import DEFAULT_MAX_TEXT_CHARS, REVIEW_FIELDS, check_text_sizes

__all__ = ["audio_path", "case_problem", "method_schema"]


def method_schema(method: Any) -> str | None:
    """The case schema of a built-in method (``None`` for one a plugin adds)."""
    from ..methods.builtin import builtin_methods

    found = {m.name: m for m in builtin_methods()}.get(str(method))
    return found.case_schema if found is not None else None


def audio_path(root: Path, audio: str) -> Path | None:
    """``root / audio`` when it stays inside the suite folder, else ``None``."""
    candidate = Path(audio)
    if candidate.is_absolute() or \
            not (root / candidate).resolve().is_relative_to(root.resolve()):
        return None
    return root / candidate


def _audio_problem(root: Path, audio: Any) -> str | None:
    if not isinstance(audio, str):
        return None
    path = audio_path(root, audio)
    if path is None:
        return f"audio {audio!r} leaves the suite folder"
    if not path.is_file():
        return f"audio {audio!r} is missing or is not a file"
    try:
        audio_info(path)
    except (DictbenchError, OSError) as exc:
        return f"audio {audio!r} cannot be read: {exc}"
    return None


def case_problem(root: Path, row: Mapping[str, Any], method: Any) -> str | None:
    """Why ``row`` would not load as a case of a suite of ``method`` (``None``: it would)."""
    name = row.get("id")
    label = f"case {name!r}" if isinstance(name, str) else "a case"
    problem = validation_error(dict(row), "case.schema.json")
    if problem is None:
        try:
            check_text_sizes(dict(row), DEFAULT_MAX_TEXT_CHARS, SuiteError, path=None,
                             line=None, what="")
        except SuiteError as exc:
            problem = str(exc)
    if problem is None and row.get("status") != "draft":
        schema = method_schema(method)
        if schema is not None:
            problem = validation_error({k: v for k, v in row.items()
                                        if k not in REVIEW_FIELDS}, schema)
            if problem is not None and "key_points" in problem and \
                    not row.get("key_points"):
                problem = "add at least one key point"
        if problem is None:
            problem = _audio_problem(root, row.get("audio"))
    elif problem is None and isinstance(row.get("audio"), str) and \
            audio_path(root, row["audio"]) is None:
        problem = f"audio {row['audio']!r} leaves the suite folder"
    return None if problem is None else f"{label}: {problem}"
