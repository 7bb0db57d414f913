"""What ``leak-check`` looks at: the files of a folder (git's view of it in a work
tree), each as a file, a symbolic link (never followed) or something special (a FIFO,
a device), and git's staged files with their staged content."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import DictbenchError

__all__ = ["SKIP_DIRS", "Entry", "staged_files", "walk"]

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


def staged_files(folder: Path) -> tuple[Path, list[tuple[str, bytes]]]:
    """The work tree's top folder, and each staged (added, copied, modified, renamed)
    file, by its path in the repository, with its staged content."""
    names = _git(folder, "diff", "--cached", "--name-only", "-z", "--diff-filter=ACMR")
    top = _git(folder, "rev-parse", "--show-toplevel")
    if names is None or not top:
        raise DictbenchError("git diff --cached failed: not a git work tree?", path=folder)
    root = Path(top[0].strip())
    out = []
    for name in names:
        blob = subprocess.run(["git", "-C", str(root), "show", f":{name}"],
                              capture_output=True, check=True, timeout=60)
        out.append((name, blob.stdout))
    return root, out
