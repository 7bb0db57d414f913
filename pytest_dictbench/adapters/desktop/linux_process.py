"""Processes the rig starts (the app, ffmpeg, the editor) and its lock files' names."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["STOP_GRACE_S", "app_problem", "busy_message", "rig_lock_path", "start_logged",
           "stop_process", "video_problem"]

#: How long a stopped process gets (``q`` for ffmpeg, SIGTERM otherwise) before its
#: whole process group is killed.
STOP_GRACE_S = 5.0


def rig_lock_path(kind: str, name: str) -> Path:
    """The lock file of one display or audio route (one rig each), in
    ``$DICTBENCH_DESKTOP_LOCK_DIR`` or the temporary folder."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    folder = os.environ.get("DICTBENCH_DESKTOP_LOCK_DIR") or tempfile.gettempdir()
    return Path(folder) / f"dictbench-desktop-{kind}-{safe}.lock"


def stop_process(process: subprocess.Popen[Any], grace_s: float = STOP_GRACE_S,
                 group: bool = False) -> None:
    """Wait up to ``grace_s`` for ``process`` to end (it was asked to already, or is
    asked here with SIGTERM), then SIGKILL it, and with ``group`` its process group
    (a process started in a session of its own: its children go too)."""
    if process.poll() is None:
        with contextlib.suppress(OSError):
            process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if group:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)


class _Process:
    """A started process (the app, ffmpeg), in a session of its own."""

    def __init__(self, process: subprocess.Popen[Any], stop_signal: str = "terminate"
                 ) -> None:
        self.process, self._stop = process, stop_signal

    @property
    def pid(self) -> int:
        return self.process.pid

    def exit_code(self) -> int | None:
        return self.process.poll()

    def wait(self, timeout_s: float) -> int:
        """Its exit status, once it ended (at most ``timeout_s``)."""
        return self.process.wait(timeout=timeout_s)

    def stop(self) -> None:
        """End it (ffmpeg: ``q``, to finish the file), its process group too."""
        if self.process.poll() is None and self._stop == "q" and self.process.stdin:
            with contextlib.suppress(OSError):
                self.process.stdin.write(b"q")
                self.process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=STOP_GRACE_S)
            stop_process(self.process, grace_s=1.0, group=True)  # it ignored q
            return
        stop_process(self.process, group=True)


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


def video_problem(path: Path) -> str | None:
    """Why ``path`` is not a video (None: ffprobe finds a video stream in it; without
    ffprobe, a file larger than a bare header passes)."""
    if not path.is_file():
        return "the recording was not written"
    if shutil.which("ffprobe") is None:
        return None if path.stat().st_size > 1024 else "the recording is only a header"
    done = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v",
                           "-show_entries", "stream=codec_type", "-of", "csv=p=0", str(path)],
                          capture_output=True, text=True, timeout=30, check=False)
    if "video" not in done.stdout:
        said = " ".join(done.stderr.split())[-200:]
        return f"ffprobe finds no video stream in it ({said or 'no stream'})"
    return None


def app_problem(app: Sequence[str]) -> str | None:
    """Why the app's binary cannot be run (None: it can): a bare name is looked up on
    PATH, a path must be an executable file."""
    if not app:
        return None
    binary = app[0]
    if os.sep not in binary:
        if shutil.which(binary) is None:
            return (f"the app's binary {binary!r} is not found on PATH "
                    f"({os.environ.get('PATH', '')}) (the product's [settings] app)")
        return None
    path = Path(binary)
    if not path.exists():
        return f"the app's binary {binary!r} does not exist (the product's [settings] app)"
    if path.is_dir() or not os.access(path, os.X_OK):
        return (f"the app's binary {binary!r} is not executable (the product's [settings] "
                "app): chmod +x it, or start the app's argv with its interpreter")
    return None


def busy_message(holder: str, locks: list[tuple[str, str, Path]]) -> str:
    held = " and ".join(f"{kind} {name!r}" for kind, name, _ in locks)
    return (f"another dictbench desktop rig ({holder or 'another process'}) is running on "
            f"{held}: one rig per display and audio route (server and sink)")
