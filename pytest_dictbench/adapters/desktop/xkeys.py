"""Key events on X11 through the XTest extension (python-xlib, the ``desktop`` extra).

Hotkeys are written ``ctrl+alt+d``, ``F9``, ``super+space``: modifiers, then one key, by
X keysym name (case-insensitive for the modifiers and for single letters).
"""

from __future__ import annotations

import re
import time
import unicodedata
from dataclasses import dataclass
from typing import Any

__all__ = ["KEY_CODES", "Hotkey", "XKeys", "parse_hotkey"]

#: macOS virtual key codes for the keys a dictation hotkey uses.
KEY_CODES = {"F5": 96, "F6": 97, "F7": 98, "F8": 100, "F9": 101, "F10": 109, "F11": 103,
             "F12": 111, "space": 49, "Return": 36, "Escape": 53, "fn": 63,
             **{chr(c): code for c, code in zip(range(ord("a"), ord("z") + 1),
                                                (0, 11, 8, 2, 14, 3, 5, 4, 34, 38, 40, 37,
                                                 46, 45, 31, 35, 12, 15, 1, 17, 32, 9, 13,
                                                 7, 16, 6), strict=True)}}

MODIFIERS = {"ctrl": "Control_L", "control": "Control_L", "shift": "Shift_L",
             "alt": "Alt_L", "super": "Super_L", "meta": "Meta_L", "cmd": "Super_L"}


#: X modifier masks of the modifier keys (ControlMask, ShiftMask, Mod1, Mod4).
MASKS = {"Control_L": 1 << 2, "Shift_L": 1 << 0, "Alt_L": 1 << 3, "Super_L": 1 << 6,
         "Meta_L": 1 << 3}


@dataclass(frozen=True)
class Hotkey:
    """A parsed hotkey: modifier keysym names and the key's keysym name."""

    modifiers: tuple[str, ...]
    key: str
    #: As written in the product file.
    spec: str


def parse_hotkey(spec: str) -> Hotkey:
    """``ctrl+alt+d`` -> Hotkey(("Control_L", "Alt_L"), "d"); a bad spec is ValueError."""
    parts = [p.strip() for p in spec.split("+")]
    if not spec.strip() or any(not p for p in parts):
        raise ValueError(f"hotkey {spec!r} is not of the form 'ctrl+alt+d' or 'F9'")
    *mods, key = parts
    key = unicodedata.normalize("NFKC", key)  # fullwidth F１２ is F12
    if not re.fullmatch(r"[A-Za-z0-9_]+", key):
        raise ValueError(f"hotkey {spec!r}: the key {key!r} is not an X keysym name "
                         "(letters, digits and _ only, e.g. d, F9, space, KP_Enter)")
    unknown = [m for m in mods if m.lower() not in MODIFIERS]
    if unknown:
        raise ValueError(f"hotkey {spec!r}: unknown modifier(s) {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(MODIFIERS))})")
    key = key.lower() if len(key) == 1 else key
    return Hotkey(tuple(MODIFIERS[m.lower()] for m in mods), key, spec)


class XKeys:
    """Sends key events to the X display ``name`` (``None``: ``$DISPLAY``)."""

    def __init__(self, name: str | None = None) -> None:
        from Xlib import XK, display  # the desktop extra
        from Xlib.ext import xtest

        self._XK, self._xtest = XK, xtest
        self.name = name or "$DISPLAY"
        self.display = display.Display(name)
        if not self.display.has_extension("XTEST"):
            raise RuntimeError(f"X display {name or '$DISPLAY'} has no XTEST extension")

    def keycode(self, keysym_name: str) -> int:
        keysym = self._XK.string_to_keysym(keysym_name)
        code = self.display.keysym_to_keycode(keysym) if keysym else 0
        if not code:
            raise ValueError(f"{keysym_name!r} is not a key on X display {self.name!r}'s "
                             "keyboard map")
        return int(code)

    def check(self, hotkey: Hotkey) -> None:
        """Raise ValueError when a key of ``hotkey`` is not on the keyboard map."""
        for name in (*hotkey.modifiers, hotkey.key):
            self.keycode(name)

    def _send(self, kind: str, code: int) -> None:
        from Xlib import X

        self._xtest.fake_input(self.display, X.KeyPress if kind == "down" else X.KeyRelease,
                               code)

    def down(self, hotkey: Hotkey) -> None:
        """Press and hold the hotkey (modifiers first)."""
        for name in (*hotkey.modifiers, hotkey.key):
            self._send("down", self.keycode(name))
        self.display.sync()

    def up(self, hotkey: Hotkey) -> None:
        """Release the hotkey (the key first)."""
        for name in (hotkey.key, *reversed(hotkey.modifiers)):
            self._send("up", self.keycode(name))
        self.display.sync()

    def release(self, names: list[str], close: bool = False) -> None:
        """Release the keys ``names`` (keysym names; unknown ones are skipped)."""
        for name in names:
            try:
                self._send("up", self.keycode(name))
            except ValueError:
                continue
        self.display.sync()
        if close:
            self.close()

    def set_autorepeat(self, keycode: int, on: bool, close: bool = False) -> None:
        """Turn the X server's autorepeat of one key on or off."""
        from Xlib import X

        self.display.change_keyboard_control(
            key=keycode, auto_repeat_mode=X.AutoRepeatModeOn if on else X.AutoRepeatModeOff)
        self.display.sync()
        if close:
            self.close()

    def grabbed_elsewhere(self, hotkey: Hotkey) -> bool:
        """Whether another X client grabs ``hotkey`` (its key with exactly its
        modifiers) on the root window: a grab of our own is refused with BadAccess."""
        from Xlib import X, error

        code = self.keycode(hotkey.key)
        mask = 0
        for name in hotkey.modifiers:
            mask |= MASKS[name]
        refused: list[object] = []
        catcher = error.CatchError(error.BadAccess)
        root = self.display.screen().root
        root.grab_key(code, mask, True, X.GrabModeAsync, X.GrabModeAsync, onerror=catcher)
        self.display.sync()
        if catcher.get_error() is not None:
            refused.append(catcher.get_error())
        else:
            root.ungrab_key(code, mask)
            self.display.sync()
        return bool(refused)

    def autorepeats(self, keycode: int) -> bool:
        """Whether the X server repeats ``keycode`` while it is held."""
        control = self.display.get_keyboard_control()
        if not control.global_auto_repeat:
            return False
        return bool(control.auto_repeats[keycode // 8] & (1 << (keycode % 8)))

    def focus_owner(self) -> str:
        """The window that has the input focus: its title or class, and its pid."""
        from Xlib import X, Xatom
        from Xlib.error import XError

        window = self.display.get_input_focus().focus
        net_pid = self.display.intern_atom("_NET_WM_PID")
        root = self.display.screen().root
        try:
            while window not in (None, X.NONE, X.PointerRoot) and window != root:
                name = window.get_wm_name()
                klass = window.get_wm_class()
                pid = window.get_full_property(net_pid, Xatom.CARDINAL)
                if name or klass or pid:
                    said = repr(name) if name else f"class {klass[1]!r}" if klass else \
                        f"window {window.id:#x}"
                    return said + (f" (pid {pid.value[0]})" if pid else "")
                window = window.query_tree().parent
        except XError:
            pass
        return f"window {getattr(window, 'id', window)!r} (no title, class or pid)"

    def tap(self, hotkey: Hotkey) -> None:
        self.down(hotkey)
        time.sleep(0.02)
        self.up(hotkey)

    def type_text(self, text: str, delay_s: float = 0.004) -> None:
        """Type ``text`` key by key (printable ASCII and newlines; other characters are
        skipped: the typing apps in the tests speak English)."""
        shift = self.keycode("Shift_L")
        for char in text:
            code, shifted = self._char_key(char)
            if code is None:
                continue
            if shifted:
                self._send("down", shift)
            self._send("down", code)
            self._send("up", code)
            if shifted:
                self._send("up", shift)
            self.display.sync()
            time.sleep(delay_s)

    def backspace(self, count: int, delay_s: float = 0.004) -> None:
        code = self.keycode("BackSpace")
        for _ in range(count):
            self._send("down", code)
            self._send("up", code)
            self.display.sync()
            time.sleep(delay_s)

    def _char_key(self, char: str) -> tuple[int | None, bool]:
        keysym = self._XK.string_to_keysym(_KEYSYM_NAMES.get(char, char))
        if char == "\n":
            keysym = self._XK.string_to_keysym("Return")
        if not keysym:
            return None, False
        code = self.display.keysym_to_keycode(keysym)
        if not code:
            return None, False
        return int(code), self.display.keycode_to_keysym(code, 0) != keysym

    def window_titles(self) -> list[str]:
        """The titles (``_NET_WM_NAME``, else ``WM_NAME``) of the viewable windows, in
        tree order; a window that goes away while being read is skipped."""
        from Xlib import X, Xatom
        from Xlib.error import XError

        utf8 = self.display.intern_atom("UTF8_STRING")
        net_name = self.display.intern_atom("_NET_WM_NAME")
        titles: list[str] = []
        pending = [self.display.screen().root]
        while pending:
            window = pending.pop(0)
            try:
                pending.extend(window.query_tree().children)
                if window.get_attributes().map_state != X.IsViewable:
                    continue
                title = window.get_full_property(net_name, utf8) or \
                    window.get_full_property(Xatom.WM_NAME, X.AnyPropertyType)
            except XError:
                continue
            if title is not None and title.value:
                value = title.value
                titles.append(value.decode("utf-8", errors="replace")
                              if isinstance(value, bytes) else str(value))
        return titles

    def close(self) -> None:
        self.display.close()


_KEYSYM_NAMES: dict[str, Any] = {
    " ": "space", "!": "exclam", '"': "quotedbl", "#": "numbersign", "$": "dollar",
    "%": "percent", "&": "ampersand", "'": "apostrophe", "(": "parenleft",
    ")": "parenright", "*": "asterisk", "+": "plus", ",": "comma", "-": "minus",
    ".": "period", "/": "slash", ":": "colon", ";": "semicolon", "<": "less",
    "=": "equal", ">": "greater", "?": "question", "@": "at", "[": "bracketleft",
    "\\": "backslash", "]": "bracketright", "^": "asciicircum", "_": "underscore",
    "`": "grave", "{": "braceleft", "|": "bar", "}": "braceright", "~": "asciitilde",
}
