"""The Linux backend: X11 (XTest) for keys, our own editor window, a PulseAudio null sink.

Needs an X display (``$DISPLAY`` or the ``display`` setting; Xvfb in CI), a PulseAudio or
PipeWire-pulse server, the PulseAudio tools, python-xlib (the ``desktop`` extra) and
python3-tk; ``ffmpeg`` only for ``record_screen``. See ``docs/desktop.md``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from ...errors import CaptureError, ProductError
from .pulse import PulseRoute, Tap
from .settle import Snapshot
from .xkeys import Hotkey, XKeys

__all__ = ["LinuxBackend", "rig_lock_path", "start_logged"]


#: The longest wait for the document editor to start (a loaded machine is slow).
EDITOR_START_S = 120.0
#: The longest wait for ffmpeg's first frame of a screen recording.
SCREEN_START_S = 30.0
#: The longest wait for the tap to read the virtual microphone before the first audio.
TAP_WAIT_S = 15.0


def rig_lock_path(kind: str, name: str) -> Path:
    """The lock file of one display or audio route (one rig each), in
    ``$DICTBENCH_DESKTOP_LOCK_DIR`` or the temporary folder."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    folder = os.environ.get("DICTBENCH_DESKTOP_LOCK_DIR") or tempfile.gettempdir()
    return Path(folder) / f"dictbench-desktop-{kind}-{safe}.lock"


class _Process:
    """A started process (the app, ffmpeg)."""

    def __init__(self, process: subprocess.Popen[Any], stop_signal: str = "terminate"
                 ) -> None:
        self.process, self._stop = process, stop_signal

    def exit_code(self) -> int | None:
        return self.process.poll()

    def stop(self) -> None:
        if self.process.poll() is None:
            if self._stop == "q" and self.process.stdin:  # ffmpeg: finish the file
                with contextlib.suppress(OSError):
                    self.process.stdin.write(b"q")
                    self.process.stdin.close()
            else:
                self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_logged(argv: Sequence[str], env: Mapping[str, str] | None, log: Path | None
                 ) -> _Process:
    """Start ``argv`` in a session of its own, its output appended to ``log``."""
    out: Any = subprocess.DEVNULL
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        out = open(log, "ab")  # noqa: SIM115  (the child keeps it)
    try:
        process = subprocess.Popen(list(argv), env=None if env is None else dict(env),
                                   stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    finally:
        if log is not None:
            out.close()
    return _Process(process)


class EditorProcess:
    """The editor (:mod:`.editor`), started once; its snapshots read as it reports them."""

    def __init__(self, env: Mapping[str, str]) -> None:
        # a script, not ``-m``: importing the package would import every adapter kind
        self.process = subprocess.Popen(
            [sys.executable, "-P", str(Path(__file__).with_name("editor.py"))],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=dict(env), text=True, encoding="utf-8")
        self._shots: dict[int, list[Snapshot]] = {}
        self._opened: set[int] = set()
        self._ready = False
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self.number = 0
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            obj = json.loads(line)
            with self._changed:
                if obj.get("ready") is True:
                    self._ready = True
                    self._changed.notify_all()
                    continue
                number = int(obj["document"])
                if "at" in obj:
                    self._shots.setdefault(number, []).append(
                        Snapshot(float(obj["at"]), str(obj["text"]), bool(obj["focused"])))
                else:
                    self._opened.add(number)
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def send(self, command: str) -> None:
        if self.process.poll() is not None or self.process.stdin is None:
            error = self.process.stderr.read() if self.process.stderr else ""
            raise RuntimeError(f"the document editor exited: {error.strip()[-500:]}")
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def new(self, title: str, timeout_s: float = 30) -> int:
        """Open a fresh document; its number once the editor shows it (waiting first,
        up to :data:`EDITOR_START_S`, for the editor to take commands)."""
        with self._changed:
            if not self._changed.wait_for(lambda: self._ready or self.process.poll()
                                          is not None, EDITOR_START_S):
                raise RuntimeError(f"the document editor did not start in "
                                   f"{EDITOR_START_S:g} s")
        self.number += 1
        self.send("new " + " ".join(title.split()))
        with self._changed:
            if not self._changed.wait_for(lambda: self.number in self._opened
                                          or self.process.poll() is not None, timeout_s):
                raise RuntimeError(f"the document editor did not open a window in "
                                   f"{timeout_s:g} s")
        if self.number not in self._opened:
            self.send("")  # raises with the editor's error
        return self.number

    def snapshots(self, number: int) -> list[Snapshot]:
        with self._lock:
            return list(self._shots.get(number, ()))

    def forget(self, number: int) -> None:
        with self._lock:
            self._shots.pop(number, None)

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self.process.stdin:
                self.process.stdin.close()
        _Process(self.process).stop()


class LinuxDocument:
    """One fresh document window of the editor."""

    def __init__(self, editor: EditorProcess, title: str) -> None:
        self.editor = editor
        self.number = editor.new(title)

    def wait_focused(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            shots = self.snapshots()
            if shots and shots[-1].focused:
                return True
            time.sleep(0.005)
        return False

    def snapshots(self) -> list[Snapshot]:
        return self.editor.snapshots(self.number)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.editor.send("close")
        self.editor.forget(self.number)


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
        self._routed = False

    # -- checks -------------------------------------------------------------------------

    def problems(self, app: Sequence[str]) -> list[str]:
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
                    XKeys(self.display).close()
                except Exception as exc:
                    found.append(f"cannot use X display {self.display!r} ({exc}); start it "
                                 "(Xvfb) or check DISPLAY and XAUTHORITY")
        try:
            import tkinter  # noqa: F401
        except ImportError:
            found.append("tkinter is missing (the document window): apt-get install "
                         "python3-tk")
        found += self.route.problems()
        if self.screen and shutil.which("ffmpeg") is None:
            found.append("ffmpeg is missing (record_screen = true): apt-get install ffmpeg")
        if app and shutil.which(app[0]) is None and not Path(app[0]).is_file():
            found.append(f"the app's binary {app[0]!r} is not found (the product's "
                         "[settings] app)")
        return found

    @contextlib.contextmanager
    def claim(self) -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            server = self.env.get("PULSE_SERVER") or self.env.get("XDG_RUNTIME_DIR", "")
            for kind, name in (("display", self.display), ("route", f"{server} {self.sink}")):
                path = rig_lock_path(kind, name)
                handle = stack.enter_context(open(path, "a+"))
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    handle.seek(0)
                    holder = handle.read().strip() or "another process"
                    raise ProductError(
                        f"another dictbench desktop rig ({holder}) is running on "
                        f"{kind} {name!r}: one rig per display and audio route") from None
                handle.seek(0)
                handle.truncate()
                handle.write(f"pid {os.getpid()}")
                handle.flush()
            yield

    # -- the rig ------------------------------------------------------------------------

    @property
    def keys(self) -> XKeys:
        if self._keys is None:
            self._keys = XKeys(self.display)
        return self._keys

    def _route(self) -> Tap:
        if not self._routed:
            self.route.setup()
            self._routed = True
        if self._tap is None:
            self._tap = Tap(self.route)
        return self._tap

    def launch(self, argv: Sequence[str], log: Path | None) -> _Process:
        self._route()  # the app must find its default source in place
        if self._editor is None or not self._editor.alive():
            self._editor = EditorProcess(self.env)  # starts while the app starts
        return start_logged(argv, self.env, log)

    def open_document(self, title: str) -> LinuxDocument:
        if self._editor is None or not self._editor.alive():
            self._editor = EditorProcess(self.env)
        try:
            return LinuxDocument(self._editor, title)
        except RuntimeError as exc:
            raise CaptureError(str(exc)) from None

    def key_down(self, hotkey: Hotkey) -> None:
        self.keys.down(hotkey)

    def key_up(self, hotkey: Hotkey) -> None:
        self.keys.up(hotkey)

    def play(self, audio: Path) -> _Playback:
        tap = self._route()
        if not tap.wait_streaming(TAP_WAIT_S):
            raise CaptureError(f"the tap on {self.sink}.monitor read nothing in "
                               f"{TAP_WAIT_S:g} s: check the audio route "
                               "(`dictbench desktop doctor`)")
        tap.arm()
        return _Playback(self.route.play(audio), tap)

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
                                   env=self.env)
        deadline = time.monotonic() + SCREEN_START_S
        while not (path.exists() and path.stat().st_size > 0):
            if process.poll() is not None or time.monotonic() > deadline:
                _Process(process).stop()
                said = process.stderr.read().decode(errors="replace") if process.stderr \
                    else ""
                raise CaptureError(f"the screen recording did not start (ffmpeg on display "
                                   f"{self.display!r}, exit status {process.returncode}): "
                                   f"{' '.join(said.split())[-300:]}")
            time.sleep(0.02)
        return _Process(process, "q")

    def close(self) -> None:
        if self._editor is not None:
            self._editor.close()
            self._editor = None
        if self._tap is not None:
            self._tap.close()
            self._tap = None
        if self._routed:
            self.route.teardown()
            self._routed = False
        if self._keys is not None:
            self._keys.close()
            self._keys = None


def screen_command(display: str, path: Path, fps: int = 10) -> list[str]:
    """The ffmpeg command recording display ``display`` to ``path`` (stopped with ``q``)."""
    return ["ffmpeg", "-loglevel", "error", "-y", "-f", "x11grab", "-framerate", str(fps),
            "-i", display, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
            str(path)]
