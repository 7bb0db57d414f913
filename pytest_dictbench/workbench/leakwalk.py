"""What ``leak-check`` looks at: the files of a folder (git's view of it in a work
tree), each as a file, a symbolic link (never followed) or something special (a FIFO,
a device), and git's staged files with their staged content."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import DictbenchError

__all__ = ["SKIP_DIRS", "Entry", "Staged", "open_blob", "staged_files", "walk"]

#: Folders never searched outside a git work tree.
SKIP_DIRS = {".git", "__pycache__", ".venv", "venv", "node_modules", ".ruff_cache",
             ".pytest_cache", ".hypothesis", ".mypy_cache"}


@dataclass(frozen=True)
class Entry:
    """One thing to check: a path, its name relative to the folder scanned (what is
    checked and shown), and what it is (``file``, ``link``, ``special``, or ``folder``:
    a folder that could not be listed, whose error is ``error``); ``git``: listed by
    git, so a commit would take it."""

    path: Path
    shown: str
    kind: str
    git: bool = False
    error: str = ""


def _entry(path: Path, shown: str, git: bool = False) -> Entry | None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None  # listed by git, deleted from the work tree
    except OSError:
        return Entry(path, shown, "file", git)  # reading it says why it cannot be read
    if stat.S_ISLNK(info.st_mode):
        return Entry(path, shown, "link", git)
    if stat.S_ISDIR(info.st_mode):
        return None
    return Entry(path, shown, "file" if stat.S_ISREG(info.st_mode) else "special", git)


def walk(base: Path, everything: bool, skipped: list[int]) -> Iterator[Entry]:
    """What to check under ``base``: git's tracked and unignored files in a work tree
    (``everything``: ignored ones too), else every file; links are not followed, and a
    folder that cannot be listed is an entry of kind ``folder``. Names are relative to
    ``base``."""
    if not base.is_dir() or base.is_symlink():
        found = _entry(base, base.name or str(base))
        if found is not None:
            yield found
        return
    listed = _git_listing(base, everything, skipped)
    if listed is not None:
        for name in listed:
            found = _entry(base / name, name, git=True)
            if found is not None:
                yield found
        return
    for name, error in _listing(base):
        if error:
            yield Entry(base / name, name or ".", "folder", error=error)
            continue
        found = _entry(base / name, name)
        if found is not None:
            yield found


def _listing(folder: Path, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Names of the files under ``folder``, each with ``""``; a folder that cannot be
    listed is its own name with the reason."""
    try:
        children = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        yield prefix.rstrip("/"), f"cannot list the folder ({exc.strerror})"
        return
    for child in children:
        if child.is_dir(follow_symlinks=False):
            if child.name not in SKIP_DIRS:
                yield from _listing(Path(child.path), f"{prefix}{child.name}/")
        else:
            yield prefix + child.name, ""


def _git(folder: Path, *args: str) -> list[str] | None:
    try:
        run = subprocess.run(["git", "-C", str(folder), *args], capture_output=True,
                             check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if run.returncode != 0:
        return None
    return [n for n in run.stdout.decode("utf-8", "surrogateescape").split("\0") if n]


def _git_listing(folder: Path, everything: bool, skipped: list[int]) -> list[str] | None:
    """Tracked and untracked-but-not-ignored files of a git work tree, else ``None``;
    ignored files are listed too with ``everything``, else counted in ``skipped``."""
    names = _git(folder, "ls-files", "-z", "-c", "-o", "--exclude-standard")
    if names is None:
        return None
    ignored = [n for n in _git(folder, "ls-files", "-z", "-o", "-i", "--exclude-standard")
               or [] if not SKIP_DIRS & set(n.split("/"))]
    if everything:
        names += ignored
    else:
        skipped.append(len(ignored))
    return sorted(set(names))


@dataclass(frozen=True)
class Staged:
    """A staged file: its path in the repository, its blob and the blob's size."""

    name: str
    blob: str
    size: int


def staged_files(folder: Path) -> tuple[Path, list[Staged]]:
    """The work tree's top folder, and each staged (added, copied, modified, renamed)
    file with its staged blob (read it with :func:`open_blob`)."""
    names = _git(folder, "diff", "--cached", "--name-only", "-z", "--diff-filter=ACMR")
    top = _git(folder, "rev-parse", "--show-toplevel")
    if names is None or not top:
        raise DictbenchError("git diff --cached failed: not a git work tree?", path=folder)
    root = Path(top[0].strip())
    blobs = {}
    for line in _git(root, "ls-files", "-s", "-z") or []:
        meta, _, name = line.partition("\t")
        blobs[name] = meta.split()[1]
    out = []
    for name in names:
        blob = blobs.get(name)
        size = _git(root, "cat-file", "-s", blob) if blob else None
        if blob is None or not size:
            raise DictbenchError(f"cannot find the staged content of {name}", path=root)
        out.append(Staged(name, blob, int(size[0].strip())))
    return root, out


@contextlib.contextmanager
def open_blob(root: Path, blob: str) -> Iterator[IO[bytes]]:
    """A staged blob as a stream (``git cat-file``): read it in chunks, never whole."""
    proc = subprocess.Popen(["git", "-C", str(root), "cat-file", "blob", blob],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    try:
        yield proc.stdout
    finally:
        proc.stdout.close()
        proc.kill()
        proc.wait()
