"""What both test apps share: a global hotkey, the microphone, typing (X11 + PulseAudio)."""

from __future__ import annotations

import argparse
import array
import collections
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from Xlib import X, display

from tests.desktop_apps import READY, rig_module

AUDIBLE = rig_module("pulse").AUDIBLE
SampleClock = rig_module("pulse").SampleClock
XKeys = rig_module("xkeys").XKeys
parse_hotkey = rig_module("xkeys").parse_hotkey

RATE = 16000
_MASKS = {"Control_L": X.ControlMask, "Shift_L": X.ShiftMask, "Alt_L": X.Mod1Mask,
          "Super_L": X.Mod4Mask, "Meta_L": X.Mod1Mask}


def log(message: str) -> None:
    print(f"{time.monotonic():.3f} {message}", flush=True)


class Mic:
    """Records the default source all the time; keeps samples while :attr:`recording`."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ["parec", "--raw", "--format=s16le", f"--rate={RATE}", "--channels=1",
             "--latency-msec=10"], stdout=subprocess.PIPE, bufsize=0)
        self.recording = False
        self.samples = array.array("h")
        self.heard = threading.Event()
        #: When the first audible sample since :meth:`start` came (dated like the rig's
        #: tap, by the sample count), once :attr:`heard` is set.
        self.heard_at = 0.0
        #: Set once the default source delivers samples.
        self.streaming = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        threshold = AUDIBLE * 32768
        clock = SampleClock(RATE)
        while True:
            data = self.process.stdout.read(320)
            if not data:
                return
            now = time.monotonic()
            self.streaming.set()
            chunk = array.array("h", data[: len(data) - len(data) % 2])
            base = clock.add(len(chunk), now)
            if self.recording:
                self.samples.extend(chunk)
                loud = [i for i, s in enumerate(chunk) if abs(s) > threshold]
                if loud and not self.heard.is_set():
                    self.heard_at = base + loud[0] / RATE
                    self.heard.set()

    def start(self) -> None:
        self.samples = array.array("h")
        self.heard.clear()
        self.recording = True

    def stop(self) -> array.array:
        self.recording = False
        return self.samples


def arguments(extra: Callable[[argparse.ArgumentParser], None] | None = None
              ) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hotkey", default="F9")
    parser.add_argument("--mode", choices=("toggle", "hold"), default="toggle")
    parser.add_argument("--grab-delay", type=float, default=0.0,
                        help="seconds before grabbing the hotkey (a slow start)")
    parser.add_argument("--window", help="map a window with this title once ready")
    if extra:
        extra(parser)
    return parser.parse_args()


def run(args: argparse.Namespace, mic: Mic, on_start: Callable[[], None],
        on_stop: Callable[[], None]) -> None:
    """Grab the hotkey on the root window and call back on start and stop, forever.

    Prints its ready line (the tests' ``ready_log``) only once the hotkey is grabbed
    and the microphone delivers samples: a press before then would be lost."""
    mode, spec = args.mode, args.hotkey
    time.sleep(args.grab_delay)
    hotkey = parse_hotkey(spec)
    keys = XKeys()
    x = display.Display()
    root = x.screen().root
    code = keys.keycode(hotkey.key)
    mask = 0
    for name in hotkey.modifiers:
        mask |= _MASKS[name]
    grab(x, root, code, mask)
    if not mic.streaming.wait(60):
        fail("the default source delivered no samples in 60 s")
    if args.window:
        shown = root.create_window(960, 700, 40, 40, 0, x.screen().root_depth,
                                   background_pixel=x.screen().black_pixel)
        shown.set_wm_name(args.window)
        shown.map()
        x.sync()
    log(f"{READY} hotkey {spec} ({mode})")
    active = False
    pushed: collections.deque[Any] = collections.deque()
    while True:
        event = pushed.popleft() if pushed else x.next_event()
        if event.type not in (X.KeyPress, X.KeyRelease) or event.detail != code:
            continue
        if event.type == X.KeyRelease:
            following = _next_soon(x)
            if following is not None and following.type == X.KeyPress and \
                    following.detail == code and following.time == event.time:
                continue  # the key is held: X's autorepeat, a release and a press at once
            if following is not None:
                pushed.append(following)
        if mode == "hold":
            if event.type == X.KeyPress and not active:
                active = True
                on_start()
            elif event.type == X.KeyRelease and active:
                active = False
                on_stop()
        elif event.type == X.KeyPress:
            active = not active
            (on_start if active else on_stop)()


def grab(x: Any, root: Any, code: int, mask: int, timeout_s: float = 10.0) -> None:
    """Grab the hotkey on the root window, checked: another client may hold that grab
    for a moment (a probe of the rig's, or a test's), so a refusal (BadAccess) is tried
    again until ``timeout_s``; then the app fails instead of printing its ready line
    without a hotkey."""
    from Xlib import error

    deadline = time.monotonic() + timeout_s
    while True:
        refused = error.CatchError(error.BadAccess)
        root.grab_key(code, mask, True, X.GrabModeAsync, X.GrabModeAsync, onerror=refused)
        x.sync()
        if refused.get_error() is None:
            return
        if time.monotonic() > deadline:
            fail(f"could not grab the hotkey in {timeout_s:g} s: another X client holds it")
        time.sleep(0.02)


def _next_soon(x: Any, wait_s: float = 0.05) -> Any:
    """The next X event if one comes within ``wait_s`` (autorepeat sends its press
    together with its release), else None."""
    deadline = time.monotonic() + wait_s
    while not x.pending_events():
        if time.monotonic() > deadline:
            return None
        time.sleep(0.002)
    return x.next_event()


def fail(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
    sys.exit(2)
