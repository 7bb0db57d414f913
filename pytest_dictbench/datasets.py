"""Reading verbatim speech datasets and writing them out as dictbench suites.

The common layout has one row per utterance with the columns ``id``, ``audio``,
``verbatim_transcript`` and ``intended_transcript``. Three sources are read:

- a folder written by the HuggingFace ``datasets`` library (``save_to_disk``); needs the
  optional ``datasets`` package (``pip install 'pytest-dictbench[datasets]'``), imported
  only when such a folder is read;
- Parquet files (one file, or every ``*.parquet`` under a folder, in name order);
- a JSON Lines file, with ``audio`` naming a file in an audio folder (by default the
  folder of the JSONL file).

``audio`` may be a path (relative to the source) or a HuggingFace-style mapping with
``bytes`` and/or ``path``; embedded bytes win over a path. Nothing is downloaded.

:func:`write_suite` writes ``suite.toml``, ``cases.jsonl`` (cases in the
``verbatim`` method's format, audio paths relative to the suite folder) and the audio
files into a suite folder. WAV and FLAC audio gets the suite's canary as a comment tag
(``audio/canary_tag.py``; the audio itself is not re-encoded), so the suite passes the
canary check; audio in another container is copied as it came and fails that check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from .audio.canary_tag import TAGGED_SUFFIXES, with_canary
from .audio.io import sha256_file
from .errors import SuiteError
from .jsonl import read_jsonl
from .schemas import validate
from .suites import inside

__all__ = ["COLUMNS", "VerbatimRow", "read_rows", "rows_to_cases", "write_suite"]

#: The columns every source provides (``audio`` may be empty).
COLUMNS = ("id", "audio", "verbatim_transcript", "intended_transcript")
_CASE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_AUDIO_MAGIC = ((b"RIFF", ".wav"), (b"fLaC", ".flac"), (b"OggS", ".ogg"), (b"ID3", ".mp3"),
                (b"\xff\xfb", ".mp3"), (b"\xff\xf3", ".mp3"))


@dataclass(frozen=True)
class VerbatimRow:
    """One utterance of a source dataset."""

    #: A valid case id (the source id, made safe when it was not one).
    id: str
    verbatim: str
    intended: str
    #: The source id when it had to be changed to make :attr:`id`.
    source_id: str | None = None
    #: An existing audio file to copy ...
    audio_path: Path | None = None
    #: ... or the audio itself, embedded in the source.
    audio_bytes: bytes | None = None
    #: File name the source gives the audio (for its extension), if any.
    audio_name: str | None = None

    @property
    def has_audio(self) -> bool:
        return self.audio_path is not None or self.audio_bytes is not None


def _safe_id(raw: str, index: int) -> str:
    if _CASE_ID.fullmatch(raw):
        return raw
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", raw).lstrip("._-")
    return cleaned or f"row-{index + 1}"


def _inside(base: Path, name: str, where: str, source: Path) -> Path:
    """``base / name`` for an audio path from the data, which must stay inside ``base``."""
    return inside(base, name, what=f"{where}: audio", where=source)


def _audio(value: Any, base: Path, where: str, source: Path) -> dict[str, Any]:
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        return {"audio_path": _inside(base, value, where, source), "audio_name": value}
    if isinstance(value, Mapping):
        data, name = value.get("bytes"), value.get("path")
        if data:
            return {"audio_bytes": bytes(data), "audio_name": name}
        if name:
            return {"audio_path": _inside(base, name, where, source), "audio_name": name}
        return {}
    raise SuiteError(f"{where}: audio must be a path or a mapping with bytes/path, "
                     f"got {type(value).__name__}", path=source)


def _row(record: Mapping[str, Any], index: int, base: Path, source: Path) -> VerbatimRow:
    where = f"row {index + 1}"
    missing = [c for c in COLUMNS if c != "audio" and record.get(c) is None]
    if missing:
        present = ", ".join(sorted(record)) or "none"
        raise SuiteError(f"{where}: missing column(s) {', '.join(missing)} "
                         f"(columns present: {present})", path=source)
    raw_id = str(record["id"])
    case_id = _safe_id(raw_id, index)
    return VerbatimRow(
        id=case_id,
        verbatim=str(record["verbatim_transcript"]),
        intended=str(record["intended_transcript"]),
        source_id=None if case_id == raw_id else raw_id,
        **_audio(record.get("audio"), base, where, source),
    )


def _rows(records: Iterable[Mapping[str, Any]], base: Path, source: Path) -> list[VerbatimRow]:
    rows: list[VerbatimRow] = []
    first: dict[str, int] = {}
    for index, record in enumerate(records):
        row = _row(record, index, base, source)
        if row.id in first:
            raise SuiteError(f"row {index + 1}: case id {row.id!r} already used by row "
                             f"{first[row.id]}", path=source)
        first[row.id] = index + 1
        rows.append(row)
    if not rows:
        raise SuiteError("the dataset holds no rows", path=source)
    return rows


def _is_hf_folder(path: Path) -> bool:
    return path.is_dir() and any(
        (path / name).is_file() for name in ("dataset_info.json", "state.json",
                                             "dataset_dict.json"))


def _read_hf(folder: Path, split: str | None) -> list[VerbatimRow]:
    try:
        import datasets  # optional extra
    except ImportError:
        raise SuiteError(
            "this folder was saved by the HuggingFace `datasets` library, which is not "
            "installed; install it with: pip install 'pytest-dictbench[datasets]' "
            "(or export the dataset to Parquet, which needs only pyarrow)", path=folder,
        ) from None
    loaded = datasets.load_from_disk(str(folder))
    if isinstance(loaded, datasets.DatasetDict):
        names = sorted(loaded.keys())
        if split is None and len(names) == 1:
            split = names[0]
        if split not in loaded:
            raise SuiteError(f"choose a split with split=...: this dataset has "
                             f"{', '.join(names)}", path=folder)
        loaded = loaded[split]
    if isinstance(loaded.features.get("audio"), datasets.Audio):
        loaded = loaded.cast_column("audio", datasets.Audio(decode=False))
    return _rows(loaded, folder, folder)


def _read_parquet(source: Path) -> list[VerbatimRow]:
    import pyarrow.parquet as pq

    files = sorted(source.rglob("*.parquet")) if source.is_dir() else [source]
    if not files:
        raise SuiteError("no *.parquet files here", path=source)
    records: list[dict[str, Any]] = []
    for file in files:
        records += pq.read_table(file).to_pylist()
    return _rows(records, files[0].parent, source)


def _read_jsonl(source: Path, audio_dir: Path | None) -> list[VerbatimRow]:
    records = [obj for _, obj in read_jsonl(source, SuiteError)]
    return _rows(records, audio_dir if audio_dir is not None else source.parent, source)


def read_rows(source: Path | str, *, split: str | None = None,
              audio_dir: Path | str | None = None) -> list[VerbatimRow]:
    """Read a dataset in the common layout from a HF folder, Parquet or JSONL source.

    :param split: for a saved ``DatasetDict``, which split (optional when there is one).
    :param audio_dir: for JSONL, the folder audio paths are relative to.
    """
    path = Path(source)
    if _is_hf_folder(path):
        return _read_hf(path, split)
    if path.suffix == ".parquet" or (path.is_dir() and any(path.rglob("*.parquet"))):
        return _read_parquet(path)
    if path.suffix == ".jsonl" and path.is_file():
        return _read_jsonl(path, Path(audio_dir) if audio_dir is not None else None)
    raise SuiteError("not a dataset this reader knows: expected a `datasets` folder, "
                     "Parquet file(s) or a .jsonl file", path=path)


def _audio_suffix(row: VerbatimRow) -> str:
    name = row.audio_name or (row.audio_path.name if row.audio_path else "")
    suffix = Path(name).suffix.lower()
    if suffix:
        return suffix
    for magic, ext in _AUDIO_MAGIC:
        if row.audio_bytes and row.audio_bytes.startswith(magic):
            return ext
    return ".bin"


def rows_to_cases(rows: Iterable[VerbatimRow], *, canary: str,
                  audio_folder: str = "audio") -> list[dict[str, Any]]:
    """Cases in the ``verbatim`` format; audio paths are ``<audio_folder>/<id><ext>``."""
    cases = []
    for row in rows:
        case: dict[str, Any] = {"id": row.id, "canary": canary}
        if row.has_audio:
            case["audio"] = f"{audio_folder}/{row.id}{_audio_suffix(row)}"
        case["verbatim"] = row.verbatim
        case["intended"] = row.intended
        if row.source_id is not None:
            case["source_id"] = row.source_id
        cases.append(case)
    return cases


def write_suite(
    rows: Iterable[VerbatimRow], folder: Path | str, *, suite_id: str, canary: str,
    title: str, locale: str = "en-US", version: str = "1.0.0",
    vwer_threshold: float = 0.25, overwrite: bool = False,
) -> Path:
    """Write a ``verbatim`` suite (manifest, cases, audio) into ``folder``; return it.

    Every written file is listed under ``[[files]]`` with its sha256. Refuses to
    replace an existing suite unless ``overwrite``.
    """
    rows = list(rows)
    root = Path(folder)
    manifest_path = root / "suite.toml"
    if manifest_path.exists() and not overwrite:
        raise SuiteError("a suite is already here (pass overwrite=True to replace it)",
                         path=manifest_path)
    manifest: dict[str, Any] = {
        "id": suite_id, "version": version, "title": title, "method": "verbatim",
        "locale": locale, "canary": canary, "cases": "cases.jsonl",
        "params": {"vwer_threshold": vwer_threshold},
    }
    validate(manifest, "suite.schema.json", SuiteError, path=manifest_path)
    cases = rows_to_cases(rows, canary=canary)
    for number, case in enumerate(cases, start=1):
        validate(case, "case-verbatim.schema.json", SuiteError, path=root / "cases.jsonl",
                 line=number, prefix=f"case {case['id']!r}: ")
    root.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    for row, case in zip(rows, cases, strict=True):
        if "audio" not in case:
            continue
        target = root / case["audio"]
        target.parent.mkdir(parents=True, exist_ok=True)
        if row.audio_bytes is not None:
            data = row.audio_bytes
        else:
            assert row.audio_path is not None
            if not row.audio_path.is_file():
                raise SuiteError(f"audio of case {row.id!r} not found", path=row.audio_path)
            data = row.audio_path.read_bytes()
        if target.suffix in TAGGED_SUFFIXES:  # the canary as a tag, the audio as it came
            data = with_canary(data, canary, where=row.audio_path or target)
        target.write_bytes(data)
        written.append(case["audio"])
    lines = "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases)
    (root / "cases.jsonl").write_text(lines, encoding="utf-8")
    manifest["files"] = [{"path": rel, "sha256": sha256_file(root / rel)}
                         for rel in ["cases.jsonl", *written]]
    manifest_path.write_text(tomli_w.dumps(manifest), encoding="utf-8")
    return root
