"""Loading suite folders: ``suite.toml`` + ``cases.jsonl``, validated, with canary checks."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import SuiteError
from .jsonl import read_jsonl, read_text
from .model import Case, Suite, SuiteFile
from .schemas import validate

__all__ = ["MANIFEST", "canary_status", "data_files", "inside", "load_suite", "read_toml"]

#: File name of a suite manifest.
MANIFEST = "suite.toml"

#: Case fields of the review workflow (``dictbench draft`` / ``review``), allowed in every
#: method's cases: ``status`` (draft or approved) and ``drafted`` (where a draft came from).
REVIEW_FIELDS = frozenset({"status", "drafted"})


def read_toml(path: Path, error: type[SuiteError] | Any = SuiteError) -> dict[str, Any]:
    """Parse a TOML file; syntax errors name the file and line."""
    text = read_text(path, error)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"malformed TOML: {exc}", path=path) from None


def inside(root: Path, relative: str, *, what: str, where: Path) -> Path:
    """``root / relative``, refusing absolute paths and paths that leave ``root``."""
    candidate = Path(relative)
    resolved = (root / candidate).resolve()
    if candidate.is_absolute() or not resolved.is_relative_to(root.resolve()):
        raise SuiteError(f"{what} {relative!r} leaves the suite folder", path=where)
    return root / candidate


def load_suite(path: Path, case_schema: Callable[[str], str | None] = lambda m: None) -> Suite:
    """Load the suite at ``path`` (its folder or its ``suite.toml``).

    ``case_schema`` maps the suite's method name to the method's case schema file name.
    """
    manifest_path = path / MANIFEST if path.is_dir() else path
    if not manifest_path.is_file():
        raise SuiteError("no suite manifest here", path=manifest_path)
    root = manifest_path.parent
    manifest = read_toml(manifest_path)
    validate(manifest, "suite.schema.json", SuiteError, path=manifest_path)
    cases_path = inside(root, manifest.get("cases", "cases.jsonl"), what="cases file",
                        where=manifest_path)
    if not cases_path.is_file():
        raise SuiteError(f"cases file {cases_path.name!r} not found", path=manifest_path)
    method_schema = case_schema(manifest["method"])
    cases = _load_cases(cases_path, method_schema)
    for case in cases:
        if "audio" in case.data:
            inside(root, case.data["audio"], what=f"audio of case {case.id!r}",
                   where=cases_path)
    files = tuple(SuiteFile(e["path"], e.get("sha256")) for e in manifest.get("files", ()))
    for entry in files:
        inside(root, entry.path, what="listed file", where=manifest_path)
    known = ("id", "version", "title", "method", "locale", "canary", "repetitions",
             "params", "files")
    return Suite(
        id=manifest["id"], version=manifest["version"], title=manifest["title"],
        method=manifest["method"], locale=manifest["locale"], canary=manifest["canary"],
        root=root, cases=tuple(c for c in cases if c.data.get("status") != "draft"),
        params=manifest.get("params", {}), files=files,
        repetitions=manifest.get("repetitions", 1),
        manifest={k: v for k, v in manifest.items() if k not in known},
        drafts=tuple(c for c in cases if c.data.get("status") == "draft"),
    )


def _load_cases(path: Path, method_schema: str | None) -> tuple[Case, ...]:
    cases: list[Case] = []
    first_line: dict[str, int] = {}
    for number, obj in read_jsonl(path, SuiteError):
        validate(obj, "case.schema.json", SuiteError, path=path, line=number)
        if method_schema:  # review bookkeeping is checked by the common schema only
            validate({k: v for k, v in obj.items() if k not in REVIEW_FIELDS}, method_schema,
                     SuiteError, path=path, line=number, prefix=f"case {obj['id']!r}: ")
        case_id = obj["id"]
        if case_id in first_line:
            raise SuiteError(f"duplicate case id {case_id!r} (first on line "
                             f"{first_line[case_id]})", path=path, line=number)
        first_line[case_id] = number
        cases.append(Case(id=case_id, data=obj, line=number))
    if not cases:
        raise SuiteError("the cases file holds no cases", path=path)
    return tuple(cases)


def data_files(suite: Suite) -> list[Path]:
    """Every data file of the suite: the cases file, listed files and case audio."""
    paths = {suite.root / suite.manifest.get("cases", "cases.jsonl")}
    paths.update(suite.root / f.path for f in suite.files)
    paths.update(suite.root / c.data["audio"] for c in (*suite.cases, *suite.drafts)
                 if "audio" in c.data)
    return sorted(paths)


def canary_status(suite: Suite) -> dict[str, bool]:
    """For each data file (relative path), whether its bytes contain the canary."""
    canary = suite.canary.encode("utf-8")
    status = {}
    for path in data_files(suite):
        rel = path.relative_to(suite.root).as_posix()
        try:
            status[rel] = canary in path.read_bytes()
        except OSError:
            status[rel] = False
    return status
