"""The job journal of the job-based kinds (AssemblyAI, Speechmatics): a job is paid for
once it is created, so its id is written down the moment the create answers, before
any polling (finding PV6). A capture of the same audio with the same settings that
finds an unfinished job there (the run was killed, or the deadline came first) polls
that job instead of creating and paying for a second one.

One JSON line per event in ``<product outputs>/jobs.jsonl``: ``{"key", "job",
"state"}``, ``state`` being ``submitted`` or ``finished``. ``key`` is a digest of the
kind, API root, model, options, language and the audio's sha256.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["JobJournal", "job_key"]


def job_key(kind: str, base_url: str, model: str | None, options: Mapping[str, Any],
            language: str, audio: bytes) -> str:
    """What makes two captures the same job."""
    parts = [kind, base_url, model or "", json.dumps(options, sort_keys=True), language,
             hashlib.sha256(audio).hexdigest()]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


class JobJournal:
    """See module doc."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def unfinished(self, key: str) -> str | None:
        """The job a capture with ``key`` created and never saw finish, or None."""
        with self._lock:
            open_jobs: dict[str, str] = {}
            for entry in self._entries():
                if entry.get("key") != key or not isinstance(entry.get("job"), str):
                    continue
                if entry.get("state") == "submitted":
                    open_jobs[entry["job"]] = key
                else:
                    open_jobs.pop(entry["job"], None)
            return next(iter(reversed(open_jobs)), None)

    def submitted(self, key: str, job: str) -> None:
        self._append({"key": key, "job": job, "state": "submitted"})

    def finished(self, key: str, job: str) -> None:
        self._append({"key": key, "job": job, "state": "finished"})

    def _entries(self) -> list[dict[str, Any]]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        out = []
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut by a kill: the job it named is lost, not the rest
            if isinstance(entry, dict):
                out.append(entry)
        return out

    def _append(self, entry: dict[str, str]) -> None:
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry, sort_keys=True) + "\n")
                handle.flush()
