"""The Linux backend: X11 (XTest) for keys, our own editor window, a PulseAudio null sink.

Needs an X display (``$DISPLAY`` or the ``display`` setting; Xvfb in CI), a PulseAudio or
PipeWire-pulse server, the PulseAudio tools, python-xlib (the ``desktop`` extra) and
python3-tk; ``ffmpeg`` only for ``record_screen``. See ``docs/desktop.md``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ...errors import CaptureError, ProductError
from .journal import TOKEN_ENV, Journal, journal_path
from .leftovers import processes_of, stop_processes, undo
from .linux_editor import EditorProcess, LinuxDocument
from .linux_process import (
    _Process,
    app_problem,
    busy_message,
    rig_lock_path,
    start_logged,
    stop_process,
)
from .pulse import PulseRoute, Tap
from .xkeys import Hotkey, XKeys

__all__ = ["LinuxBackend", "app_problem", "rig_lock_path", "start_logged"]

#: Lock files this process holds (a second open of one would be refused by flock).
_HELD: set[Path] = set()


#: The longest wait for ffmpeg's first frame of a screen recording.
SCREEN_START_S = 30.0
#: The longest wait for the tap to read the virtual microphone before the first audio.
TAP_WAIT_S = 15.0


class _Playback:
    def __init__(self, process: subprocess.Popen[bytes], tap: Tap) -> None:
        self.process, self.tap = process, tap

    def wait(self, timeout_s: float) -> None:
        try:
            code = self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise RuntimeError(f"the audio did not finish playing in {timeout_s:.0f} s"
                               ) from None
        if code != 0:
            error = self.process.stderr.read().decode(errors="replace") \
                if self.process.stderr else ""
            raise RuntimeError(f"paplay exited with {code}: {error.strip()[-300:]}")

    def first_audible(self) -> float | None:
        return self.tap.heard()[0]


class LinuxBackend:
    """See module doc. ``display`` None: ``$DISPLAY``; ``sink``: the null sink's name."""

    platform = "linux"

    def __init__(self, display: str | None, sink: str, record_screen: bool = False) -> None:
        self.display = display or os.environ.get("DISPLAY", "")
        self.sink, self.screen = sink, record_screen
        self.env = {**os.environ, "DISPLAY": self.display}
        self.route = PulseRoute(sink, self.env)
        self._keys: XKeys | None = None
        self._editor: EditorProcess | None = None
        self._tap: Tap | None = None
        self._player: subprocess.Popen[bytes] | None = None
        self._routed = False
        self.journal: Journal | None = None
        self._keys_entry: int | None = None
        self._repeat: tuple[int | None, int] | None = None
        #: What this rig undid of a killed run's leftovers when it took the rig.
        self.recovered: list[str] = []

    # -- checks -------------------------------------------------------------------------

    def problems(self, app: Sequence[str], hotkey: Hotkey | None = None) -> list[str]:
        found: list[str] = []
        if not self.display:
            found.append("no X display: set DISPLAY or the product's [settings] display "
                         "(headless: `Xvfb :99 &` then DISPLAY=:99; apt-get install xvfb)")
        else:
            try:
                import Xlib.display  # noqa: F401  (the desktop extra)
            except ImportError:
                found.append("python-xlib is missing: pip install 'pytest-dictbench[desktop]'")
            else:
                try:
                    keys = XKeys(self.display)
                except Exception as exc:
                    found.append(f"cannot use X display {self.display!r} ({exc}); start it "
                                 "(Xvfb) or check DISPLAY and XAUTHORITY")
                else:
                    try:
                        if hotkey is not None:
                            keys.check(hotkey)
                    except ValueError as exc:
                        found.append(f"[settings] hotkey {hotkey.spec!r}: {exc}")
                    finally:
                        keys.close()
        try:
            import tkinter  # noqa: F401
        except ImportError:
            found.append("tkinter is missing (the document window): apt-get install "
                         "python3-tk")
        found += self.route.problems()
        if self.screen and shutil.which("ffmpeg") is None:
            found.append("ffmpeg is missing (record_screen = true): apt-get install ffmpeg")
        problem = app_problem(app)
        if problem:
            found.append(problem)
        return found

    def _locks(self) -> list[tuple[str, str, Path]]:
        """(kind, name, lock file) of the display and of the audio route, named by the
        server actually used, so two spellings of one server share a lock."""
        try:
            server = self.route.server()
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            server = self.env.get("PULSE_SERVER") or self.env.get("XDG_RUNTIME_DIR", "")
        route = f"{server} {self.sink}"
        return [("display", self.display, rig_lock_path("display", self.display)),
                ("route", route, rig_lock_path("route", route))]

    def busy(self) -> str | None:
        """Who holds this display or route now (None: free, or held by this process)."""
        for _kind, _name, path in self._locks():
            if path in _HELD or not path.exists():
                continue
            with open(path, "a+") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    handle.seek(0)
                    return busy_message(handle.read().strip(), self._locks())
        return None

    def leftovers(self) -> list[str]:
        """Undo what a killed run left on this display (see :mod:`.leftovers`); what was
        undone. With the rig busy, nothing is touched (the journal is a live run's)."""
        with contextlib.ExitStack() as stack:
            for _kind, _name, path in self._locks():
                if path in _HELD:
                    return []
                handle = stack.enter_context(open(path, "a+"))
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return []
            return self._undo_journal()

    def _undo_journal(self) -> list[str]:
        left = Journal.read(journal_path(self.display))
        if left is None or not left.entries:
            return []
        return undo(left, self.route, self._release_keys)

    def _release_keys(self, entry: dict[str, Any]) -> str:
        keys = [str(k) for k in entry.get("keys", ())]
        if entry["kind"] == "autorepeat":
            XKeys(self.display).set_autorepeat(int(entry["keycode"]), True, close=True)
            return f"turned autorepeat back on for {entry.get('key')!r}"
        if entry["kind"] == "grab":
            return f"its probe grab of {entry.get('hotkey')!r} ended with its X connection"
        XKeys(self.display).release(keys, close=True)
        return f"released keys {'+'.join(keys)}"

    @contextlib.contextmanager
    def claim(self) -> Iterator[None]:
        """Hold this display and route, undo a killed run's leftovers, start a journal
        (its process token goes into every process the rig starts)."""
        with contextlib.ExitStack() as stack:
            locks = self._locks()
            for _kind, _name, path in locks:
                handle = stack.enter_context(open(path, "a+"))
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    handle.seek(0)
                    raise ProductError(busy_message(handle.read().strip(), locks)
                                       ) from None
                handle.seek(0)
                handle.truncate()
                handle.write(f"pid {os.getpid()}")
                handle.flush()
                _HELD.add(path)
                stack.callback(_HELD.discard, path)
            self.recovered = self._undo_journal()
            token = secrets.token_hex(8)
            self.journal = Journal(journal_path(self.display))
            self.journal.add("run", pid=os.getpid(), token=token, display=self.display,
                             locks=[str(path) for _, _, path in locks])
            self.env[TOKEN_ENV] = token
            self.route.env[TOKEN_ENV] = token
            try:
                yield
            finally:
                self.close()
                if self.journal is not None and all(
                        e["kind"] == "run" for e in self.journal.entries):
                    self.journal.finish()
                self.journal = None

    # -- the rig ------------------------------------------------------------------------

    @property
    def keys(self) -> XKeys:
        if self._keys is None:
            self._keys = XKeys(self.display)
        return self._keys

    def _route(self) -> Tap:
        if not self._routed:
            try:
                self.route.setup(self.journal)
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
                raise ProductError(str(exc)) from None
            self._routed = True
        if self._tap is None:
            self._tap = Tap(self.route)
        return self._tap

    def route_problem(self) -> str | None:
        """What changed in the audio route (None: as the rig set it)."""
        if not self._routed:
            return None
        problem = self.route.route_problem()
        if problem is not None and self._tap is not None:
            self._tap.close()  # it may have been moved along with the default
            self._tap = None
        return problem

    def restore_route(self) -> None:
        """Make the monitor the default source again (after :meth:`route_problem`)."""
        if self._routed:
            self.route.claim_default(self.journal)

    def _note_process(self, what: str, pid: int) -> None:
        if self.journal is not None:
            self.journal.add("process", what=what, pid=pid)

    def launch(self, argv: Sequence[str], log: Path | None) -> _Process:
        self._route()  # the app must find its default source in place
        if self._editor is None or not self._editor.alive():
            self._editor = EditorProcess(self.env)  # starts while the app starts
            self._note_process("editor", self._editor.process.pid)
        app = start_logged(argv, self.env, log)
        self._note_process("app", app.pid)
        return app

    def grab_holder(self, hotkey: Hotkey) -> bool:
        """Whether another X client grabs ``hotkey`` now (the rig's probe grab is
        refused with BadAccess); the probe is journaled while it lasts."""
        entry = self.journal.add("grab", hotkey=hotkey.spec) if self.journal else None
        try:
            return self.keys.grabbed_elsewhere(hotkey)
        finally:
            if self.journal is not None:
                self.journal.remove(entry)

    def open_document(self, title: str) -> LinuxDocument:
        if self._editor is None or not self._editor.alive():
            self._editor = EditorProcess(self.env)
            self._note_process("editor", self._editor.process.pid)
        try:
            return LinuxDocument(self._editor, title)
        except RuntimeError as exc:
            raise CaptureError(str(exc)) from None

    def key_down(self, hotkey: Hotkey) -> None:
        """Press the hotkey, its key's autorepeat off while it is held (an app gets one
        press and one release, as from a person who holds a key without repeat)."""
        code = self.keys.keycode(hotkey.key)
        if self.keys.autorepeats(code):
            entry = self.journal.add("autorepeat", keycode=code, key=hotkey.key) \
                if self.journal else None
            self.keys.set_autorepeat(code, False)
            self._repeat = (entry, code)
        if self.journal is not None and self._keys_entry is None:
            self._keys_entry = self.journal.add(
                "keys", keys=[*hotkey.modifiers, hotkey.key], hotkey=hotkey.spec)
        self.keys.down(hotkey)

    def key_up(self, hotkey: Hotkey) -> None:
        self.keys.up(hotkey)
        if self.journal is not None:
            self.journal.remove(self._keys_entry)
        self._keys_entry = None
        self._restore_repeat()

    def _restore_repeat(self) -> None:
        if self._repeat is not None:
            entry, code = self._repeat
            self.keys.set_autorepeat(code, True)
            if self.journal is not None:
                self.journal.remove(entry)
            self._repeat = None

    def focus_owner(self) -> str:
        return self.keys.focus_owner()

    def play(self, audio: Path) -> _Playback:
        tap = self._route()
        if not tap.wait_streaming(TAP_WAIT_S):
            raise CaptureError(f"the tap on {self.sink}.monitor read nothing in "
                               f"{TAP_WAIT_S:g} s: check the audio route "
                               "(`dictbench desktop doctor`)")
        tap.arm()
        self._player = self.route.play(audio)
        return _Playback(self._player, tap)

    def window_titles(self) -> list[str]:
        return self.keys.window_titles()

    def record_screen(self, path: Path) -> _Process | None:
        """Start ffmpeg on the display; returns once it has written its first frame
        (the file has its header), so the item's first instants are on the video."""
        if shutil.which("ffmpeg") is None:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        process = subprocess.Popen(screen_command(self.display, path), stdin=subprocess.PIPE,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   env=self.env, start_new_session=True)
        self._note_process("ffmpeg", process.pid)
        deadline = time.monotonic() + SCREEN_START_S
        while not (path.exists() and path.stat().st_size > 0):
            if process.poll() is not None or time.monotonic() > deadline:
                stop_process(process, group=True)
                said = process.stderr.read().decode(errors="replace") if process.stderr \
                    else ""
                raise CaptureError(f"the screen recording did not start (ffmpeg on display "
                                   f"{self.display!r}, exit status {process.returncode}): "
                                   f"{' '.join(said.split())[-300:]}")
            time.sleep(0.02)
        return _Process(process, "q")

    def close(self) -> None:
        """Stop the player, the editor and the tap, give the route back, and stop any
        process left with this run's token (an app's children)."""
        if self._player is not None:
            stop_process(self._player, grace_s=1.0)
            self._player = None
        if self._editor is not None:
            self._editor.close()
            self._editor = None
        if self._tap is not None:
            self._tap.close()
            self._tap = None
        if self._routed:
            self.route.teardown(self.journal)
            self._routed = False
        if self._keys is not None:
            with contextlib.suppress(Exception):
                if self._keys_entry is not None:
                    self._keys.release(list(self._keys_entry_keys()))
                self._restore_repeat()
            self._keys.close()
            self._keys = None
        token = self.env.get(TOKEN_ENV)
        if token:
            stop_processes(sorted(processes_of(token)))
        if self.journal is not None:
            for entry in self.journal.of("process") + self.journal.of("keys") + \
                    self.journal.of("autorepeat"):
                self.journal.remove(entry["id"])
        self._keys_entry = None

    def _keys_entry_keys(self) -> list[str]:
        if self.journal is None:
            return []
        return [str(k) for e in self.journal.of("keys") for k in e.get("keys", ())]


def screen_command(display: str, path: Path, fps: int = 10) -> list[str]:
    """The ffmpeg command recording display ``display`` to ``path`` (stopped with ``q``)."""
    return ["ffmpeg", "-loglevel", "error", "-y", "-f", "x11grab", "-framerate", str(fps),
            "-i", display, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
            str(path)]
