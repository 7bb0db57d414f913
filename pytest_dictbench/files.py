"""Safe file access shared by every loader and writer: reading regular files only, with a
size limit checked before reading; atomic replace; writer lock."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import glob
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from .errors import DictbenchError
from .redact import scrub

__all__ = ["MAX_READ_BYTES", "NOT_REGULAR", "append_line", "atomic_replace", "atomic_write",
           "atomic_write_set", "file_lock", "read_regular", "sweep_set"]

#: The largest file a loader reads whole unless it names a limit of its own (1 GiB).
MAX_READ_BYTES = 1 << 30


#: What every reader says of a FIFO, device, socket or folder in a file's place (CF31).
NOT_REGULAR = "not a regular file (a FIFO, device, socket or folder is never read)"


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
        raise error(NOT_REGULAR, path=path)
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


def atomic_write_set(folder: Path, texts: Mapping[str, str | Iterable[str]], *,
                     remove: Iterable[str] = ()) -> None:
    """Replace the files ``texts`` names in ``folder`` as one set (secrets scrubbed),
    and delete ``remove``. A text may be given as an iterable of whole lines (each
    ending in a newline), written as it is read: a large file is never one string.

    The new set is written in full into a fresh sibling folder (``.<name>.new-*``), with
    every other entry of ``folder`` carried over as a hard link (or a copy), and then
    swapped in with one rename: a reader that opens the folder sees the old set or the
    new one, never a mix, and a writer killed at any point leaves one whole set. A
    failure while writing (a full disk, a read-only folder) leaves the old set untouched.
    Sibling folders and temporary files of earlier writers that died are swept first.
    The whole step holds a lock on the parent folder, so two processes writing the same
    folder never mix their sets: the last one to take the lock wins entirely.
    """
    folder = Path(folder)
    if folder.is_symlink():
        folder = folder.resolve()
    parent = folder.parent
    parent.mkdir(parents=True, exist_ok=True)
    with _folder_lock(parent):
        sweep_set(folder)
        fresh = Path(tempfile.mkdtemp(prefix=f".{folder.name}.new-", dir=parent))
        try:
            skip = {*texts, *remove, _LEGACY_LOCK}
            if folder.is_dir():
                _carry_over(folder, fresh, skip)
            for name, text in texts.items():
                target = fresh / name
                with open(target, "w", encoding="utf-8", newline="\n") as handle:
                    for chunk in _scrubbed(text):
                        handle.write(chunk)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.chmod(target, _mode())
            os.chmod(fresh, 0o777 & ~_umask())
            _sync_folder(fresh)
            _swap_in(fresh, folder)
        except BaseException:
            shutil.rmtree(fresh, ignore_errors=True)
            raise
        shutil.rmtree(fresh, ignore_errors=True)  # it now holds the old set
        _sync_folder(parent)


#: Whole lines joined into one chunk, about this many characters, before they are
#: scrubbed and written (one call per chunk instead of per line; the same text).
_CHUNK_CHARS = 1 << 20


def _scrubbed(text: str | Iterable[str]) -> Iterator[str]:
    """``text`` (a string, or whole lines) with secrets scrubbed, in chunks of whole
    lines (a secret is never cut between two chunks)."""
    if isinstance(text, str):
        yield scrub(text)
        return
    chunk: list[str] = []
    size = 0
    for line in text:
        chunk.append(line)
        size += len(line)
        if size >= _CHUNK_CHARS:
            yield scrub("".join(chunk))
            chunk, size = [], 0
    if chunk:
        yield scrub("".join(chunk))


#: The lock file an earlier version kept inside a report folder (not carried over).
_LEGACY_LOCK = ".dictbench-write.lock"


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _carry_over(old: Path, fresh: Path, skip: set[str]) -> None:
    """Entries of ``old`` that the new set does not replace, linked into ``fresh``
    (temporary files of a writer that died are left behind, to be removed)."""
    for entry in old.iterdir():
        if entry.name in skip or (entry.name.startswith(".") and entry.name.endswith(".tmp")):
            continue
        target = fresh / entry.name
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, target, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(str(entry), str(target))


def _link_or_copy(source: str, target: str) -> None:
    if os.path.islink(source):
        os.symlink(os.readlink(source), target)
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _swap_in(fresh: Path, folder: Path) -> None:
    """Put ``fresh`` in place of ``folder``; afterwards ``fresh`` holds the old folder.

    One atomic exchange (Linux ``renameat2``) where the system offers it; elsewhere two
    renames, whose gap :func:`sweep_set` repairs (the old folder is put back)."""
    if not folder.exists():
        os.rename(fresh, folder)
        return
    if _exchange(fresh, folder):
        return
    aside = fresh.with_name(fresh.name.replace(".new-", ".old-", 1))
    os.rename(folder, aside)
    os.rename(fresh, folder)
    os.rename(aside, fresh)


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically; ``False`` when the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def sweep_set(folder: Path) -> None:
    """Remove what writers of ``folder``'s set that died left behind: fresh sibling
    folders never swapped in, old sets not yet removed, temporary files inside; a folder
    lost between two renames is put back first. Called with the lock held."""
    parent = folder.parent
    if not parent.is_dir():
        return
    name = glob.escape(folder.name)
    leftovers = sorted([*parent.glob(f".{name}.new-*"), *parent.glob(f".{name}.old-*")])
    if not folder.exists():
        old = [p for p in leftovers if p.name.startswith(f".{folder.name}.old-")]
        if old:
            os.rename(old[-1], folder)
            leftovers.remove(old[-1])
    for path in leftovers:
        shutil.rmtree(path, ignore_errors=True)
    if folder.is_dir():
        for stale in folder.glob(".*.tmp"):
            if stale.is_file():
                stale.unlink(missing_ok=True)


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


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the folder itself (no lock file is left)."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
