"""``dictbench new``: a suite from a folder of your own recordings.

The method follows what is given: reference transcripts make an ``error_rate`` suite;
a dataset with ``verbatim_transcript`` and ``intended_transcript`` columns (JSON Lines,
Parquet or a HuggingFace ``save_to_disk`` folder, read by ``datasets.read_rows``) makes a
``verbatim`` suite through ``datasets.write_suite``.

Two ways to give the transcripts:

- a folder of recordings (``.wav`` or ``.flac``) with a ``.txt`` of the same name beside
  each (``note-01.wav`` + ``note-01.txt``), searched recursively;
- a manifest: a ``.csv`` or ``.tsv`` file with a header row, or a ``.jsonl`` file, with
  the columns ``audio`` (a path relative to the manifest) and ``reference`` (also
  accepted: ``text``, ``transcript``, ``sentence``), and optionally ``id``.

The suite gets ``suite.toml``, ``cases.jsonl`` and ``audio/<case id><ext>``: each
recording copied with the suite's canary added as a tag (``audio/canary_tag.py``; the
audio itself is not re-encoded), and every file's sha256 under ``[[files]]``, so the
suite passes ``pytest --dictbench-verify`` as written. A bad input is refused before
anything is written, naming the file (and the manifest line).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import shutil
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from .audio.canary_tag import TAGGED_SUFFIXES, with_canary
from .audio.io import AudioError, audio_info, sha256_file
from .errors import SuiteError
from .files import read_regular
from .jsonl import read_jsonl
from .schemas import validate
from .suites import MANIFEST, inside

__all__ = ["Recording", "add_canary", "find_recordings", "new_suite", "read_manifest",
           "suite_id_for"]

#: Manifest columns accepted for the reference transcript, in order of preference.
REFERENCE_COLUMNS = ("reference", "text", "transcript", "sentence")
_CASE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_SUITE_ID = re.compile(r"[a-z0-9][a-z0-9._-]*")


@dataclass(frozen=True)
class Recording:
    """One recording and its reference transcript."""

    id: str
    audio: Path
    reference: str
    #: where it came from, for messages: ``notes.csv:3`` or ``note-01.txt``
    where: str


def suite_id_for(folder: Path) -> str:
    """A valid suite id from a folder name (lower case, other characters as ``-``)."""
    cleaned = re.sub(r"[^a-z0-9._-]+", "-", folder.name.lower()).strip("-._")
    return cleaned or "my-suite"


def _case_id(raw: str, taken: set[str], where: str, path: Path) -> str:
    case_id = raw if _CASE_ID.fullmatch(raw) else re.sub(
        r"[^A-Za-z0-9._-]+", "-", raw).strip("-._")
    if not case_id:
        raise SuiteError(f"{where}: {raw!r} gives no usable case id (letters, digits, "
                         "'.', '_', '-'); add an id column", path=path)
    if case_id in taken:
        raise SuiteError(f"{where}: case id {case_id!r} is used twice", path=path)
    taken.add(case_id)
    return case_id


def _reference(text: str, where: str, path: Path) -> str:
    cleaned = text.strip()
    if not cleaned:
        raise SuiteError(f"{where}: the reference transcript is empty", path=path)
    return cleaned


def find_recordings(folder: Path) -> list[Recording]:
    """Each ``.wav``/``.flac`` under ``folder`` with the ``.txt`` of the same name."""
    audio = sorted(p for p in folder.rglob("*") if p.suffix.lower() in TAGGED_SUFFIXES
                   and p.is_file())
    if not audio:
        raise SuiteError("no .wav or .flac recordings here (give a folder of recordings "
                         "with a .txt transcript beside each, or a .csv/.tsv/.jsonl "
                         "manifest)", path=folder)
    taken: set[str] = set()
    recordings = []
    for path in audio:
        transcript = path.with_suffix(".txt")
        if not transcript.is_file():
            raise SuiteError(f"no transcript beside it: write the words spoken into "
                             f"{transcript.name}", path=path)
        try:
            text = read_regular(transcript, SuiteError).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SuiteError(f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                             path=transcript) from None
        stem = path.relative_to(folder).with_suffix("").as_posix().replace("/", "-")
        recordings.append(Recording(_case_id(stem, taken, path.name, path), path,
                                    _reference(text, transcript.name, transcript),
                                    transcript.name))
    return recordings


def _records(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    """(line, row) of a CSV/TSV (with a header row) or JSON Lines manifest."""
    if path.suffix.lower() == ".jsonl":
        yield from read_jsonl(path, SuiteError)
        return
    if path.suffix.lower() not in (".csv", ".tsv"):
        raise SuiteError("a manifest is a .csv, .tsv or .jsonl file", path=path)
    try:
        text = read_regular(path, SuiteError).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SuiteError(f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                         path=path) from None
    reader = csv.DictReader(io.StringIO(text, newline=""),
                            delimiter="\t" if path.suffix.lower() == ".tsv" else ",",
                            strict=True)
    try:
        for row in reader:
            if None in row or None in row.values():
                raise SuiteError(f"{len(reader.fieldnames or [])} columns in the header, "
                                 "another number on this line", path=path,
                                 line=reader.line_num)
            yield reader.line_num, row
    except csv.Error as exc:
        raise SuiteError(f"not valid CSV: {exc}", path=path, line=reader.line_num) from None


def read_manifest(path: Path) -> list[Recording]:
    """The recordings a manifest lists, audio paths relative to its folder."""
    taken: set[str] = set()
    recordings = []
    for line, row in _records(path):
        where = f"line {line}"
        if not isinstance(row, dict):
            raise SuiteError("each line must be a JSON object", path=path, line=line)
        column = next((c for c in REFERENCE_COLUMNS if c in row), None)
        if "audio" not in row or column is None:
            raise SuiteError(f"the columns 'audio' and 'reference' are needed (present: "
                             f"{', '.join(sorted(map(str, row))) or 'none'})",
                             path=path, line=line)
        name, text = row["audio"], row[column]
        if not isinstance(name, str) or not name or not isinstance(text, str):
            raise SuiteError("'audio' must be a file name and "
                             f"'{column}' a text", path=path, line=line)
        audio = inside(path.parent, name, what="audio", where=f"{path}:{line}")
        if not audio.is_file():
            raise SuiteError(f"the audio file {name!r} does not exist", path=path, line=line)
        if audio.suffix.lower() not in TAGGED_SUFFIXES:
            raise SuiteError(f"{name!r} is not a .wav or .flac file (convert it first, e.g. "
                             "sox IN.mp3 OUT.wav)", path=path, line=line)
        raw_id = row.get("id") or Path(name).with_suffix("").as_posix().replace("/", "-")
        if not isinstance(raw_id, str):
            raise SuiteError("'id' must be a text", path=path, line=line)
        try:
            case_id = _case_id(raw_id, taken, where, path)
            reference = _reference(text, where, path)
        except SuiteError as exc:
            raise SuiteError(str(exc).split(f"{where}: ", 1)[-1], path=path, line=line) \
                from None
        recordings.append(Recording(case_id, audio, reference, f"{path.name}:{line}"))
    if not recordings:
        raise SuiteError("the manifest lists no recordings", path=path)
    return recordings


@dataclass
class NewSuite:
    """What :func:`new_suite` wrote."""

    root: Path
    suite_id: str
    cases: int
    seconds: float


def new_suite(source: Path, out: Path, *, suite_id: str | None = None,
              title: str | None = None, locale: str = "en-US", threshold: float = 0.15,
              unit: str | None = None) -> NewSuite:
    """Write an ``error_rate`` suite at ``out`` from a recordings folder or a manifest."""
    if not source.exists():
        raise SuiteError("no such folder or file", path=source)
    if _verbatim_source(source):  # verbatim and intended transcripts: a verbatim suite
        return _new_verbatim(source, out, suite_id=suite_id or suite_id_for(out),
                             title=title, locale=locale)
    recordings = find_recordings(source) if source.is_dir() else read_manifest(source)
    suite_id = suite_id or suite_id_for(out)
    if not _SUITE_ID.fullmatch(suite_id):
        raise SuiteError(f"--id {suite_id!r} is not a suite id (lower case letters, digits, "
                         "'.', '_', '-')")
    if out.exists() and any(out.iterdir()):
        raise SuiteError("the folder exists and is not empty; choose a new --out folder",
                         path=out)
    canary = f"DICTBENCH-CANARY {suite_id} {uuid.uuid4()}"
    seconds = 0.0
    tagged: list[tuple[Recording, str, bytes]] = []
    for rec in recordings:  # every recording read and tagged before anything is written
        try:
            seconds += audio_info(rec.audio).duration
        except AudioError as exc:
            raise SuiteError(f"not a readable recording ({exc})", path=rec.audio) from None
        rel = f"audio/{rec.id}{rec.audio.suffix.lower()}"
        tagged.append((rec, rel, with_canary(read_regular(rec.audio, SuiteError), canary,
                                             where=rec.audio)))
    manifest: dict[str, Any] = {
        "id": suite_id, "version": "1.0.0", "title": title or f"Recordings of {out.name}",
        "method": "error_rate", "locale": locale, "canary": canary, "repetitions": 1,
        "params": {"threshold": threshold,
                   **({"unit": unit} if unit else {})},
    }
    validate(manifest, "suite.schema.json", SuiteError, path=out / MANIFEST)
    cases = [{"id": rec.id, "canary": canary, "reference": rec.reference, "audio": rel}
             for rec, rel, _ in tagged]
    build = out.parent / f".{out.name}.new-{uuid.uuid4().hex[:8]}"
    try:
        (build / "audio").mkdir(parents=True)
        for _, rel, data in tagged:
            (build / rel).write_bytes(data)
        (build / "cases.jsonl").write_text(
            "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
        manifest["files"] = [{"path": rel, "sha256": sha256_file(build / rel)}
                             for rel in ["cases.jsonl", *(rel for _, rel, _ in tagged)]]
        (build / MANIFEST).write_text(tomli_w.dumps(manifest), encoding="utf-8")
        if out.exists():
            out.rmdir()  # empty, checked above
        build.rename(out)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    return NewSuite(out, suite_id, len(cases), seconds)


def add_canary(suite_path: Path) -> list[str]:
    """Add the suite's canary as a tag to each WAV/FLAC data file that lacks it, then
    refresh the suite's digests (``dictbench canary SUITE``); the files tagged, relative
    to the suite. Only the metadata changes: the audio is not re-encoded."""
    from .files import atomic_replace
    from .hashes import refresh_hashes
    from .suites import canary_status, data_files, load_suite

    suite = load_suite(suite_path)
    missing = {rel for rel, ok in canary_status(suite).items() if not ok}
    tagged = []
    for path in data_files(suite):
        rel = path.relative_to(suite.root).as_posix()
        if rel in missing and path.suffix.lower() in TAGGED_SUFFIXES:
            data = with_canary(read_regular(path, SuiteError), suite.canary, where=path)
            atomic_replace(path, lambda tmp, data=data: tmp.write_bytes(data))
            tagged.append(rel)
    if tagged:
        refresh_hashes(suite_path)
    return tagged


def _verbatim_source(source: Path) -> bool:
    """A dataset in the verbatim layout (``verbatim_transcript`` and
    ``intended_transcript`` columns): a HuggingFace ``save_to_disk`` folder, Parquet, or
    JSON Lines whose first row has those columns."""
    from .datasets import _is_hf_folder

    if _is_hf_folder(source) or source.suffix == ".parquet" or (
            source.is_dir() and any(source.rglob("*.parquet"))):
        return True
    if source.suffix.lower() == ".jsonl" and source.is_file():
        first = next(iter(read_jsonl(source, SuiteError)), None)
        return first is not None and {"verbatim_transcript", "intended_transcript"} <= set(
            first[1])
    return False


def _new_verbatim(source: Path, out: Path, *, suite_id: str, title: str | None,
                  locale: str) -> NewSuite:
    from .datasets import read_rows, write_suite

    if out.exists() and any(out.iterdir()):
        raise SuiteError("the folder exists and is not empty; choose a new --out folder",
                         path=out)
    rows = read_rows(source)
    write_suite(rows, out, suite_id=suite_id, canary=f"DICTBENCH-CANARY {suite_id} "
                f"{uuid.uuid4()}", title=title or f"Recordings of {out.name}", locale=locale,
                overwrite=True)
    seconds = 0.0
    for row in rows:  # an unreadable file adds nothing: the suite's audio check names it
        if row.audio_path is not None and row.audio_path.is_file():
            with contextlib.suppress(AudioError):
                seconds += audio_info(row.audio_path).duration
    return NewSuite(out, suite_id, len(rows), seconds)
