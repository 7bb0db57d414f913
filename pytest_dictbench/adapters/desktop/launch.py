"""What the driver checks around the app's launches: the hotkey's X grab, how an app
ended, and the stand-in for an app the operator started."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable

from ...errors import CaptureError
from .backend import DesktopBackend
from .config import DesktopConfig

__all__ = ["GRAB_RELEASE_S", "OperatorsApp", "check_grab", "exit_reason"]

#: How long a hotkey grab may outlive the app that held it (X frees it on disconnect).
GRAB_RELEASE_S = 2.0


def exit_reason(code: int) -> str:
    """``status 3`` or ``killed by signal 11 (SIGSEGV)``."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown"
        return f"was killed by signal {-code} ({name})"
    return f"exited with status {code}"


def check_grab(backend: DesktopBackend, config: DesktopConfig, want_held: bool,
               clock: Callable[[], float] = time.monotonic) -> None:
    """With ``hotkey_grab_check``: before a launch nobody may grab the hotkey (an app left
    running would take the presses); with an operator's app, somebody must."""
    probe = getattr(backend, "grab_holder", None)
    if not config.hotkey_grab_check or not callable(probe):
        return
    held = probe(config.hotkey)
    deadline = clock() + GRAB_RELEASE_S
    while held and not want_held and clock() < deadline:
        time.sleep(0.05)  # an app just stopped: X may not have seen it go yet
        held = probe(config.hotkey)
    where = f"on display {getattr(backend, 'display', '')!r}"
    if held and not want_held:
        raise CaptureError(f"another X client already grabs {config.hotkey.spec} {where} "
                           "(an app left by an earlier run, or another program): the app "
                           "under test could not grab it")
    if want_held and not held:
        raise CaptureError(f"no X client grabs {config.hotkey.spec} {where}: is the app "
                           "running? (relaunch = \"never\": start it first; "
                           "hotkey_grab_check = false for an app that reads keys another "
                           "way)")


class OperatorsApp:
    """An app the operator started (``relaunch = "never"``): never stopped by the rig."""

    def exit_code(self) -> int | None:
        return None

    def stop(self) -> None:
        return None
