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

__all__ = ["audio_path", "case_problem", "method_schema", "project_max_text_chars"]

#: pytest's configuration files, in the order pytest looks for them in one folder, and
#: the section each keeps its options in (``pyproject.toml`` counts only with that table).
_INI_FILES = (("pytest.ini", "pytest"), (".pytest.ini", "pytest"),
              ("pyproject.toml", "tool.pytest.ini_options"), ("tox.ini", "pytest"),
              ("setup.cfg", "tool:pytest"))


def _ini_value(path: Path, section: str, name: str) -> tuple[bool, str | None]:
    """Whether ``path`` is pytest's configuration file, and its value of ``name``."""
    import configparser
    import tomllib

    try:
        if path.suffix == ".toml":
            table: Any = tomllib.loads(path.read_text(encoding="utf-8"))
            for part in section.split("."):
                table = table.get(part) if isinstance(table, dict) else None
            if not isinstance(table, dict):
                return False, None
            value = table.get(name)
            return True, None if value is None else str(value)
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, configparser.Error) as exc:
        raise SuiteError(f"cannot read pytest's settings: {exc}", path=path) from None
    if not parser.has_section(section):
        return path.name in ("pytest.ini", ".pytest.ini"), None
    return True, parser.get(section, name, fallback=None)


def project_max_text_chars(root: Path) -> int:
    """The project's ini ``dictbench_max_text_chars`` (the pytest configuration file
    nearest above ``root``, as pytest finds it from there), else the default, so that a
    save is checked against the limit the benchmark run will apply."""
    for folder in (root.resolve(), *root.resolve().parents):
        for name, section in _INI_FILES:
            if not (folder / name).is_file():
                continue
            found, value = _ini_value(folder / name, section, "dictbench_max_text_chars")
            if not found:
                continue
            if value is None:
                return DEFAULT_MAX_TEXT_CHARS
            raw = value.strip().replace("_", "")
            if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
                raise SuiteError(f"dictbench_max_text_chars must be an integer >= 1, not "
                                 f"{value!r}", path=folder / name)
            return int(raw)
    return DEFAULT_MAX_TEXT_CHARS


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


def case_problem(root: Path, row: Mapping[str, Any], method: Any,
                 max_text_chars: int = DEFAULT_MAX_TEXT_CHARS) -> str | None:
    """Why ``row`` would not load as a case of a suite of ``method`` (``None``: it would)
    under a text limit of ``max_text_chars``."""
    name = row.get("id")
    label = f"case {name!r}" if isinstance(name, str) else "a case"
    problem = validation_error(dict(row), "case.schema.json")
    if problem is None:
        try:
            check_text_sizes(dict(row), max_text_chars, SuiteError, path=None,
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
