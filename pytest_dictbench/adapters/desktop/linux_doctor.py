"""What ``dictbench desktop doctor`` looks at beyond a run's own checks, on Linux: the
versions of the parts a measurement depends on, and signs of an earlier run's leftovers
that no journal names (the rig's monitor as default source, a hotkey held by a client)."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import DesktopConfig
    from .linux import LinuxBackend

__all__ = ["machine_problems", "versions"]


def versions(backend: LinuxBackend, record_screen: bool) -> list[str]:
    """``name version`` of the X server, the sound server, python-xlib, Tk, ffmpeg."""
    found: list[str] = []
    with contextlib.suppress(Exception):
        info = backend.keys.display.display.info
        found.append(f"X server {info.vendor.strip()} release {info.release_number} "
                     f"(display {backend.display!r})")
    with contextlib.suppress(Exception):
        found.append(f"sound server {backend.route.info('Server Name')} "
                     f"{backend.route.info('Server Version')} ({backend.route.server()})")
    with contextlib.suppress(Exception):
        import Xlib

        found.append("python-xlib " + ".".join(str(p) for p in Xlib.__version__))
    with contextlib.suppress(Exception):
        import tkinter

        found.append(f"Tk {tkinter.TkVersion}")
    if record_screen and shutil.which("ffmpeg"):
        with contextlib.suppress(Exception):
            done = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True,
                                  timeout=10, check=False)
            found.append(done.stdout.splitlines()[0])
    return found


def machine_problems(backend: LinuxBackend, config: DesktopConfig) -> tuple[list[str], list[str]]:
    """(problems, notes) of the machine as a run would find it (with the rig free)."""
    problems: list[str] = []
    notes: list[str] = []
    monitor = f"{backend.sink}.monitor"
    with contextlib.suppress(Exception):
        if backend.route.default_source() == monitor:
            problems.append(f"the default source is the rig's own monitor {monitor!r} with "
                            "no run holding the rig (left by a killed run?): `pactl "
                            "set-default-source <your microphone>`")
        sinks = backend.route.sinks()
        if backend.sink in sinks:
            if "null" not in sinks[backend.sink]:
                problems.append(f"a sink named {backend.sink!r} exists and is not a null "
                                f"sink ({sinks[backend.sink]}): the rig would play out loud")
            elif not backend.route.rig_modules(backend.sink):
                notes.append(f"sink {backend.sink!r} exists (not made by the rig): a run "
                             "uses it and leaves it loaded")
            else:
                problems.append(f"sink {backend.sink!r} made by an earlier rig is still "
                                "loaded: `dictbench desktop reset`")
    with contextlib.suppress(Exception):
        if config.hotkey_grab_check and config.app:
            if backend.keys.grabbed_elsewhere(config.hotkey):
                problems.append(f"another X client already grabs {config.hotkey.spec} on "
                                f"display {backend.display!r} (an app left by an earlier "
                                "run?): the app under test could not grab it")
        elif config.hotkey_grab_check and config.relaunch == "never" and \
                not backend.keys.grabbed_elsewhere(config.hotkey):
            problems.append(f"no X client grabs {config.hotkey.spec} on display "
                            f"{backend.display!r}: is the app running?")
    return problems, notes
