"""A scripted typing app: on its hotkey's start it runs the steps of a JSON script (read
anew each time, so a test changes it without a relaunch) instead of transcribing.

Steps, one object each: ``{"wait_audio": true}`` (until the microphone hears sound),
``{"wait_stop": true}`` (until the hotkey's stop), ``{"sleep": s}``,
``{"sleep_after_audio": s}`` (until ``s`` after the first audible sample), ``{"type": text}``,
``{"backspace": n}``, ``{"flicker": text, "times": n, "every": s}`` (type and delete),
``{"steal_focus": true}`` (a window of its own takes the keyboard focus),
``{"blink_focus": n}`` (a window of its own takes the focus and gives it straight back,
n times, 0.3 s apart: a loss of well under a millisecond),
``{"exit": code}`` (crash), ``{"signal": n}`` (killed by signal n),
``{"from_dictation": n}`` (the rest only from the n-th dictation with this script on,
counted across launches in ``<script>.dictations``), ``{"until_dictation": n}`` (the rest
only up to the n-th).
An empty script does nothing, like a dead hotkey.

    python tests/desktop_apps/scripted_app.py --hotkey F9 --script steps.json \
        [--grab-delay S] [--window TITLE]
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.desktop_apps.common import Mic, XKeys, arguments, log, run


def mapped_window(x: Any, name: str) -> Any:
    """A small window of its own, named ``name``, mapped on the display ``x``."""
    screen = x.screen()
    window = screen.root.create_window(700, 500, 80, 60, 0, screen.root_depth,
                                       background_pixel=screen.white_pixel)
    window.set_wm_name(name)
    window.map()
    x.sync()
    return window


def steal_focus(stolen: threading.Event) -> None:
    """Map a window of its own and give it the input focus; ``stolen`` once X says so."""
    from Xlib import X, display
    from Xlib.error import XError

    x = display.Display()
    window = mapped_window(x, "focus thief")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # until it is viewable and has the focus
        try:
            window.set_input_focus(X.RevertToParent, X.CurrentTime)
            x.sync()
            if getattr(x.get_input_focus().focus, "id", None) == window.id:
                break
        except XError:
            pass
        time.sleep(0.01)
    log("focus stolen")
    stolen.set()
    time.sleep(30)


def blink_focus(times: int) -> None:
    """Take the input focus to a window of its own and give it straight back."""
    from Xlib import X, display

    x = display.Display()
    window = mapped_window(x, "focus blink")
    while window.get_attributes().map_state != X.IsViewable:
        time.sleep(0.01)
    for _ in range(times):
        previous = x.get_input_focus().focus
        window.set_input_focus(X.RevertToParent, X.CurrentTime)
        x.sync()
        previous.set_input_focus(X.RevertToParent, X.CurrentTime)
        x.sync()
        log("focus blinked")
        time.sleep(0.3)
    window.destroy()
    x.close()


def main() -> None:
    args = arguments(lambda p: p.add_argument("--script", required=True))

    mic, keys = Mic(), XKeys()
    stopped = threading.Event()
    counter = Path(args.script + ".dictations")
    dictations = [0]

    def play(steps: list[dict[str, Any]]) -> None:
        for step in steps:
            if "from_dictation" in step:
                if dictations[0] < step["from_dictation"]:
                    return
            elif "until_dictation" in step:
                if dictations[0] > step["until_dictation"]:
                    return
            elif step.get("wait_audio"):
                mic.heard.wait(60)
                log(f"heard at {mic.heard_at:.4f}")
            elif "sleep_after_audio" in step:  # until that long after the first sample
                time.sleep(max(0.0, mic.heard_at + step["sleep_after_audio"]
                               - time.monotonic()))
            elif step.get("wait_stop"):
                stopped.wait(60)
            elif "sleep" in step:
                time.sleep(step["sleep"])
            elif "type" in step:
                log(f"typing at {time.monotonic():.4f}")
                keys.type_text(step["type"])
            elif "backspace" in step:
                keys.backspace(step["backspace"])
            elif "flicker" in step:
                for _ in range(step.get("times", 3)):
                    keys.type_text(step["flicker"])
                    time.sleep(step.get("every", 0.2))
                    keys.backspace(len(step["flicker"]))
                    time.sleep(step.get("every", 0.2))
            elif "blink_focus" in step:
                blink_focus(int(step["blink_focus"]))
            elif step.get("steal_focus"):
                stolen = threading.Event()
                threading.Thread(target=steal_focus, args=(stolen,), daemon=True).start()
                stolen.wait(60)
            elif "signal" in step:
                log(f"signal {step['signal']}")
                os.kill(os.getpid(), step["signal"])
            elif "exit" in step:
                log(f"exit {step['exit']}")
                os._exit(step["exit"])
            log(f"step {step}")

    def on_start() -> None:
        done = int(counter.read_text()) if counter.exists() else 0
        dictations[0] = done + 1
        counter.write_text(str(dictations[0]))
        log(f"start {dictations[0]}")
        stopped.clear()
        mic.start()
        steps = json.loads(Path(args.script).read_text(encoding="utf-8"))
        threading.Thread(target=play, args=(steps,), daemon=True).start()

    def on_stop() -> None:
        log("stop")
        mic.stop()
        stopped.set()

    run(args, mic, on_start, on_stop)


if __name__ == "__main__":
    main()
