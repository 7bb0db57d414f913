"""The capture cache: a product's output file, grown one line per capture.

Live adapters write every capture to ``products/<name>/<suite id>.jsonl`` (the file the
``cache`` adapter reads), so a product is captured once and scored many times.

A capture of a case and repetition the file does not hold yet is *appended*: one
``write`` of one whole line on a descriptor opened with ``O_APPEND``, then ``fsync``,
so a capture costs the same however many came before. Replacing a line (an error
retried, ``--recapture``) rewrites the file through a temporary file renamed over it.
Writers hold an exclusive ``fcntl.flock`` on a sidecar lock file (``.<file name>.lock``)
around every update, so two processes (xdist workers, parallel runs) never lose each
other's lines or write one case twice. Readers need no lock.

After a writer is killed (SIGKILL) the file holds every line it had finished; at most
its last line is cut short. Readers ignore such a torn last line, and the next writer
cuts it off before appending, so a resumed run captures exactly what is missing.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import OutputError
from ..files import append_line, atomic_write, file_lock
from ..jsonl import canonical_line
from ..model import Output, Suite
from ..products import read_outputs
from ..suites import DEFAULT_MAX_TEXT_CHARS

__all__ = ["CaptureCache", "dump_line", "line_key"]

#: (case id, repetition): what identifies one output line.
Key = tuple[str, int]


def line_key(obj: Mapping[str, Any]) -> Key | None:
    """The (case id, repetition) of an output line, or ``None`` if it names no case."""
    case_id = obj.get("case_id") or obj.get("id")
    repetition = obj.get("repetition", 1)
    if not isinstance(case_id, str) or not isinstance(repetition, int):
        return None
    return case_id, repetition


def dump_line(obj: Mapping[str, Any]) -> str:
    """One output line (canonical JSON, no trailing newline)."""
    return canonical_line(obj)


class CaptureCache:
    """One product's output file for one suite."""

    def __init__(self, path: Path, suite: Suite, *,
                 max_text_chars: int = DEFAULT_MAX_TEXT_CHARS) -> None:
        self.path = path
        self.suite = suite
        self.max_text_chars = max_text_chars
        self.lock_path = path.with_name(f".{path.name}.lock")
        #: Keys of the complete lines up to ``_indexed[1]`` bytes of the file whose
        #: (device, inode) is ``_indexed[0]``: appends only read what others added since.
        self._keys: set[Key] = set()
        self._indexed: tuple[tuple[int, int], int] | None = None

    def read(self) -> dict[Key, Output]:
        """Every output in the file (``{}`` when it does not exist yet).

        A malformed file raises :class:`~pytest_dictbench.errors.OutputError` naming the
        line, exactly as the ``cache`` adapter would; a torn last line is ignored.
        """
        if not self.path.is_file():
            return {}
        return read_outputs(self.path, self.suite, tolerate_torn_tail=True,
                            max_text_chars=self.max_text_chars)

    def put(self, obj: Mapping[str, Any]) -> None:
        """Store one output line, replacing any line with the same case and repetition."""
        key = line_key(obj)
        if key is None:
            raise ValueError("an output line needs a string 'case_id' and an int 'repetition'")
        new_line = dump_line(obj)
        with self.locked():
            self._index()
            if key in self._keys:
                kept = [line for line in self._raw_lines() if _raw_key(line) != key]
                kept.append(new_line)
                atomic_write(self.path, "".join(line + "\n" for line in kept))
                self._indexed = None
                self._keys.clear()
            else:
                size = append_line(self.path, new_line)
                self._keys.add(key)
                self._indexed = (_identity(self.path), size)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the exclusive writer lock (blocks until the other writers are done)."""
        with file_lock(self.lock_path):
            self._remove_stale_temporaries()
            yield

    # -- private (call with the lock held) ----------------------------------------------

    def _index(self) -> None:
        """Bring ``_keys`` up to date with the file, reading only bytes not seen yet, and
        cut off a torn last line (its writer was killed: nobody else holds the lock)."""
        try:
            identity, size = _identity(self.path), self.path.stat().st_size
        except FileNotFoundError:
            self._keys.clear()
            self._indexed = None
            return
        start = 0
        if self._indexed is not None and self._indexed[0] == identity \
                and self._indexed[1] <= size:
            start = self._indexed[1]
        else:
            self._keys.clear()
        with open(self.path, "rb+") as handle:
            handle.seek(start)
            data = handle.read()
            complete, _, tail = data.rpartition(b"\n")
            if tail.strip():
                if _raw_key(tail.decode("utf-8", "replace")) is None:
                    handle.truncate(start + len(complete) + (1 if complete else 0))
                    os.fsync(handle.fileno())
                    size = handle.seek(0, os.SEEK_END)
                else:  # a whole line written by hand without its newline
                    handle.write(b"\n")
                    size += 1
                    complete = data
        for raw in complete.split(b"\n"):
            key = _raw_key(raw.decode("utf-8", "replace")) if raw.strip() else None
            if key is not None:
                self._keys.add(key)
        self._indexed = (identity, size)

    def _raw_lines(self) -> list[str]:
        """The file's non-blank lines as text (a torn tail was cut off by ``_index``)."""
        try:
            text = self.path.read_bytes().decode("utf-8-sig")
        except FileNotFoundError:
            return []
        except UnicodeDecodeError as exc:
            raise OutputError(f"not valid UTF-8 (offset {exc.start}); refusing to rewrite it",
                              path=self.path) from None
        return [line.rstrip("\r") for line in text.split("\n") if line.strip()]

    def _remove_stale_temporaries(self) -> None:
        """Delete temporaries left by a writer that was killed (we hold the lock now)."""
        for stale in self.path.parent.glob(f".{self.path.name}.*.tmp"):
            stale.unlink(missing_ok=True)


def _identity(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_dev, stat.st_ino


def _raw_key(line: str) -> Key | None:
    try:
        obj = json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        return None
    return line_key(obj) if isinstance(obj, dict) else None
