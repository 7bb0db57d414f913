"""The macOS backend: TextEdit through AppleScript, keys through System Events, a named
virtual input device (BlackHole 2ch by default).

**Not yet run on a Mac by us.** Its command sequences are built here as data and tested
as data (``tests/test_desktop_macos.py``); ``docs/desktop.md`` has the check-list for a
first run. Every command goes through :meth:`MacBackend.run` (``osascript``, ``system_profiler``,
``SwitchAudioSource``, ``ps``, ``kill``) and every process through ``start`` (the app,
``sox``, ``screencapture``), so a first run on a Mac exercises exactly these commands;
what the rig changes is journaled first (:mod:`.macos_journal`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ...errors import ProductError
from .journal import Journal, journal_path
from .linux_process import _Process, rig_lock_path, start_logged
from .macos_journal import SWITCH, default_input, process_started, restore_input, undo_mac
from .macos_scripts import (
    WINDOW_TITLES_SCRIPT,
    close_document_script,
    hotkey_script,
    new_document_script,
    play_command,
    read_document_script,
    record_command,
)
from .settle import Snapshot
from .xkeys import KEY_CODES, Hotkey, parse_hotkey

__all__ = ["KEY_CODES", "WINDOW_TITLES_SCRIPT", "MacBackend", "hotkey_script",
           "new_document_script", "play_command", "read_document_script", "record_command"]

Runner = Callable[[Sequence[str]], str]
#: Starts a process: (argv, its output log or None, how it is stopped: ``terminate``
#: or ``q`` on its standard input) -> the started process.
Starter = Callable[[Sequence[str], "Path | None", str], Any]


def _run(argv: Sequence[str]) -> str:
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=30,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {(done.stderr or done.stdout).strip()}")
    return done.stdout


def _start(argv: Sequence[str], log: Path | None, stop: str) -> _Process:
    if stop == "q":  # screencapture -v ends its recording on a key
        return _Process(subprocess.Popen(list(argv), stdin=subprocess.PIPE,
                                         start_new_session=True), "q")
    return start_logged(argv, None, log)


class MacDocument:
    """A TextEdit document, read with AppleScript every ``poll_s``."""

    def __init__(self, title: str, run: Runner, poll_s: float = 0.1,
                 on_close: Callable[[], None] | None = None) -> None:
        self.title, self.run, self._on_close = title, run, on_close
        self.run(["osascript", "-e", new_document_script(title)])
        self._shots: list[Snapshot] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, args=(poll_s,), daemon=True)
        self._thread.start()

    def _poll(self, poll_s: float) -> None:
        while not self._stop.is_set():
            focused, _, text = self.run(["osascript", "-e", read_document_script(
                self.title)]).rstrip("\n").partition("\t")
            self._shots.append(Snapshot(time.monotonic(), text, focused == "true"))
            time.sleep(poll_s)

    def wait_focused(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._shots and self._shots[-1].focused:
                return True
            time.sleep(0.05)
        return False

    def snapshots(self) -> list[Snapshot]:
        return list(self._shots)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        with contextlib.suppress(RuntimeError):
            self.run(["osascript", "-e", close_document_script(self.title)])
        if self._on_close is not None:
            self._on_close()


class MacBackend:
    """See module doc; ``device`` is the virtual input (``BlackHole 2ch``). Every command
    goes through ``run`` and every process through ``start`` (fakes in the tests); what
    the rig changes is journaled first (:mod:`.macos_journal`)."""

    platform = "macos"

    def __init__(self, device: str, run: Runner | None = None,
                 start: Starter | None = None) -> None:
        self.device = device
        self.run: Runner = run or _run
        self.start: Starter = start or _start
        self.journal: Journal | None = None
        #: What this rig undid of a killed run's leftovers when it took the rig.
        self.recovered: list[str] = []
        self._input_entry: int | None = None
        self._keys_entry: int | None = None
        self._started: list[tuple[int, Any]] = []

    def problems(self, app: Sequence[str], hotkey: Hotkey | None = None) -> list[str]:
        found = []
        if hotkey is not None and hotkey.key not in KEY_CODES:
            found.append(f"[settings] hotkey {hotkey.spec!r}: no macOS key code for "
                         f"{hotkey.key!r} (known: {', '.join(sorted(KEY_CODES))})")
        try:
            devices = self.run(["system_profiler", "SPAudioDataType"])
        except (RuntimeError, OSError) as exc:
            return [f"cannot list audio devices ({exc}): is this a Mac?"]
        if self.device not in devices:
            found.append(f"input device {self.device!r} is missing: install BlackHole 2ch "
                         "(brew install blackhole-2ch) or set [settings] input_device")
        for tool, hint in (("sox", "brew install sox"), ("osascript", "part of macOS"),
                           (SWITCH, "brew install switchaudio-osx")):
            try:
                self.run(["which", tool])
            except (RuntimeError, OSError):
                found.append(f"{tool} is missing ({hint})")
        try:
            self.run(["osascript", "-e", 'tell application "System Events" to get name of '
                      "first process"])
        except (RuntimeError, OSError):
            found.append("no Accessibility permission for System Events: System Settings "
                         "> Privacy & Security > Accessibility, add the terminal")
        if app and not Path(app[0]).exists() and app[0] != "open":
            found.append(f"the app's binary {app[0]!r} is not found")
        return found

    # -- the lock and the journal -------------------------------------------------------

    def _lock(self) -> Path:
        return rig_lock_path("route", self.device)

    def busy(self) -> str | None:
        """Who holds the rig on this device now (None: free)."""
        path = self._lock()
        if not path.exists():
            return None
        with open(path, "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.seek(0)
                holder = handle.read().strip() or "another process"
                return (f"another dictbench desktop rig ({holder}) is running on input "
                        f"device {self.device!r}: one rig per audio route")
        return None

    def leftovers(self) -> list[str]:
        """Undo what a killed run left (nothing while a run holds the rig)."""
        with open(self._lock(), "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return []
            return self._undo_journal()

    def _undo_journal(self) -> list[str]:
        left = Journal.read(journal_path(f"macos-{self.device}"))
        if left is None or not left.entries:
            return []
        return undo_mac(left, self.run, self._release, self._close_document)

    def _release(self, hotkey: str) -> str:
        self.run(["osascript", "-e", hotkey_script(parse_hotkey(hotkey), "up")])
        return f"released keys {hotkey}"

    def _close_document(self, title: str) -> str:
        self.run(["osascript", "-e", close_document_script(title)])
        return f"closed TextEdit document {title!r} without saving"

    def leftover_problems(self) -> list[str]:
        """What looks left behind with no journal naming it (for doctor)."""
        with contextlib.suppress(RuntimeError, OSError):
            if default_input(self.run) == self.device:
                return [f"the default input device is the rig's own {self.device!r} with "
                        "no run holding the rig (left by a killed run?): choose your "
                        f"microphone again (`{SWITCH} -t input -s <name>`)"]
        return []

    @contextlib.contextmanager
    def claim(self) -> Iterator[None]:
        """Hold the rig on this device, undo a killed run's leftovers, start a journal,
        make the device the default input (given back at the end)."""
        path = self._lock()
        with open(path, "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ProductError(f"another dictbench desktop rig is running on input "
                                   f"device {self.device!r}: one rig per audio route"
                                   ) from None
            handle.seek(0)
            handle.truncate()
            handle.write(f"pid {os.getpid()}")
            handle.flush()
            self.recovered = self._undo_journal()
            self.journal = Journal(journal_path(f"macos-{self.device}"))
            self.journal.add("run", pid=os.getpid(), device=self.device, locks=[str(path)])
            try:
                self._take_input()
                yield
            finally:
                self.close()
                if all(e["kind"] == "run" for e in self.journal.entries):
                    self.journal.finish()
                self.journal = None

    def _take_input(self) -> None:
        """Make the device the default input (what the app records), journaled first."""
        previous = default_input(self.run)
        if previous == self.device or self.journal is None:
            return
        self._input_entry = self.journal.add("default_input", previous=previous,
                                             set=self.device)
        self.run([SWITCH, "-t", "input", "-s", self.device])

    def _started_process(self, what: str, argv: Sequence[str], log: Path | None,
                         stop: str = "terminate") -> Any:
        entry = self.journal.add("process", what=what, argv=list(argv)[:1]) \
            if self.journal else None
        process = self.start(argv, log, stop)
        if self.journal is not None and entry is not None:
            self.journal.update(entry, pid=process.pid,
                                started=process_started(self.run, process.pid))
            self._started.append((entry, process))
        return process

    # -- the rig ------------------------------------------------------------------------

    def launch(self, argv: Sequence[str], log: Path | None) -> Any:
        return self._started_process("app", argv, log)

    def open_document(self, title: str) -> MacDocument:
        entry = self.journal.add("document", title=title) if self.journal else None
        journal = self.journal
        return MacDocument(title, self.run, on_close=lambda: journal.remove(entry)
                           if journal is not None else None)

    def key_down(self, hotkey: Hotkey) -> None:
        if self.journal is not None and self._keys_entry is None:
            self._keys_entry = self.journal.add("keys", hotkey=hotkey.spec)
        self.run(["osascript", "-e", hotkey_script(hotkey, "down")])

    def key_up(self, hotkey: Hotkey) -> None:
        self.run(["osascript", "-e", hotkey_script(hotkey, "up")])
        if self.journal is not None:
            self.journal.remove(self._keys_entry)
        self._keys_entry = None

    def play(self, audio: Path) -> _MacPlayback:
        from .driver import audible_span

        onset, _ = audible_span(audio)
        started = time.monotonic()
        return _MacPlayback(self._started_process("player", play_command(audio, self.device),
                                                  None), started + onset)

    def window_titles(self) -> list[str]:
        try:
            listed = self.run(["osascript", "-e", WINDOW_TITLES_SCRIPT])
        except (RuntimeError, OSError):
            return []
        return [line for line in listed.splitlines() if line]

    def record_screen(self, path: Path) -> Any:
        path.parent.mkdir(parents=True, exist_ok=True)
        return self._started_process("recorder", ["screencapture", "-v", "-C", str(path)],
                                     None, "q")

    def close(self) -> None:
        """Stop what the rig started, give the default input back (each journal entry
        removed once undone)."""
        for entry, process in reversed(self._started):
            with contextlib.suppress(Exception):
                process.stop()
            if self.journal is not None:
                self.journal.remove(entry)
        self._started = []
        if self._input_entry is not None and self.journal is not None:
            for entry in self.journal.of("default_input"):
                with contextlib.suppress(RuntimeError, OSError):
                    restore_input(self.run, entry)
                    self.journal.remove(entry["id"])
            self._input_entry = None


class _MacPlayback:
    """sox playing into the device. No tap on macOS yet: the first audible sample is
    dated as the start of sox plus the file's onset (sox's start-up latency is in it)."""

    def __init__(self, process: Any, heard: float) -> None:
        self.process, self.heard = process, heard

    def wait(self, timeout_s: float) -> None:
        code = self.process.wait(timeout_s)
        if code != 0:
            raise RuntimeError(f"sox exited with {code}")

    def first_audible(self) -> float | None:
        return self.heard
