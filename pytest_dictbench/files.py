"""Safe file updates shared by reports, caches and audio: atomic replace, writer lock."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from .redact import scrub

__all__ = ["append_line", "atomic_replace", "atomic_write", "file_lock"]


def _mode() -> int:
    """The mode a newly created file gets under the current umask (0o644 usually)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_replace(path: Path, write: Callable[[Path], None]) -> None:
    """Replace ``path`` with what ``write`` puts into a temporary file beside it.

    The temporary file is flushed to disk, given ordinary permissions and renamed over
    ``path``; readers see the old file or the new one, never a part of either. On any
    error the temporary file is removed and ``path`` is left as it was.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.chmod(tmp, _mode())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8, ``\\n`` line ends, secrets scrubbed),
    atomically."""
    text = scrub(text)
    atomic_replace(path, lambda tmp: tmp.write_text(text, encoding="utf-8", newline="\n"))


def append_line(path: Path, line: str) -> int:
    """Append ``line`` (secrets scrubbed) and a newline to ``path`` (created if needed)
    in one ``write``,
    flushed to disk; returns the file's new size. Callers that may race hold a lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = (scrub(line) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, _mode())
    try:
        created = os.fstat(fd).st_size == 0
        written = os.write(fd, payload)
        while written < len(payload):  # a short write (signal, nearly full disk)
            written += os.write(fd, payload[written:])
        os.fsync(fd)
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if created:  # make the new directory entry durable too
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return size


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if needed) across processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
