"""The ``[settings]`` of a ``desktop`` product, read and checked once."""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ...model import Product
from ..settings import Settings
from .ready import Readiness
from .settle import SettleRule
from .xkeys import KEY_CODES, Hotkey, parse_hotkey

__all__ = ["DEFAULT_INPUT", "DesktopConfig"]

KNOWN = {"platform", "app", "hotkey", "hotkey_mode", "stable_s", "max_wait_s", "empty_wait_s",
         "replay_if_empty", "relaunch", "record_screen", "display", "input_device",
         "launch_wait_s", "ready_log", "ready_window", "hotkey_lead_s", "focus_timeout_s",
         "poll_s", "late_guard_s", "late_max_s", "isolate_items", "hotkey_grab_check"}
#: The shortest ``poll_s`` (the editor itself reports every 10 ms).
MIN_POLL_S = 0.005
#: The virtual input device by platform: the null sink the Linux rig sets up, and the
#: device macOS rigs use.
DEFAULT_INPUT = {"linux": "dictbench_mic", "macos": "BlackHole 2ch"}


@dataclass(frozen=True)
class DesktopConfig:
    """Everything that decides how one desktop app is driven (see ``docs/desktop.md``)."""

    platform: str
    #: The app's command line (``./x`` is relative to the product file); () with
    #: ``relaunch = "never"``: an app the operator started.
    app: tuple[str, ...]
    hotkey: Hotkey
    hotkey_mode: str = "toggle"
    rule: SettleRule = field(default_factory=SettleRule)
    #: Replays of an item when no text arrived (then ``failed``).
    replay_if_empty: int = 1
    relaunch: str = "session"
    record_screen: bool = False
    display: str | None = None
    input_device: str = DEFAULT_INPUT["linux"]
    #: Seconds given to a launched app before the first item: a fixed wait, or with
    #: :attr:`ready` the longest wait for it (see :mod:`.ready`).
    launch_wait_s: float = 2.0
    #: When a launched app is ready (``ready_log``, ``ready_window``); empty: fixed wait.
    ready: Readiness = field(default_factory=Readiness)
    #: Seconds between the hotkey (start) and the audio.
    hotkey_lead_s: float = 0.3
    focus_timeout_s: float = 5.0
    #: How often the document's snapshots are judged.
    poll_s: float = 0.02
    #: The item ends once its settled document has been quiet this long: a change
    #: before that is late text of the item (``invalid``, the app relaunched), never
    #: text of the next one (see :mod:`.boundary`).
    late_guard_s: float = 1.0
    #: The longest watch for late text after the decision (then the app is relaunched).
    late_max_s: float = 10.0
    #: Relaunch the app between every two items (an app that may type after a silence
    #: longer than ``late_guard_s``).
    isolate_items: bool = False
    #: Probe the hotkey's X grab before a launch (nobody else may hold it) and, with
    #: ``relaunch = "never"``, before the first item (the operator's app must hold it).
    hotkey_grab_check: bool = True

    @classmethod
    def from_product(cls, product: Product) -> DesktopConfig:
        s = Settings(product, KNOWN)
        platform = s.get("platform", str, "macos" if sys.platform == "darwin" else "linux")
        if platform not in DEFAULT_INPUT:
            raise s.error(f"[settings] platform must be linux or macos, got {platform!r}")
        relaunch = s.get("relaunch", str, "session")
        if relaunch not in ("session", "block", "never"):
            raise s.error(f"[settings] relaunch must be session, block or never, got "
                          f"{relaunch!r}")
        app = s.get("app", list, [])
        if not all(isinstance(a, str) and a for a in app):
            raise s.error("[settings] app must be a list of non-empty strings (argv)")
        if not app and relaunch != "never":
            raise s.error("[settings] app (the app's argv) is required unless relaunch = "
                          "\"never\" (an app the operator started)")
        base = product.path.parent
        app = [str((base / a).resolve()) if a.startswith("./") else a for a in app]
        mode = s.get("hotkey_mode", str, "toggle")
        if mode not in ("toggle", "hold"):
            raise s.error(f"[settings] hotkey_mode must be toggle or hold, got {mode!r}")
        try:
            hotkey = parse_hotkey(s.get("hotkey", str))
            rule = SettleRule(stable_s=s.positive("stable_s", 5.0),
                              max_wait_s=s.positive("max_wait_s", 120.0),
                              empty_wait_s=s.positive("empty_wait_s", 10.0))
        except ValueError as exc:
            raise s.error(f"[settings] {exc}") from None
        if platform == "macos" and hotkey.key not in KEY_CODES:
            raise s.error(f"[settings] hotkey {hotkey.spec!r}: no macOS key code for "
                          f"{hotkey.key!r} (known: {', '.join(sorted(KEY_CODES))})")
        ready = Readiness(_pattern(s, "ready_log"), _pattern(s, "ready_window"))
        guard = _at_least(s, "late_guard_s", 1.0, 0.0)
        late_max = _at_least(s, "late_max_s", max(10.0, guard), guard)
        isolate = s.get("isolate_items", bool, False)
        if isolate and relaunch == "never":
            raise s.error("[settings] isolate_items = true needs an app the rig launches: "
                          "with relaunch = \"never\" it cannot relaunch it between items")
        replays = s.get("replay_if_empty", int, 1)
        if replays < 0:
            raise s.error(f"[settings] replay_if_empty must be >= 0, got {replays}")
        return cls(platform=platform, app=tuple(app), hotkey=hotkey, hotkey_mode=mode,
                   rule=rule, replay_if_empty=replays, relaunch=relaunch,
                   record_screen=s.get("record_screen", bool, False),
                   display=s.get("display", str, None),
                   input_device=s.get("input_device", str, DEFAULT_INPUT[platform]),
                   launch_wait_s=_launch_wait(s, ready),
                   ready=ready,
                   hotkey_lead_s=_at_least(s, "hotkey_lead_s", 0.3, 0.0),
                   focus_timeout_s=s.positive("focus_timeout_s", 5.0),
                   poll_s=_at_least(s, "poll_s", 0.02, MIN_POLL_S),
                   late_guard_s=guard, late_max_s=late_max, isolate_items=isolate,
                   hotkey_grab_check=s.get("hotkey_grab_check", bool, True))

    def app_log(self, outputs: Path) -> Path:
        return outputs / "desktop-app.log"


def _at_least(s: Settings, name: str, default: float, floor: float) -> float:
    """A finite number of seconds, at least ``floor``."""
    value = float(s.get(name, float, default))
    if not math.isfinite(value) or value < floor:
        raise s.error(f"[settings] {name} must be a number of seconds >= {floor:g}, got "
                      f"{value!r}")
    return value


def _launch_wait(s: Settings, ready: Readiness) -> float:
    """``launch_wait_s``: a fixed wait (default 2 s, 0 allowed), or with a readiness
    setting the longest wait for it (default 60 s)."""
    if ready:
        return s.positive("launch_wait_s", 60.0)
    value = float(s.get("launch_wait_s", float, 2.0))
    if value < 0:
        raise s.error(f"[settings] launch_wait_s must be >= 0, got {value!r}")
    return value


def _pattern(s: Settings, name: str) -> re.Pattern[str] | None:
    """The regular expression of setting ``name`` (None when absent)."""
    text = s.get(name, str, None)
    if text is None:
        return None
    if not text:
        raise s.error(f"[settings] {name} must be a non-empty regular expression")
    try:
        return re.compile(text, re.MULTILINE)
    except re.error as exc:
        raise s.error(f"[settings] {name} is not a valid regular expression "
                      f"({exc}): {text!r}") from None
