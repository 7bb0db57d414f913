"""The macOS backend's command sequences, as data (it has not been run on a Mac by us)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_dictbench.adapters.desktop.macos import (
    KEY_CODES,
    MacBackend,
    hotkey_script,
    new_document_script,
    play_command,
    read_document_script,
    record_command,
)
from pytest_dictbench.adapters.desktop.xkeys import parse_hotkey


def test_a_toggle_hotkey_is_one_key_code_with_its_modifiers() -> None:
    script = hotkey_script(parse_hotkey("ctrl+alt+d"), "tap")
    assert script.splitlines() == ['tell application "System Events"',
                                   "  key code 2 using {control down, option down}",
                                   "end tell"]
    assert "key code 101\n" in hotkey_script(parse_hotkey("F9"), "tap") + "\n"


def test_hold_to_talk_presses_modifiers_first_and_releases_them_last() -> None:
    hotkey = parse_hotkey("cmd+shift+space")
    assert hotkey_script(hotkey, "down").splitlines()[1:-1] == [
        "  key down command", "  key down shift", "  key down (key code 49)"]
    assert hotkey_script(hotkey, "up").splitlines()[1:-1] == [
        "  key up (key code 49)", "  key up shift", "  key up command"]


def test_a_key_without_a_mac_key_code_is_refused() -> None:
    with pytest.raises(ValueError, match="no macOS key code for 'Pause'"):
        hotkey_script(parse_hotkey("Pause"), "tap")


def test_textedit_documents_are_plain_text_named_and_quoted() -> None:
    script = new_document_script('item "c1" \\ r1')
    assert 'set name of doc to "item \\"c1\\" \\\\ r1"' in script
    assert 'keystroke "t" using {command down, shift down}' in script  # Make Plain Text
    read = read_document_script("dictbench c1.1.1")
    assert 'text of document "dictbench c1.1.1"' in read
    assert "frontmost is true" in read and read.splitlines()[-1].startswith("return")


def test_audio_goes_to_the_named_device() -> None:
    assert play_command(Path("/a/b.wav"), "BlackHole 2ch") == [
        "sox", "-q", "/a/b.wav", "-t", "coreaudio", "BlackHole 2ch"]
    assert record_command("BlackHole 2ch")[:5] == ["sox", "-q", "-t", "coreaudio",
                                                   "BlackHole 2ch"]


class Recorder:
    """Answers the commands a Mac would, and keeps them."""

    def __init__(self, devices: str, fail: Sequence[str] = ()) -> None:
        self.devices, self.fail, self.calls = devices, fail, []  # type: list[list[str]]

    def __call__(self, argv: Sequence[str]) -> str:
        self.calls.append(list(argv))
        if any(word in " ".join(argv) for word in self.fail):
            raise RuntimeError(f"{argv[0]} failed")
        return self.devices if argv[0] == "system_profiler" else ""


def test_doctor_checks_name_the_missing_device_tools_and_permission() -> None:
    run = Recorder("Built-in Microphone:\n", fail=("which sox", "System Events"))
    problems = MacBackend("BlackHole 2ch", run).problems(["/Applications/Nope.app/x"])
    assert any("input device 'BlackHole 2ch' is missing" in p for p in problems)
    assert any("sox is missing" in p for p in problems)
    assert any("Accessibility" in p for p in problems)
    assert any("'/Applications/Nope.app/x' is not found" in p for p in problems)
    assert MacBackend("BlackHole 2ch", Recorder("BlackHole 2ch:\n")).problems([]) == []


def test_hotkeys_go_through_osascript() -> None:
    run = Recorder("")
    backend = MacBackend("BlackHole 2ch", run)
    backend.key_down(parse_hotkey("F9"))
    backend.key_up(parse_hotkey("F9"))
    assert [c[:2] for c in run.calls] == [["osascript", "-e"], ["osascript", "-e"]]
    assert "key down (key code 101)" in run.calls[0][2]
    assert "key up (key code 101)" in run.calls[1][2]


def test_ready_window_reads_the_visible_windows_titles_one_a_line() -> None:
    from pytest_dictbench.adapters.desktop.macos import WINDOW_TITLES_SCRIPT

    assert "every process whose visible is true" in WINDOW_TITLES_SCRIPT
    assert "linefeed" in WINDOW_TITLES_SCRIPT and WINDOW_TITLES_SCRIPT.startswith("set ")

    class Titles(Recorder):
        def __call__(self, argv: Sequence[str]) -> str:
            super().__call__(argv)
            return "Untitled, 2\nSuperWhisper\n\n"

    run = Titles("")
    assert MacBackend("BlackHole 2ch", run).window_titles() == ["Untitled, 2", "SuperWhisper"]
    assert run.calls == [["osascript", "-e", WINDOW_TITLES_SCRIPT]]
    # no permission yet: no titles (the wait for ready_window then says what it awaited)
    assert MacBackend("BlackHole 2ch", Recorder("", fail=("osascript",))).window_titles() == []


def test_doctor_checks_the_hotkey_has_a_mac_key_code_and_lists_each_command() -> None:
    """DK11: the per-platform key check runs in doctor and the preflight, before any
    script is built; every command the checks run is one of the expected ones."""
    run = Recorder("BlackHole 2ch:\n")
    backend = MacBackend("BlackHole 2ch", run)
    assert backend.problems([], parse_hotkey("cmd+F13")) == [
        "[settings] hotkey 'cmd+F13': no macOS key code for 'F13' (known: "
        + ", ".join(sorted(KEY_CODES)) + ")"]
    assert [c[:2] for c in run.calls] == [["system_profiler", "SPAudioDataType"],
                                          ["which", "sox"], ["which", "osascript"],
                                          ["which", "SwitchAudioSource"],
                                          ["osascript", "-e"]]
    assert backend.problems([], parse_hotkey("cmd+shift+d")) == []
