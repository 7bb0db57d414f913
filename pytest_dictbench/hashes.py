"""A suite's ``[[files]]`` tables: the sha256 of every data file, rewritten in place.

Used by ``dictbench hash``, ``dictbench synth`` and the review workbench's saves; it sits
below all three so that none of them imports another.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tomli_w

from .audio.io import sha256_file
from .errors import DictbenchError
from .files import atomic_write
from .suites import MANIFEST, data_files, load_suite, read_toml

__all__ = ["files_table_text", "refresh_hashes", "stale_files", "write_files_table"]


#: A ``[[files]]`` table header line (a comment may follow it; one that merely mentions
#: ``[[files]]`` is no header).
_FILES_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*files[ \t]*\]\][ \t]*(#.*)?$", re.MULTILINE)
_TABLE_HEADER = re.compile(r"^[ \t]*\[")


def _manifest_head(path: Path) -> str:
    """``suite.toml`` up to its ``[[files]]`` tables, which must come last."""
    text = path.read_text(encoding="utf-8-sig")
    header = _FILES_HEADER.search(text)
    if header is None:
        return text.rstrip() + "\n"
    index = header.start()
    after = [line.strip() for line in text[index:].splitlines()
             if _TABLE_HEADER.match(line) and not _FILES_HEADER.match(line)]
    if after:
        raise DictbenchError(f"{after[0]} follows the [[files]] tables; move it above them "
                             "so that dictbench can rewrite the file list", path=path)
    return text[:index].rstrip() + "\n"


def files_table_text(suite_dir: Path, entries: Sequence[dict[str, Any]]) -> str | None:
    """The text ``suite.toml`` would have with ``entries`` as its ``[[files]]`` tables, or
    ``None`` when it already lists exactly them. Nothing is written."""
    manifest = suite_dir / MANIFEST
    if read_toml(manifest).get("files") == list(entries):
        return None
    text = _manifest_head(manifest) + "\n" + tomli_w.dumps({"files": list(entries)})
    try:
        tomllib.loads(text)  # the result must still parse
    except tomllib.TOMLDecodeError as exc:
        raise DictbenchError(f"rewriting the [[files]] tables would break the file: {exc}",
                             path=manifest) from None
    return text


def write_files_table(suite_dir: Path, entries: Sequence[dict[str, Any]]) -> bool:
    """Rewrite the trailing ``[[files]]`` tables of ``suite.toml``, atomically.

    Returns False, leaving the file untouched byte for byte, when it already lists
    exactly ``entries``.
    """
    text = files_table_text(suite_dir, entries)
    if text is None:
        return False
    atomic_write(suite_dir / MANIFEST, text)
    return True


#: Digests already computed, by real path, device, inode, size, mtime and ctime: a review
#: session checks the listed files after every save, and audio rarely changes between
#: two saves. The ctime (which no one can set back, unlike the mtime) changes with every
#: write and rename, so bytes replaced in place with the old size and mtime are hashed
#: again. A save's own check of the cases file hashes its bytes, never this cache.
_SEEN: dict[tuple[Path, int, int, int, int, int], str] = {}


def _digest(path: Path) -> str | None:
    if not path.is_file():
        return None
    info = path.stat()
    key = (path.resolve(), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns,
           info.st_ctime_ns)
    if key not in _SEEN:
        _SEEN[key] = sha256_file(path)
    return _SEEN[key]


def stale_files(suite_dir: Path, skip: frozenset[str] = frozenset()) -> list[str]:
    """The listed files (relative paths, in listed order) whose bytes no longer match the
    sha256 ``suite.toml`` lists for them, or that are missing; ``skip`` names files not
    to check."""
    stale = []
    for entry in read_toml(suite_dir / MANIFEST).get("files", []):
        rel = entry.get("path")
        if not isinstance(rel, str) or rel in skip or not entry.get("sha256"):
            continue
        try:
            actual = _digest(suite_dir / rel)
        except (OSError, DictbenchError):
            actual = None
        if actual != entry["sha256"]:
            stale.append(rel)
    return stale


def refresh_hashes(suite_path: Path) -> tuple[int, bool]:
    """Rewrite the ``[[files]]`` tables of a suite with the sha256 of every data file
    (what ``dictbench hash`` does); returns how many files were hashed and whether the
    manifest changed."""
    suite = load_suite(suite_path)
    if suite.manifest.get("private") is True:
        from .private import ensure_secret

        ensure_secret(suite.root)  # the key of its case ids; never listed below
    listed = {f.path: f for f in suite.files}
    raw = {e["path"]: e for e in read_toml(suite.root / MANIFEST).get("files", [])}
    found = {p.relative_to(suite.root).as_posix() for p in data_files(suite)}
    paths = [*listed, *sorted(found - set(listed))]  # listed files keep their order
    entries = []
    for rel in paths:
        entry = dict(raw.get(rel, {"path": rel}))
        entry["sha256"] = sha256_file(suite.root / rel)
        entries.append(entry)
    changed = write_files_table(suite.root, entries)
    return len(entries), changed
