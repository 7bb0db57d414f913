"""Undo what a killed Linux rig left, from its journal (:mod:`.journal`).

Called with the display's lock held (so the journal's run is over): by the next run
before it changes anything, by ``dictbench desktop doctor`` and by ``dictbench desktop
reset``. Each undone change is said in one line; the journal goes once all is undone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .journal import TOKEN_ENV, Journal
from .pulse import PulseRoute

__all__ = ["processes_of", "stop_processes", "undo"]

#: How long processes get to end on SIGTERM before SIGKILL.
STOP_GRACE_S = 2.0


def processes_of(token: str) -> dict[int, str]:
    """pid -> command name of every process whose environment carries the run ``token``
    (the rig's own process is not among them: the token is in its children only)."""
    found: dict[int, str] = {}
    marker = f"{TOKEN_ENV}={token}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                found[int(entry.name)] = (entry / "comm").read_text().strip()
        except OSError:
            continue
    return found


def stop_processes(pids: list[int], grace_s: float = STOP_GRACE_S) -> None:
    """SIGTERM, then SIGKILL to those still running after ``grace_s``."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.02)
    for pid in pids:
        if _alive(pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    with contextlib.suppress(OSError):  # a zombie has ended
        if Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
            return False
    return True


def undo(journal: Journal, route: PulseRoute,
         release_keys: Callable[[dict[str, Any]], str] | None = None) -> list[str]:
    """Undo ``journal`` (a dead run's); what was done, one line each."""
    said: list[str] = []
    for run in journal.of("run"):
        token = str(run.get("token", ""))
        found = processes_of(token) if token else {}
        if found:
            stop_processes(sorted(found))
            said.append("stopped the processes it started: " + ", ".join(
                f"{name} (pid {pid})" for pid, name in sorted(found.items())))
    for kind in ("keys", "autorepeat", "grab"):
        for entry in journal.of(kind):
            if release_keys is not None:
                with contextlib.suppress(Exception):
                    said.append(release_keys(entry))
            journal.remove(entry["id"])
    for entry in journal.of("default_source"):
        previous, rig = str(entry.get("previous", "")), str(entry.get("set", ""))
        try:
            current = route.default_source()
            if current != rig:
                said.append(f"left the default source {current!r} as it is (changed "
                            "since the run set it)")
            elif previous in route.sources():
                route._pactl("set-default-source", previous)
                said.append(f"restored default source {previous!r}")
            else:
                said.append(f"could not restore default source {previous!r}: it is gone")
        except (RuntimeError, OSError) as exc:
            said.append(f"could not check the default source ({exc})")
            continue
        journal.remove(entry["id"])
    for entry in journal.of("module"):
        sink = str(entry.get("sink", ""))
        try:
            for index in route.rig_modules(sink):
                route._pactl("unload-module", index)
                said.append(f"removed sink {sink!r} (module {index})")
        except (RuntimeError, OSError) as exc:
            said.append(f"could not remove sink {sink!r} ({exc})")
            continue
        journal.remove(entry["id"])
    owner = journal.owner()
    if all(e["kind"] in ("run", "process") for e in journal.entries):
        journal.finish()
    if not said:
        return [f"a killed run ({owner}) left a journal and nothing else: removed it"]
    return [f"undid what a killed run ({owner}) left: {line}" for line in said]
