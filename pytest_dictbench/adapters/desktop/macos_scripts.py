"""The AppleScript and commands the macOS backend (:mod:`.macos`) runs, built as data:
TextEdit documents, keys through System Events, sox into the virtual input device."""

from __future__ import annotations

from pathlib import Path

from .xkeys import KEY_CODES, Hotkey

__all__ = ["WINDOW_TITLES_SCRIPT", "close_document_script", "hotkey_script",
           "new_document_script", "play_command", "read_document_script", "record_command"]

_MODIFIERS = {"Control_L": "control down", "Shift_L": "shift down", "Alt_L": "option down",
              "Super_L": "command down", "Meta_L": "command down"}


def _applescript(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def new_document_script(title: str) -> str:
    """AppleScript: a new plain-text TextEdit document named ``title``, frontmost."""
    return "\n".join([
        'tell application "TextEdit"',
        "  activate",
        "  set doc to make new document",
        f"  set name of doc to {_applescript(title)}",
        "end tell",
        'tell application "System Events" to tell process "TextEdit"',
        '  keystroke "t" using {command down, shift down}',  # Format > Make Plain Text
        "end tell",
    ])


def read_document_script(title: str) -> str:
    """AppleScript printing ``focused<TAB>text``: whether TextEdit is frontmost with the
    document ``title`` in front, then the document's text."""
    name = _applescript(title)
    return "\n".join([
        'tell application "System Events" to set front to name of first process whose '
        "frontmost is true",
        'tell application "TextEdit"',
        f"  set body to text of document {name}",
        f"  set infront to (name of front window is {name})",
        "end tell",
        'return ((front is "TextEdit") and infront as string) & tab & body',
    ])


def close_document_script(title: str) -> str:
    return (f'tell application "TextEdit" to close document {_applescript(title)} '
            "saving no")


def hotkey_script(hotkey: Hotkey, action: str) -> str:
    """AppleScript sending ``hotkey`` through System Events: ``action`` is ``tap``
    (``key code``), ``down`` or ``up`` (``key down``/``key up`` of each key, for
    hold-to-talk)."""
    if hotkey.key not in KEY_CODES:
        raise ValueError(f"hotkey {hotkey.spec!r}: no macOS key code for {hotkey.key!r} "
                         f"(known: {', '.join(sorted(KEY_CODES))})")
    code = KEY_CODES[hotkey.key]
    using = ", ".join(_MODIFIERS[m] for m in hotkey.modifiers)
    lines = ['tell application "System Events"']
    if action == "tap":
        lines.append(f"  key code {code}" + (f" using {{{using}}}" if using else ""))
    elif action in ("down", "up"):
        mods = [m.removesuffix(" down") for m in (_MODIFIERS[m] for m in hotkey.modifiers)]
        keys = [*mods, f"(key code {code})"] if action == "down" else \
            [f"(key code {code})", *reversed(mods)]
        lines += [f"  key {action} {key}" for key in keys]
    else:
        raise ValueError(f"unknown hotkey action {action!r}")
    return "\n".join([*lines, "end tell"])


def play_command(audio: Path, device: str) -> list[str]:
    """Play ``audio`` once into the Core Audio device ``device`` (sox)."""
    return ["sox", "-q", str(audio), "-t", "coreaudio", device]


def record_command(device: str) -> list[str]:
    """Record the device as raw 16 kHz mono samples on standard output (the tap)."""
    return ["sox", "-q", "-t", "coreaudio", device, "-t", "raw", "-r", "16000", "-c", "1",
            "-b", "16", "-e", "signed-integer", "-"]


#: The titles of the visible processes' windows, one a line (``ready_window``).
WINDOW_TITLES_SCRIPT = "\n".join([
    'set titles to ""',
    'tell application "System Events"',
    "  repeat with shown in (every process whose visible is true)",
    "    repeat with each in (every window of shown)",
    "      set titles to titles & (name of each) & linefeed",
    "    end repeat",
    "  end repeat",
    "end tell",
    "return titles"])
