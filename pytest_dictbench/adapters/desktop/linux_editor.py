"""The Linux documents: the rig's editor process (:mod:`.editor`) and its windows."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from .linux_process import stop_process
from .settle import Snapshot

__all__ = ["EDITOR_START_S", "EditorProcess", "LinuxDocument"]

#: The longest wait for the document editor to start (a loaded machine is slow).
EDITOR_START_S = 120.0


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
        stop_process(self.process)


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
