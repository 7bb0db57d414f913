"""Safe file access shared by every loader and writer: reading regular files only, with a
size limit checked before reading; atomic replace; writer lock."""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from .errors import DictbenchError
from .redact import scrub

__all__ = ["MAX_READ_BYTES", "append_line", "atomic_replace", "atomic_write",
           "atomic_write_set", "file_lock", "read_regular"]

#: The largest file a loader reads whole unless it names a limit of its own (1 GiB).
MAX_READ_BYTES = 1 << 30


def read_regular(path: Path, error: type[DictbenchError], *,
                 max_bytes: int | None = None) -> bytes:
    """The bytes of ``path``, which must be a regular file of at most ``max_bytes``.

    A FIFO, a device, a socket or a folder is refused before anything is read (it would
    block or never end), and so is a file over the limit; the check is made on the open
    file, so a swap after the check changes nothing. Symbolic links are followed.
    """
    limit = MAX_READ_BYTES if max_bytes is None else max_bytes
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise error(f"cannot read file: {exc.strerror or exc}", path=path) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise error("not a regular file (a FIFO, device, socket or folder is never read)",
                    path=path)
    if info.st_size > limit:
        os.close(fd)
        raise error(f"file is {info.st_size} bytes, over the limit of {limit}", path=path)
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise error(f"cannot read file: {exc.strerror or exc}", path=path) from None
    if len(data) > limit:
        raise error(f"file grew past the limit of {limit} bytes while it was read", path=path)
    return data


def _mode() -> int:
    """The mode a newly created file gets under the current umask (0o644 usually)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _stage(path: Path, write: Callable[[Path], None]) -> Path:
    """A temporary file beside ``path`` holding what ``write`` put there, flushed to disk
    with ordinary permissions (removed again on any error)."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.chmod(tmp, _mode())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _sync_folder(folder: Path) -> None:
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def atomic_replace(path: Path, write: Callable[[Path], None]) -> None:
    """Replace ``path`` with what ``write`` puts into a temporary file beside it.

    The temporary file is flushed to disk, given ordinary permissions and renamed over
    ``path``; readers see the old file or the new one, never a part of either. On any
    error the temporary file is removed and ``path`` is left as it was.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _stage(path, write)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def atomic_write_set(folder: Path, texts: Mapping[str, str], *,
                     remove: Iterable[str] = ()) -> None:
    """Replace the files ``texts`` names in ``folder`` as one set (secrets scrubbed),
    and delete ``remove``.

    Every new file is first written in full beside its target; only when all of them are
    on disk are they renamed into place (renames need no space), so a failure while
    writing (a full disk, a read-only folder) leaves the old set untouched. The whole
    step holds the folder's lock, so two processes writing the same folder never mix
    their sets: the last one to take the lock wins entirely.
    """
    folder.mkdir(parents=True, exist_ok=True)
    with file_lock(folder / ".dictbench-write.lock"):
        staged: list[tuple[Path, Path]] = []
        try:
            for name, text in texts.items():
                clean = scrub(text)
                staged.append((_stage(folder / name, lambda tmp, clean=clean: tmp.write_text(
                    clean, encoding="utf-8", newline="\n")), folder / name))
        except BaseException:
            for tmp, _ in staged:
                tmp.unlink(missing_ok=True)
            raise
        for tmp, target in staged:
            os.replace(tmp, target)
        for name in remove:
            (folder / name).unlink(missing_ok=True)
        _sync_folder(folder)


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
