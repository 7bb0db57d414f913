"""The macOS rig's journal (:mod:`.journal`): what it changes, and how a later holder
of the rig undoes what a killed run left.

Entries, each written before its change: ``run`` (pid, lock files), ``default_input``
(the default input device the rig replaced with ``input_device``, through
``SwitchAudioSource``), ``process`` (the app, ``sox``, ``screencapture``: pid and start
time from ``ps``, so a pid reused by another program is never signalled), ``keys`` (a
hotkey held down through System Events in hold mode), ``document`` (a TextEdit
document the rig opened). Every command goes through the backend's runner, so the tests
check each argv against a fake Mac.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from .journal import Journal

__all__ = ["SWITCH", "default_input", "process_started", "restore_input", "undo_mac"]

Runner = Callable[[Sequence[str]], str]

#: The command-line tool that reads and sets the default input device
#: (``brew install switchaudio-osx``).
SWITCH = "SwitchAudioSource"
#: How long a process gets to end on SIGTERM before SIGKILL.
STOP_GRACE_S = 2.0


def default_input(run: Runner) -> str:
    """The name of the current default input device."""
    return run([SWITCH, "-c", "-t", "input"]).strip()


def process_started(run: Runner, pid: int) -> str | None:
    """When process ``pid`` started (``ps -o lstart=``), None when there is none."""
    try:
        return run(["ps", "-o", "lstart=", "-p", str(pid)]).strip() or None
    except (RuntimeError, OSError):
        return None


def restore_input(run: Runner, entry: dict[str, Any]) -> str:
    """Give the default input device back, unless someone changed it since."""
    previous, rig = str(entry.get("previous", "")), str(entry.get("set", ""))
    current = default_input(run)
    if current != rig:
        return (f"left the default input device {current!r} as it is (changed since the "
                "run set it)")
    run([SWITCH, "-t", "input", "-s", previous])
    return f"restored default input device {previous!r}"


def _stop(run: Runner, entry: dict[str, Any], sleep: Callable[[float], None]) -> str | None:
    """Stop one journaled process if it is still the one the rig started."""
    pid, started = entry.get("pid"), entry.get("started")
    what = f"{entry.get('what', 'process')} (pid {pid})"
    if not isinstance(pid, int):
        return f"could not stop {entry.get('what', 'a process')}: the run died before " \
               "its pid was written (look for it by hand)"
    if started is None or process_started(run, pid) != started:
        return None  # ended already, or the pid is another program's now
    run(["kill", "-TERM", str(pid)])
    deadline = time.monotonic() + STOP_GRACE_S
    while time.monotonic() < deadline and process_started(run, pid) == started:
        sleep(0.05)
    if process_started(run, pid) == started:
        run(["kill", "-KILL", str(pid)])
    return what


def undo_mac(journal: Journal, run: Runner, key_up: Callable[[str], str],
             close_document: Callable[[str], str],
             sleep: Callable[[float], None] = time.sleep) -> list[str]:
    """Undo ``journal`` (a dead run's) on a Mac; what was done, one line each."""
    said: list[str] = []
    stopped = []
    for entry in journal.of("process"):
        try:
            line = _stop(run, entry, sleep)
        except (RuntimeError, OSError) as exc:
            said.append(f"could not stop {entry.get('what')} (pid {entry.get('pid')}): {exc}")
            continue
        if line is not None and line.startswith("could not"):
            said.append(line)
        elif line is not None:
            stopped.append(line)
        journal.remove(entry["id"])
    if stopped:
        said.append("stopped the processes it started: " + ", ".join(stopped))
    for kind, action in (("keys", key_up), ("document", close_document)):
        for entry in journal.of(kind):
            try:
                said.append(action(str(entry.get("hotkey") or entry.get("title"))))
            except (RuntimeError, OSError) as exc:
                said.append(f"could not undo its {kind} {entry}: {exc}")
            journal.remove(entry["id"])
    for entry in journal.of("default_input"):
        try:
            said.append(restore_input(run, entry))
        except (RuntimeError, OSError) as exc:
            said.append(f"could not check the default input device ({exc})")
            continue
        journal.remove(entry["id"])
    owner = journal.owner()
    if all(e["kind"] == "run" for e in journal.entries):
        journal.finish()
    if not said:
        return [f"a killed run ({owner}) left a journal and nothing else: removed it"]
    return [f"undid what a killed run ({owner}) left: {line}" for line in said]
