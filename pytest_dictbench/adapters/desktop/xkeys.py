"""Key events on X11 through the XTest extension (python-xlib, the ``desktop`` extra).

Hotkeys are written ``ctrl+alt+d``, ``F9``, ``super+space``: modifiers, then one key, by
X keysym name (case-insensitive for the modifiers and for single letters).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

__all__ = ["Hotkey", "XKeys", "parse_hotkey"]

MODIFIERS = {"ctrl": "Control_L", "control": "Control_L", "shift": "Shift_L",
             "alt": "Alt_L", "super": "Super_L", "meta": "Meta_L", "cmd": "Super_L"}


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
        self.display = display.Display(name)
        if not self.display.has_extension("XTEST"):
            raise RuntimeError(f"X display {name or '$DISPLAY'} has no XTEST extension")

    def keycode(self, keysym_name: str) -> int:
        keysym = self._XK.string_to_keysym(keysym_name)
        code = self.display.keysym_to_keycode(keysym) if keysym else 0
        if not code:
            raise ValueError(f"no key for {keysym_name!r} on this X display's keyboard map")
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
