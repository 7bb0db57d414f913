"""Loading suite folders: ``suite.toml`` + ``cases.jsonl``, validated, with canary checks."""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import SuiteError
from .files import read_regular
from .jsonl import read_jsonl, read_text
from .model import Case, Suite, SuiteFile
from .schemas import validate
from .shared_values import share_strings

__all__ = [
    "DEFAULT_MAX_TEXT_CHARS",
    "MANIFEST",
    "canary_status",
    "check_cases_digest",
    "check_text_sizes",
    "data_files",
    "inside",
    "load_suite",
    "read_toml",
    "suite_seed",
    "unpaired_surrogate",
]

#: File name of a suite manifest.
MANIFEST = "suite.toml"
#: Longest text (a reference, an expected output, a product's output) in characters,
#: unless ``--dictbench-max-text-chars`` or ini ``dictbench_max_text_chars`` says
#: otherwise: about 30,000 words, several hours of speech.
DEFAULT_MAX_TEXT_CHARS = 200_000


_SURROGATE = re.compile("[\ud800-\udfff]")


def unpaired_surrogate(text: str) -> str | None:
    """Why ``text`` is not valid Unicode text (it holds a lone UTF-16 surrogate, which
    no file can be written with), else None."""
    found = _SURROGATE.search(text)
    if found is None:
        return None
    return (f"holds an unpaired surrogate (U+{ord(found[0]):04X} at character "
            f"{found.start() + 1}), which is not valid Unicode text")


def check_text_sizes(obj: Any, limit: int, error: type[SuiteError] | Any, *, path: Path,
                     line: int | None, what: str) -> None:
    """Raise ``error`` naming ``path:line`` when a string anywhere in ``obj`` is longer
    than ``limit`` characters or holds an unpaired surrogate."""
    if _plain(obj, limit):
        return
    found = _text_problem(obj, limit)
    if found is not None:
        keys, problem = found
        raise error(f"{what}{'/'.join(reversed(keys)) or 'text'} {problem}", path=path,
                    line=line)


def _plain(value: Any, limit: int) -> bool:
    """A quick yes for what most lines hold: a string, or an object of strings and
    numbers, whose strings are ASCII (so no surrogate) and within ``limit``."""
    for child in value.values() if isinstance(value, dict) else (value,):
        if isinstance(child, str):
            if len(child) > limit or not child.isascii():
                return False
        elif not isinstance(child, (int, float, type(None))):
            return False
    return True


def _text_problem(value: Any, limit: int) -> tuple[list[str], str] | None:
    """The first string of ``value`` that is too long or no valid Unicode: its keys
    from the innermost out, and what is wrong (JSON nests at most ``MAX_DEPTH`` deep)."""
    if isinstance(value, str):
        if len(value) > limit:
            return [], (f"has {len(value):,} characters, more than the limit of {limit:,} "
                        "(--dictbench-max-text-chars)")
        problem = None if value.isascii() else unpaired_surrogate(value)
        return ([], problem) if problem else None
    if isinstance(value, dict):
        children: Any = value.items()
    elif isinstance(value, list):
        children = enumerate(value)
    else:
        return None
    for key, child in children:
        if not isinstance(child, (int, float, type(None))) and \
                (found := _text_problem(child, limit)) is not None:
            found[0].append(str(key))
            return found
    return None

#: Case fields of the review workflow (``dictbench draft`` / ``review``), allowed in every
#: method's cases: ``status`` (draft or approved) and ``drafted`` (where a draft came from).
REVIEW_FIELDS = frozenset({"status", "drafted"})
#: Case fields whose values repeat from case to case (each value held once per suite).
_SHARED_CASE_FIELDS = ("canary", "genre", "source", "short", "status")


def read_toml(path: Path, error: type[SuiteError] | Any = SuiteError, *,
              dates: bool = True) -> dict[str, Any]:
    """Parse a TOML file; syntax errors name the file and line. A number that is not
    finite (``inf``, ``nan``) is refused naming its key, and so are dates and times
    unless ``dates`` (a product file's values are strings, numbers and booleans)."""
    text = read_text(path, error)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _toml_error(str(exc), text, error, path) from None
    except RecursionError:
        raise error("TOML nested too deeply to read", path=path) from None
    _check_values(data, "", error, path, dates=dates)
    return data


_TOML_AT = re.compile(r"\s*\(at line (\d+), column \d+\)$")


def _toml_error(message: str, text: str, error: Any, path: Path) -> Exception:
    """``path:5: the key 'version' is set twice`` for a repeated key (worded like the
    JSON readers' duplicate key), else ``path:LINE: malformed TOML: ...`` (CF30)."""
    found = _TOML_AT.search(message)
    line = int(found[1]) if found else None
    reason = _TOML_AT.sub("", message)
    if line and reason.startswith(("Cannot overwrite a value", "Cannot declare")):
        source = text.splitlines()[line - 1] if line <= len(text.splitlines()) else ""
        key = source.split("=", 1)[0].strip().strip("[]").strip()
        if key:
            return error(f"the key {key!r} is set twice", path=path, line=line)
    return error(f"malformed TOML: {reason}", path=path, line=line)


def _check_values(value: Any, key: str, error: Any, path: Path, *, dates: bool) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise error(f"{key} is {value}: every number must be finite", path=path)
    if not dates and isinstance(value, (dt.date, dt.time)):
        raise error(f"{key} is a TOML {type(value).__name__} ({value.isoformat()}); write it "
                    f"as a string (\"{value.isoformat()}\")", path=path)
    if isinstance(value, dict):
        for name, item in value.items():
            _check_values(item, f"{key}.{name}" if key else str(name), error, path, dates=dates)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_values(item, f"{key}[{index}]", error, path, dates=dates)


def inside(root: Path, relative: str, *, what: str, where: Path) -> Path:
    """``root / relative``, refusing absolute paths and paths that leave ``root``."""
    candidate = Path(relative)
    resolved = (root / candidate).resolve()
    if candidate.is_absolute() or not resolved.is_relative_to(root.resolve()):
        raise SuiteError(f"{what} {relative!r} leaves the suite folder", path=where)
    return root / candidate


def load_suite(path: Path, case_schema: Callable[[str], str | None] = lambda m: None, *,
               max_text_chars: int = DEFAULT_MAX_TEXT_CHARS) -> Suite:
    """Load the suite at ``path`` (its folder or its ``suite.toml``).

    ``case_schema`` maps the suite's method name to the method's case schema file name;
    a case holding a text longer than ``max_text_chars`` characters is refused.
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
    cases = _load_cases(cases_path, method_schema, max_text_chars)
    for case in cases:
        if "audio" in case.data:
            inside(root, case.data["audio"], what=f"audio of case {case.id!r}",
                   where=cases_path)
    files = tuple(SuiteFile(e["path"], e.get("sha256"), e.get("case_id"), e.get("voice"),
                            e.get("duration")) for e in manifest.get("files", ()))
    for entry in files:
        inside(root, entry.path, what="listed file", where=manifest_path)
    known = ("id", "version", "title", "method", "locale", "canary", "repetitions",
             "params", "files")
    return Suite(
        id=manifest["id"], version=manifest["version"], title=manifest["title"],
        method=manifest["method"], locale=manifest["locale"], canary=manifest["canary"],
        root=root, cases=tuple(c for c in cases if c.data.get("status") != "draft"),
        params=manifest.get("params", {}), files=files,
        repetitions=int(manifest.get("repetitions", 1)),  # the schema allows 2.0
        manifest={k: v for k, v in manifest.items() if k not in known},
        drafts=tuple(c for c in cases if c.data.get("status") == "draft"),
    )


def suite_seed(suite: Suite, name: str) -> int | None:
    """The suite's own seed ``name`` from its ``[seeds]`` table (``bootstrap``: intervals
    and paired comparisons; ``voices``: ``dictbench synth``'s voice assignment), or
    ``None`` when it sets none. The schema checked it is a whole number >= 0."""
    value = (suite.manifest.get("seeds") or {}).get(name)
    return None if value is None else int(value)  # the schema allows 7.0


def _load_cases(path: Path, method_schema: str | None, max_text_chars: int
                ) -> tuple[Case, ...]:
    cases: list[Case] = []
    first_line: dict[str, int] = {}
    shared: dict[str, str] = {}
    for number, obj in read_jsonl(path, SuiteError):
        validate(obj, "case.schema.json", SuiteError, path=path, line=number)
        check_text_sizes(obj, max_text_chars, SuiteError, path=path, line=number,
                         what=f"case {obj['id']!r}: ")
        # a draft is no benchmark item: its method's schema applies once it is approved
        # (a drafted case may lack key points or a transcript until someone reviews it)
        if method_schema and obj.get("status") != "draft":
            validate({k: v for k, v in obj.items() if k not in REVIEW_FIELDS}, method_schema,
                     SuiteError, path=path, line=number, prefix=f"case {obj['id']!r}: ")
        case_id = obj["id"]
        if case_id in first_line:
            raise SuiteError(f"duplicate case id {case_id!r} (first on line "
                             f"{first_line[case_id]})", path=path, line=number)
        first_line[case_id] = number
        share_strings(obj, _SHARED_CASE_FIELDS, shared)
        cases.append(Case(id=case_id, data=obj, line=number))
    if not cases:
        raise SuiteError("the cases file holds no cases", path=path)
    return tuple(cases)


#: SHA-256 of files already hashed in this process, by (real path, size, mtime).
_DIGESTS: dict[tuple[Path, int, int], str] = {}


def _lf_digest(path: Path) -> str | None:
    """SHA-256 of the file with CRLF line ends made LF (None when it has none)."""
    data = read_regular(path, SuiteError)
    if b"\r\n" not in data:
        return None
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest()


def _sha256(path: Path) -> str:
    stat = path.stat()
    key = (path.resolve(), stat.st_size, stat.st_mtime_ns)
    if key not in _DIGESTS:
        from .audio.io import sha256_file

        _DIGESTS[key] = sha256_file(path)
    return _DIGESTS[key]


def check_cases_digest(suite: Suite) -> None:
    """Refuse a cases file whose SHA-256 differs from the one ``suite.toml`` lists.

    A benchmark run reads the cases file (live products also read the audio, whose
    digests they check as they capture); a suite changed after it was hashed must not
    give a normal report. Each file is hashed once per process.
    """
    cases = suite.manifest.get("cases", "cases.jsonl")
    listed = {Path(f.path).as_posix().removeprefix("./"): f.sha256 for f in suite.files}
    expected = listed.get(Path(cases).as_posix().removeprefix("./"))
    if not expected:
        return
    path = suite.root / cases
    actual = _sha256(path)
    if actual != expected and _lf_digest(path) == expected:
        raise SuiteError(
            "the file has CRLF line ends, and with LF line ends it matches the sha256 "
            f"{MANIFEST} lists: the checkout converted its line ends (git "
            "core.autocrlf=true), the data is unchanged. Fix the checkout, not the "
            "digest: `git config core.autocrlf false`, then `git rm --cached -r -q . && "
            "git reset --hard` (the repository's .gitattributes keeps suite data byte for "
            "byte); do not run 'dictbench hash', which would bless the CRLF bytes",
            path=path)
    if actual != expected:
        raise SuiteError(f"sha256 is {actual}, but {MANIFEST} lists {expected}: the suite was "
                         "changed after it was hashed (run 'dictbench hash' if the change "
                         "is intended)", path=path)


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
        try:  # a FIFO or a device in a file's place is never opened for reading
            status[rel] = canary in read_regular(path, SuiteError)
        except SuiteError:
            status[rel] = False
    return status
