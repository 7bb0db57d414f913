"""An append-only store of verdicts, keyed by content hash.

One JSON object per line (see :meth:`~.records.Verdict.to_json`). Each new verdict is
appended with a single ``write`` on a descriptor opened with ``O_APPEND``, so concurrent
appenders never interleave inside a line; :meth:`VerdictCache.close` fsyncs. A line that
does not parse - typically the last one, cut short by a crash - or that breaks the verdict
schema (a score that is not an integer, a reason that is not text) is skipped with a
:class:`JudgeCacheWarning` naming ``file:line``; the verdict is simply judged again. A
score outside its rule's range (``7`` for a rubric rule) is found when the verdict is
looked up for a request, and is a miss with the same warning (:meth:`discard`).

The store holds verdicts, hashes, judge names, models and token counts: no key, no
header, nothing from the client.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from pathlib import Path

from ..errors import JudgeError
from ..jsonl import read_jsonl
from ..redact import scrub
from .records import Verdict, canonical_json

__all__ = ["DEFAULT_CACHE_FILE", "JudgeCacheWarning", "VerdictCache"]

#: File name the plugin uses inside its cache folder.
DEFAULT_CACHE_FILE = "verdicts.jsonl"


class JudgeCacheWarning(UserWarning):
    """A line of the verdict store was unreadable and has been ignored."""


class VerdictCache:
    """Verdicts by content hash, backed by a JSONL file (or memory when ``path`` is None)."""

    def __init__(self, path: Path | str | None, *, fsync: bool = True):
        self.path = Path(path) if path is not None else None
        self.fsync = fsync
        self._verdicts: dict[str, Verdict] = {}
        #: The file line each loaded verdict came from (for warnings naming it).
        self._lines: dict[str, int] = {}
        self._fd: int | None = None
        #: True when the file's last byte is not a newline (a torn last line).
        self._needs_newline = False
        if self.path is not None and self.path.exists():
            self._load(self.path)

    # -- reading ------------------------------------------------------------------

    def _load(self, path: Path) -> None:
        def skip(problem: Exception) -> None:
            warnings.warn(f"{problem}: unreadable verdict line ignored; it will be judged "
                          "again", JudgeCacheWarning, stacklevel=4)

        with open(path, "rb") as handle:
            if handle.seek(0, os.SEEK_END):
                handle.seek(-1, os.SEEK_END)
                self._needs_newline = handle.read(1) != b"\n"
        for number, obj in read_jsonl(path, JudgeError, on_error=skip):
            try:
                verdict = Verdict.from_json(obj)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                skip(JudgeError(f"{type(exc).__name__}: {exc}", path=path, line=number))
                continue
            self._verdicts[verdict.content_hash] = verdict
            self._lines[verdict.content_hash] = number

    def get(self, content_hash: str) -> Verdict | None:
        return self._verdicts.get(content_hash)

    def discard(self, content_hash: str, problem: str) -> None:
        """Forget a loaded verdict that breaks its task's schema, with a
        :class:`JudgeCacheWarning` naming ``file:line``: it is judged again (a miss)."""
        self._verdicts.pop(content_hash, None)
        line = self._lines.pop(content_hash, None)
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        warnings.warn(f"{where}: {problem}: cached verdict ignored; it will be judged "
                      "again", JudgeCacheWarning, stacklevel=2)

    def __contains__(self, content_hash: object) -> bool:
        return content_hash in self._verdicts

    def __len__(self) -> int:
        return len(self._verdicts)

    def __iter__(self) -> Iterator[Verdict]:
        return iter(self._verdicts.values())

    # -- writing ------------------------------------------------------------------

    def put(self, verdict: Verdict) -> None:
        """Store a verdict and append it to the file as one line in one write."""
        self._verdicts[verdict.content_hash] = verdict
        if self.path is None:
            return
        line = scrub(canonical_json(verdict.to_json())) + "\n"
        if self._needs_newline:  # never glue a record onto a torn line
            line = "\n" + line
            self._needs_newline = False
        payload = line.encode("utf-8")
        fd = self._open()
        written = os.write(fd, payload)
        while written < len(payload):  # a short write (disk full, signal): finish the line
            written += os.write(fd, payload[written:])

    def _open(self) -> int:
        if self._fd is None:
            assert self.path is not None
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return self._fd

    def close(self) -> None:
        """Flush appended verdicts to disk (fsync) and release the file."""
        if self._fd is not None:
            if self.fsync:
                os.fsync(self._fd)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> VerdictCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
