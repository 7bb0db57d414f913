"""A private desktop for the desktop rig's tests: Xvfb and PulseAudio of their own.

:func:`private_desktop` starts Xvfb on a free display number and a PulseAudio server in a
private runtime folder (one "speakers" sink; the rig sets its own route up), points ``DISPLAY``,
``XDG_RUNTIME_DIR`` and ``PULSE_SERVER`` at them (and the rig's lock files into the
runtime folder), and stops both afterwards, removing the folder. Needs
``xvfb``, ``pulseaudio``, ``pulseaudio-utils`` (``.ci/run`` installs them); without
them the tests skip, with that reason, except in CI, where they fail.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

APPS = Path(__file__).parent / "desktop_apps"
NEEDED = ("Xvfb", "pulseaudio", "pactl", "paplay", "parec")


@dataclass
class Desktop:
    display: str
    runtime: Path
    env: dict[str, str]


def require_desktop() -> None:
    """Skip (fail in CI) when the tools for a private desktop are missing."""
    missing = [tool for tool in NEEDED if shutil.which(tool) is None]
    try:
        import tkinter  # noqa: F401

        import Xlib  # noqa: F401
    except ImportError as exc:
        missing.append(str(exc))
    if missing:
        reason = (f"desktop rig tests need {', '.join(missing)} (apt-get install xvfb "
                  "pulseaudio pulseaudio-utils python3-tk; pip install '.[desktop]')")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


def _wait(check: object, what: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not start in {timeout} s")


@contextlib.contextmanager
def private_desktop() -> Iterator[Desktop]:
    """Xvfb + PulseAudio for one test module, the environment pointed at them."""
    require_desktop()
    runtime = Path(tempfile.mkdtemp(prefix="dictbench-desktop-"))
    runtime.chmod(0o700)
    # Xvfb picks a free display number itself and tells it on a pipe: two test
    # processes starting at once cannot end up on one display
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1024x768x24",
                             "-nolisten", "tcp"], pass_fds=(write,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as told:
        answer = told.readline().strip()
    if not answer.isdigit():
        xvfb.kill()
        raise RuntimeError(f"Xvfb did not start (exit status {xvfb.poll()})")
    number = int(answer)
    saved = {k: os.environ.get(k) for k in ("DISPLAY", "XDG_RUNTIME_DIR", "PULSE_SERVER",
                                            "DICTBENCH_DESKTOP_LOCK_DIR")}
    env = {"DISPLAY": f":{number}", "XDG_RUNTIME_DIR": str(runtime),
           "PULSE_SERVER": f"unix:{runtime}/pulse/native",
           "DICTBENCH_DESKTOP_LOCK_DIR": str(runtime)}  # removed with it
    os.environ.update(env)
    try:
        subprocess.run(["pulseaudio", "--daemonize=yes", "--exit-idle-time=-1", "-n",
                        "--load=module-native-protocol-unix auth-anonymous=1",
                        "--load=module-null-sink sink_name=speakers"],
                       check=True, capture_output=True, env=os.environ.copy(), timeout=30)
        _wait(lambda: subprocess.run(["pactl", "info"], capture_output=True).returncode == 0,
              "PulseAudio")
        yield Desktop(f":{number}", runtime, {**os.environ})
    finally:
        subprocess.run(["pulseaudio", "-k"], capture_output=True, env=os.environ.copy(),
                       timeout=30, check=False)
        xvfb.terminate()
        try:
            xvfb.wait(timeout=10)
        except subprocess.TimeoutExpired:
            xvfb.kill()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(runtime, ignore_errors=True)


def pactl(*args: str) -> str:
    """``pactl``'s output for ``args`` (on the desktop's PulseAudio server)."""
    return subprocess.run(["pactl", *args], capture_output=True, text=True, check=True,
                          timeout=30).stdout


def app_argv(name: str, *args: str) -> list[str]:
    """The command line of a test app (``reference_app`` or ``scripted_app``)."""
    return [sys.executable, str(APPS / f"{name}.py"), *args]
