"""The rig journal: what the desktop rig changes on the machine, written *before* it
changes it, so that what a killed run (``kill -9``) left can be found and undone.

One small JSON file per display, beside the rig's lock files
(``$DICTBENCH_DESKTOP_LOCK_DIR``, else the temporary folder). A run writes it only
while it holds the display's lock, and removes each entry once it has undone that
change itself; a clean end leaves no file. So a journal found by someone who holds the
lock (the next run, ``dictbench desktop doctor``, ``dictbench desktop reset``) is what
a dead run left. Entries, in the order the changes were made:

- ``run``: the run's pid, its process token (every process the rig starts carries it in
  its environment as :data:`TOKEN_ENV`, children included) and its lock files;
- ``process``: a process the rig started (app, editor, tap, player, recorder), its pid;
- ``module``: the null sink the rig is about to load (its module index once loaded);
- ``default_source``: the default source the rig replaced and the one it set;
- ``keys``: hotkey keys held down (XTest), ``grab``: the rig's own probe of a hotkey
  grab, ``autorepeat``: a key whose autorepeat the rig turned off.

The file is replaced atomically at each change; a torn file cannot be read back.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["TOKEN_ENV", "Journal", "journal_path"]

#: The environment variable naming the run that started a process.
TOKEN_ENV = "DICTBENCH_DESKTOP_RUN"


def journal_path(display: str) -> Path:
    """The journal of the rig on ``display``."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", display)
    folder = os.environ.get("DICTBENCH_DESKTOP_LOCK_DIR") or tempfile.gettempdir()
    return Path(folder) / f"dictbench-desktop-journal-{safe}.json"


class Journal:
    """The journal file at ``path`` (see module doc)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: list[dict[str, Any]] = []
        self._next = 1

    @classmethod
    def read(cls, path: Path) -> Journal | None:
        """The journal a run left at ``path`` (None: none, or not readable as one)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        found = cls(path)
        entries = data.get("entries") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            return None
        found.entries = [e for e in entries if isinstance(e, dict)]
        found._next = 1 + max((int(e.get("id", 0)) for e in found.entries), default=0)
        return found

    def add(self, kind: str, **facts: Any) -> int:
        """Write an entry (before the change it describes); its id."""
        entry = {"id": self._next, "kind": kind, **facts}
        self._next += 1
        self.entries.append(entry)
        self._write()
        return int(entry["id"])

    def update(self, entry_id: int, **facts: Any) -> None:
        for entry in self.entries:
            if entry["id"] == entry_id:
                entry.update(facts)
        self._write()

    def remove(self, entry_id: int | None) -> None:
        """The change ``entry_id`` was undone: forget it."""
        if entry_id is None:
            return
        self.entries = [e for e in self.entries if e["id"] != entry_id]
        self._write()

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.entries if e["kind"] == kind]

    def owner(self) -> str:
        """``pid N`` of the run that wrote it."""
        runs = self.of("run")
        return f"pid {runs[0].get('pid')}" if runs else "an unknown run"

    def finish(self) -> None:
        """A clean end: every change was undone, the file goes."""
        self.entries = []
        self.path.unlink(missing_ok=True)

    def _write(self) -> None:
        if not self.entries:
            self.path.unlink(missing_ok=True)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"entries": self.entries}, indent=1), encoding="utf-8")
        os.replace(temporary, self.path)
