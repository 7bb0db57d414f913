"""The capture cache: a product's output file, updated one line at a time, atomically.

Live adapters write every capture to ``products/<name>/<suite id>.jsonl`` (the file the
``cache`` adapter reads), so a product is captured once and scored many times. Each
update rewrites the whole file: a temporary file in the same folder is written and
fsynced, then renamed over the old one. Readers therefore see the old file or the new
one, never a torn line, even when the writer is killed with SIGKILL. Writers take an
exclusive ``fcntl.flock`` on a sidecar lock file (``.<file name>.lock``) around the
read-modify-rename, so two processes (xdist workers, parallel runs) never lose each
other's lines. Readers need no lock.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import OutputError
from ..files import atomic_write, file_lock
from ..jsonl import canonical_line
from ..model import Output, Suite
from ..products import read_outputs

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

    def __init__(self, path: Path, suite: Suite) -> None:
        self.path = path
        self.suite = suite
        self.lock_path = path.with_name(f".{path.name}.lock")

    def read(self) -> dict[Key, Output]:
        """Every output in the file (``{}`` when it does not exist yet).

        A malformed file raises :class:`~pytest_dictbench.errors.OutputError` naming the
        line, exactly as the ``cache`` adapter would.
        """
        if not self.path.is_file():
            return {}
        return read_outputs(self.path, self.suite, tolerate_torn_tail=True)

    def put(self, obj: Mapping[str, Any]) -> None:
        """Store one output line, replacing any line with the same case and repetition."""
        key = line_key(obj)
        if key is None:
            raise ValueError("an output line needs a string 'case_id' and an int 'repetition'")
        new_line = dump_line(obj)
        with self.locked():
            kept = [line for line in self._raw_lines() if _raw_key(line) != key]
            kept.append(new_line)
            self._replace("".join(line + "\n" for line in kept))

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the exclusive writer lock (blocks until the other writers are done)."""
        with file_lock(self.lock_path):
            self._remove_stale_temporaries()
            yield

    # -- private ------------------------------------------------------------------------

    def _raw_lines(self) -> list[str]:
        """The file's non-blank lines as text; a torn last line (no newline) is dropped."""
        try:
            text = self.path.read_bytes().decode("utf-8-sig")
        except FileNotFoundError:
            return []
        except UnicodeDecodeError as exc:
            raise OutputError(f"not valid UTF-8 (offset {exc.start}); refusing to rewrite it",
                              path=self.path) from None
        lines = [line.rstrip("\r") for line in text.split("\n")]
        if lines and lines[-1].strip() and not text.endswith("\n") and _raw_key(lines[-1]) is None:
            lines.pop()
        return [line for line in lines if line.strip()]

    def _replace(self, text: str) -> None:
        atomic_write(self.path, text)

    def _remove_stale_temporaries(self) -> None:
        """Delete temporaries left by a writer that was killed (we hold the lock now)."""
        for stale in self.path.parent.glob(f".{self.path.name}.*.tmp"):
            stale.unlink(missing_ok=True)


def _raw_key(line: str) -> Key | None:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        return None
    return line_key(obj) if isinstance(obj, dict) else None
