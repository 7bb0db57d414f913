"""The macOS backend: TextEdit through AppleScript, keys through System Events, a named
virtual input device (BlackHole 2ch by default).

**Not yet run on a Mac by us.** Its command sequences are built here as data and tested
as data (``tests/test_desktop_macos.py``); ``docs/desktop.md`` has the check-list for a
first run. Everything goes through :meth:`MacBackend.run` (``osascript``, ``sox``,
``system_profiler``), so a first run on a Mac exercises exactly these commands.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ...errors import ProductError
from .linux_process import _Process, rig_lock_path, start_logged
from .settle import Snapshot
from .xkeys import KEY_CODES, Hotkey

__all__ = ["KEY_CODES", "WINDOW_TITLES_SCRIPT", "MacBackend", "hotkey_script",
           "new_document_script", "play_command", "read_document_script"]

_MODIFIERS = {"Control_L": "control down", "Shift_L": "shift down", "Alt_L": "option down",
              "Super_L": "command down", "Meta_L": "command down"}


def _applescript(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def new_document_script(title: str) -> str:
    """AppleScript: a new plain-text TextEdit document named ``title``, frontmost."""
    return "\n".join([
        'tell application "TextEdit"',
        "  activate",
        "  set doc to make new document",
        f"  set name of doc to {_applescript(title)}",
        "end tell",
        'tell application "System Events" to tell process "TextEdit"',
        '  keystroke "t" using {command down, shift down}',  # Format > Make Plain Text
        "end tell",
    ])


def read_document_script(title: str) -> str:
    """AppleScript printing ``focused<TAB>text``: whether TextEdit is frontmost with the
    document ``title`` in front, then the document's text."""
    name = _applescript(title)
    return "\n".join([
        'tell application "System Events" to set front to name of first process whose '
        "frontmost is true",
        'tell application "TextEdit"',
        f"  set body to text of document {name}",
        f"  set infront to (name of front window is {name})",
        "end tell",
        'return ((front is "TextEdit") and infront as string) & tab & body',
    ])


def close_document_script(title: str) -> str:
    return (f'tell application "TextEdit" to close document {_applescript(title)} '
            "saving no")


def hotkey_script(hotkey: Hotkey, action: str) -> str:
    """AppleScript sending ``hotkey`` through System Events: ``action`` is ``tap``
    (``key code``), ``down`` or ``up`` (``key down``/``key up`` of each key, for
    hold-to-talk)."""
    if hotkey.key not in KEY_CODES:
        raise ValueError(f"hotkey {hotkey.spec!r}: no macOS key code for {hotkey.key!r} "
                         f"(known: {', '.join(sorted(KEY_CODES))})")
    code = KEY_CODES[hotkey.key]
    using = ", ".join(_MODIFIERS[m] for m in hotkey.modifiers)
    lines = ['tell application "System Events"']
    if action == "tap":
        lines.append(f"  key code {code}" + (f" using {{{using}}}" if using else ""))
    elif action in ("down", "up"):
        mods = [m.removesuffix(" down") for m in (_MODIFIERS[m] for m in hotkey.modifiers)]
        keys = [*mods, f"(key code {code})"] if action == "down" else \
            [f"(key code {code})", *reversed(mods)]
        lines += [f"  key {action} {key}" for key in keys]
    else:
        raise ValueError(f"unknown hotkey action {action!r}")
    return "\n".join([*lines, "end tell"])


def play_command(audio: Path, device: str) -> list[str]:
    """Play ``audio`` once into the Core Audio device ``device`` (sox)."""
    return ["sox", "-q", str(audio), "-t", "coreaudio", device]


def record_command(device: str) -> list[str]:
    """Record the device as raw 16 kHz mono samples on standard output (the tap)."""
    return ["sox", "-q", "-t", "coreaudio", device, "-t", "raw", "-r", "16000", "-c", "1",
            "-b", "16", "-e", "signed-integer", "-"]


#: The titles of the visible processes' windows, one a line (``ready_window``).
WINDOW_TITLES_SCRIPT = "\n".join([
    'set titles to ""',
    'tell application "System Events"',
    "  repeat with shown in (every process whose visible is true)",
    "    repeat with each in (every window of shown)",
    "      set titles to titles & (name of each) & linefeed",
    "    end repeat",
    "  end repeat",
    "end tell",
    "return titles"])


Runner = Callable[[Sequence[str]], str]


def _run(argv: Sequence[str]) -> str:
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=30,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {(done.stderr or done.stdout).strip()}")
    return done.stdout


class MacDocument:
    """A TextEdit document, read with AppleScript every ``poll_s``."""

    def __init__(self, title: str, run: Runner, poll_s: float = 0.1) -> None:
        self.title, self.run = title, run
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


class MacBackend:
    """See module doc; ``device`` is the virtual input (``BlackHole 2ch``)."""

    platform = "macos"

    def __init__(self, device: str, run: Runner = _run) -> None:
        self.device, self.run = device, run

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
        for tool, hint in (("sox", "brew install sox"), ("osascript", "part of macOS")):
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

    @contextlib.contextmanager
    def claim(self) -> Iterator[None]:
        import fcntl

        with open(rig_lock_path("route", self.device), "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ProductError(f"another dictbench desktop rig is running on input "
                                   f"device {self.device!r}: one rig per audio route"
                                   ) from None
            yield

    def launch(self, argv: Sequence[str], log: Path | None) -> _Process:
        return start_logged(argv, None, log)

    def open_document(self, title: str) -> MacDocument:
        return MacDocument(title, self.run)

    def key_down(self, hotkey: Hotkey) -> None:
        self.run(["osascript", "-e", hotkey_script(hotkey, "down")])

    def key_up(self, hotkey: Hotkey) -> None:
        self.run(["osascript", "-e", hotkey_script(hotkey, "up")])

    def play(self, audio: Path) -> _MacPlayback:
        from .driver import audible_span

        onset, _ = audible_span(audio)
        started = time.monotonic()
        return _MacPlayback(subprocess.Popen(play_command(audio, self.device),
                                             stderr=subprocess.PIPE), started + onset)

    def window_titles(self) -> list[str]:
        try:
            listed = self.run(["osascript", "-e", WINDOW_TITLES_SCRIPT])
        except (RuntimeError, OSError):
            return []
        return [line for line in listed.splitlines() if line]

    def record_screen(self, path: Path) -> _Process | None:
        path.parent.mkdir(parents=True, exist_ok=True)
        return _Process(subprocess.Popen(["screencapture", "-v", "-C", str(path)],
                                         stdin=subprocess.PIPE), "q")

    def close(self) -> None:
        return None


class _MacPlayback:
    """sox playing into the device. No tap on macOS yet: the first audible sample is
    dated as the start of sox plus the file's onset (sox's start-up latency is in it)."""

    def __init__(self, process: subprocess.Popen[bytes], heard: float) -> None:
        self.process, self.heard = process, heard

    def wait(self, timeout_s: float) -> None:
        code = self.process.wait(timeout=timeout_s)
        if code != 0:
            raise RuntimeError(f"sox exited with {code}")

    def first_audible(self) -> float | None:
        return self.heard
