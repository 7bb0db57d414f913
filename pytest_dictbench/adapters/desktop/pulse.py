"""The Linux audio route: a PulseAudio (or PipeWire-pulse) null sink as virtual microphone.

The rig plays the case's audio into the null sink ``NAME``; its monitor ``NAME.monitor``
is made the default source, which is what a dictation app records. A *tap* records the
same monitor, so the moment of the first audible sample is the moment it reaches the
virtual microphone, on the clock the document's snapshots use (``time.monotonic``).
Uses the PulseAudio command-line tools (``pactl``, ``paplay``, ``parec``).
"""

from __future__ import annotations

import array
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .journal import Journal

__all__ = ["AUDIBLE", "PulseRoute", "SampleClock", "Tap"]

#: A sample louder than this (of full scale, about -40 dBFS) is audible.
AUDIBLE = 0.01
TAP_RATE = 16000
#: paplay's buffer, in milliseconds.
PLAY_LATENCY_MS = 250
_CHUNK = 160  # samples per read: 10 ms
#: The description of a sink the rig loads: tells its modules from anyone else's.
RIG_TAG = "dictbench-rig"


class PulseRoute:
    """The null sink ``sink`` as the default source, set up and taken down by the rig."""

    def __init__(self, sink: str, env: Mapping[str, str] | None = None) -> None:
        self.sink = sink
        self.env = dict(os.environ if env is None else env)
        self._module: str | None = None
        self._previous_source: str | None = None
        self._module_entry: int | None = None
        self._source_entry: int | None = None
        #: Whether :meth:`setup` loaded the sink (False: it existed).
        self.created = False

    def _pactl(self, *args: str) -> str:
        done = subprocess.run(["pactl", *args], capture_output=True, text=True, env=self.env,
                              timeout=10, check=False)
        if done.returncode != 0:
            said = " ".join((done.stderr or done.stdout).split()) or str(done.returncode)
            raise RuntimeError(f"pactl {' '.join(args)}: {said}")
        return done.stdout

    def problems(self) -> list[str]:
        """What stops the route from working here (empty: nothing)."""
        missing = [t for t in ("pactl", "paplay", "parec") if shutil.which(t) is None]
        if missing:
            return [f"PulseAudio tools missing: {', '.join(missing)} (apt-get install "
                    "pulseaudio-utils)"]
        try:
            self._pactl("info")
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            return [f"no PulseAudio/PipeWire server answers ({exc}); start one, e.g. "
                    "`pulseaudio --daemonize=yes --exit-idle-time=-1`"]
        return []

    def info(self, field: str) -> str:
        """A field of ``pactl info`` (``Server String``, ``Default Source``, ...)."""
        for line in self._pactl("info").splitlines():
            if line.startswith(field + ":"):
                return line.split(":", 1)[1].strip()
        return ""

    def server(self) -> str:
        """The server actually used (its socket's real path), however ``PULSE_SERVER``
        spells it (``unix:/x/native``, ``/x/native``, or unset with the same runtime
        folder)."""
        server = self.info("Server String") or self.env.get("PULSE_SERVER", "")
        server = server.removeprefix("unix:")
        return os.path.realpath(server) if server.startswith("/") else server

    def default_source(self) -> str:
        return self.info("Default Source")

    def sinks(self) -> dict[str, str]:
        """Sink name -> its driver (``module-null-sink.c`` for a null sink)."""
        found = {}
        for line in self._pactl("list", "short", "sinks").splitlines():
            fields = line.split("\t")
            if len(fields) >= 3:
                found[fields[1]] = fields[2]
        return found

    def sources(self) -> list[str]:
        return [line.split("\t")[1] for line in self._pactl("list", "short", "sources")
                .splitlines() if "\t" in line]

    def rig_modules(self, sink: str) -> list[str]:
        """Indexes of the null-sink modules the rig loaded for ``sink`` (tagged)."""
        found = []
        for line in self._pactl("list", "short", "modules").splitlines():
            fields = line.split("\t")
            if len(fields) >= 3 and fields[1] == "module-null-sink" and \
                    f"sink_name={sink}" in fields[2].split() and RIG_TAG in fields[2]:
                found.append(fields[0])
        return found

    def setup(self, journal: Journal | None = None) -> None:
        """Create the null sink when missing and make its monitor the default source,
        each change written to ``journal`` before it is made. An existing sink of that
        name is used when it is a null sink (:attr:`created` False), refused otherwise
        (the audio would come out of a device)."""
        sinks = self.sinks()
        if self.sink in sinks:
            if "null" not in sinks[self.sink]:
                raise RuntimeError(f"a sink named {self.sink!r} exists and is not a null sink "
                                   f"(driver {sinks[self.sink]}): the case audio would be "
                                   "played out loud; set [settings] input_device to "
                                   "another name")
            self.created = False
        else:
            entry = journal.add("module", sink=self.sink) if journal else None
            try:
                self._module = self._pactl(
                    "load-module", "module-null-sink", f"sink_name={self.sink}",
                    f"sink_properties=device.description={RIG_TAG}").strip()
            except RuntimeError as exc:
                if journal:
                    journal.remove(entry)
                raise RuntimeError(f"cannot create the virtual microphone: {exc}") from None
            if journal and entry is not None:
                journal.update(entry, index=self._module)
            self._module_entry = entry
            self.created = True
        self.claim_default(journal)

    def claim_default(self, journal: Journal | None = None) -> None:
        """Make the monitor the default source (again), noting the one it replaces."""
        monitor = f"{self.sink}.monitor"
        current = self.default_source()
        if current == monitor:
            return
        if self._source_entry is None:
            self._previous_source = current
            if journal:
                self._source_entry = journal.add("default_source", previous=current,
                                                 set=monitor)
        self._pactl("set-default-source", monitor)

    def route_problem(self) -> str | None:
        """What is wrong with the route now (None: the monitor is the default source)."""
        try:
            current = self.default_source()
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            return f"the sound server does not answer ({exc})"
        if current != f"{self.sink}.monitor":
            return f"the default source changed to {current!r}"
        return None

    def teardown(self, journal: Journal | None = None) -> None:
        """Give back the previous default source and remove a sink the rig created."""
        try:
            if self._previous_source and self._previous_source != f"{self.sink}.monitor" \
                    and self.default_source() == f"{self.sink}.monitor":
                self._pactl("set-default-source", self._previous_source)
            if journal:
                journal.remove(self._source_entry)
            self._source_entry = None
            if self._module:
                self._pactl("unload-module", self._module)
            if journal:
                journal.remove(self._module_entry)
            self._module_entry = None
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            pass
        self._module = None

    def play(self, audio: Path) -> subprocess.Popen[bytes]:
        """Start playing ``audio`` once, in real time, into the sink."""
        # a deep buffer: a player starved for a moment must not leave gaps in the audio
        # (the timings come from the tap, so the buffer's latency does not enter them)
        return subprocess.Popen(["paplay", f"--latency-msec={PLAY_LATENCY_MS}", "-d",
                                 self.sink, str(audio)],
                                env=self.env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)


class SampleClock:
    """Dates the samples of a real-time stream by their count, not by when they are read.

    A reader on a loaded machine reads late, and a backlog read at once would be dated
    late by as much; it is never early. So the stream's start is the earliest of
    ``read time - samples read so far / rate`` over all reads, and sample ``i`` came at
    ``start + i / rate``.
    """

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self.count = 0
        self.start: float | None = None

    def add(self, samples: int, now: float) -> float:
        """Count ``samples`` more, read at ``now``; when the first of them arrived."""
        first = self.count
        self.count += samples
        estimate = now - self.count / self.rate
        if self.start is None or estimate < self.start:
            self.start = estimate
        return self.start + first / self.rate


class Tap:
    """Records the virtual microphone and notes when the first audible sample arrives."""

    def __init__(self, route: PulseRoute) -> None:
        self._process = subprocess.Popen(
            ["parec", "--raw", "--format=s16le", f"--rate={TAP_RATE}", "--channels=1",
             "--latency-msec=10", "-d", f"{route.sink}.monitor"],
            env=route.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        self._lock = threading.Lock()
        self._armed = False
        self._first: float | None = None
        self._last: float | None = None
        self._streaming = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def arm(self) -> None:
        """Forget what was heard; the next audible sample is the first."""
        with self._lock:
            self._armed, self._first, self._last = True, None, None

    def wait_streaming(self, timeout_s: float) -> bool:
        """Wait until the tap reads samples from the monitor (False: not in time); audio
        played before then would be heard late or not at all."""
        return self._streaming.wait(timeout_s)

    def heard(self) -> tuple[float | None, float | None]:
        """(first, last) audible sample since :meth:`arm`, in ``time.monotonic`` seconds."""
        with self._lock:
            return self._first, self._last

    def _read(self) -> None:
        threshold = AUDIBLE * 32768
        stream = self._process.stdout
        assert stream is not None
        pending = b""
        clock = SampleClock(TAP_RATE)
        while True:
            data = stream.read(_CHUNK * 2)
            if not data:
                return
            now = time.monotonic()
            self._streaming.set()
            pending += data
            usable = len(pending) - len(pending) % 2
            samples = array.array("h", pending[:usable])
            pending = pending[usable:]
            base = clock.add(len(samples), now)
            loud = [i for i, s in enumerate(samples) if abs(s) > threshold]
            if not loud:
                continue
            first, last = base + loud[0] / TAP_RATE, base + loud[-1] / TAP_RATE
            with self._lock:
                if self._armed:
                    if self._first is None:
                        self._first = first
                    self._last = last

    def close(self) -> None:
        self._process.terminate()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()  # gone before the rig says it is closed
