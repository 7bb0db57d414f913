"""The macOS rig's journal, against a fake Mac (no Mac here): every command the backend
runs is checked argv by argv, the journal is checked to name each change before it is
made, and what a killed run left is undone by the next run, doctor and reset (issue 45).

The fake keeps the state a run may change: the default input device, the processes the
rig started (with their start times, as ``ps -o lstart=`` gives them), TextEdit
documents and keys held down through System Events."""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.adapters.desktop import macos
from pytest_dictbench.adapters.desktop.doctor import doctor, reset
from pytest_dictbench.adapters.desktop.journal import journal_path
from pytest_dictbench.adapters.desktop.macos import MacBackend
from pytest_dictbench.adapters.desktop.xkeys import parse_hotkey

DEVICE = "BlackHole 2ch"
MIC = "MacBook Pro Microphone"


class FakeMac:
    """Answers the commands the macOS backend runs, as a Mac would, and keeps them."""

    def __init__(self) -> None:
        self.state: dict[str, Any] = {"input": MIC, "processes": {}, "documents": [],
                                      "keys": []}
        self.calls: list[list[str]] = []
        #: Changes made while the journal did not name them (must stay empty).
        self.unjournaled: list[str] = []
        self._pid = 4000

    def journal(self) -> list[dict[str, Any]]:
        path = journal_path(f"macos-{DEVICE}")
        return json.loads(path.read_text())["entries"] if path.exists() else []

    def _journaled(self, kind: str, **facts: Any) -> None:
        if not any(e["kind"] == kind and all(e.get(k) == v for k, v in facts.items())
                   for e in self.journal()):
            self.unjournaled.append(f"{kind} {facts}")

    def __call__(self, argv: Sequence[str]) -> str:
        argv = list(argv)
        command = argv if argv[0] != "osascript" else [*argv[:2], _first_line(argv[2])]
        processes = self.state["processes"]
        if not (argv[0] == "osascript" and "set body to text" in argv[2]):  # the poll
            self.calls.append(command)
        if argv[:4] == ["SwitchAudioSource", "-c", "-t", "input"]:
            return self.state["input"] + "\n"
        if argv[:4] == ["SwitchAudioSource", "-t", "input", "-s"]:
            if argv[4] == DEVICE:
                self._journaled("default_input", previous=self.state["input"], set=DEVICE)
            self.state["input"] = argv[4]
            return ""
        if argv[:3] == ["ps", "-o", "lstart="]:
            if int(argv[4]) not in processes:
                raise RuntimeError("ps failed: ")  # ps exits 1 for no such process
            return processes[int(argv[4])] + "\n"
        if argv[0] == "kill":
            processes.pop(int(argv[2]), None)
            return ""
        if argv[0] == "osascript":
            return self._script(argv[2])
        if argv[0] == "system_profiler":
            return f"{DEVICE}:\n"
        return ""

    def _script(self, script: str) -> str:
        documents, keys = self.state["documents"], self.state["keys"]
        if "make new document" in script:
            title = script.split("set name of doc to ")[1].split("\n")[0].strip('"')
            self._journaled("document", title=title)
            documents.append(title)
        elif "close document" in script:
            title = script.split("close document ")[1].split(" saving")[0].strip('"')
            if title in documents:
                documents.remove(title)
        elif "key down (key code" in script:
            self._journaled("keys", hotkey="F9")
            keys.append("F9")
        elif "key up (key code" in script and "F9" in keys:
            keys.remove("F9")
        elif "set body to text" in script:
            return "true\t\n"
        return ""

    def start(self, argv: Sequence[str], log: Path | None, stop: str) -> FakeProcess:
        self._journaled("process", argv=list(argv)[:1])
        self._pid += 1
        self.state["processes"][self._pid] = f"Sat Dec  5 03:00:{self._pid % 60:02d} 2026"
        return FakeProcess(self, self._pid)


class FakeProcess:
    def __init__(self, mac: FakeMac, pid: int) -> None:
        self.mac, self.pid = mac, pid

    def exit_code(self) -> int | None:
        return None if self.pid in self.mac.state["processes"] else 0

    def wait(self, timeout_s: float) -> int:
        self.mac.state["processes"].pop(self.pid, None)
        return 0

    def stop(self) -> None:
        self.mac.state["processes"].pop(self.pid, None)


def _first_line(script: str) -> str:
    return script.splitlines()[0] if "\n" in script else script


@pytest.fixture
def mac(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMac]:
    monkeypatch.setenv("DICTBENCH_DESKTOP_LOCK_DIR", str(tmp_path / "locks"))
    (tmp_path / "locks").mkdir()
    fake = FakeMac()
    monkeypatch.setattr(macos, "_run", fake)  # doctor and reset make their own backend
    monkeypatch.setattr(macos, "_start", fake.start)
    yield fake


def mac_product(folder: Path) -> Path:
    """A desktop product file for a Mac (its app: any existing file)."""
    path = folder / "dictate.toml"
    path.write_text(f'name = "dictate"\nversion = "1"\nadapter = "desktop"\n[settings]\n'
                    f'platform = "macos"\napp = [{json.dumps(sys.executable)}]\n'
                    'hotkey = "F9"\n')
    return path


def killed_run(mac: FakeMac) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the state before, the state a kill -9 leaves): a run that took the rig, launched
    its app, opened a document and held the hotkey down (hold mode) when it died."""
    before = copy.deepcopy(mac.state)
    backend = MacBackend(DEVICE)
    path = journal_path(f"macos-{DEVICE}")
    with backend.claim():
        backend.launch(["/Applications/Dictate.app/Contents/MacOS/Dictate"], None)
        document = backend.open_document("dictbench c1.1.1")
        backend.key_down(parse_hotkey("F9"))
        left, journal = copy.deepcopy(mac.state), path.read_text()
        document._stop.set()
    # what kill -9 leaves: the changes and the journal, the lock freed with the process
    mac.state = left
    path.write_text(journal)
    return before, left


def test_a_run_journals_each_change_first_and_gives_everything_back(mac: FakeMac) -> None:
    before = copy.deepcopy(mac.state)
    backend = MacBackend(DEVICE)
    with backend.claim():
        assert mac.state["input"] == DEVICE  # what the app records
        app = backend.launch(["/Applications/Dictate.app/Contents/MacOS/Dictate"], None)
        document = backend.open_document("dictbench c1.1.1")
        backend.key_down(parse_hotkey("F9"))
        backend.key_up(parse_hotkey("F9"))
        document.close()
        app.stop()
    assert mac.unjournaled == []
    assert mac.state == before
    assert not journal_path(f"macos-{DEVICE}").exists()
    assert mac.calls == [
        ["SwitchAudioSource", "-c", "-t", "input"],
        ["SwitchAudioSource", "-t", "input", "-s", DEVICE],
        ["ps", "-o", "lstart=", "-p", "4001"],
        ["osascript", "-e", 'tell application "TextEdit"'],
        ["osascript", "-e", 'tell application "System Events"'],  # key down
        ["osascript", "-e", 'tell application "System Events"'],  # key up
        ["osascript", "-e", 'tell application "TextEdit" to close document '
                            '"dictbench c1.1.1" saving no'],
        ["SwitchAudioSource", "-c", "-t", "input"],
        ["SwitchAudioSource", "-t", "input", "-s", MIC]]


UNDO_CALLS = [
    ["ps", "-o", "lstart=", "-p", "4001"], ["kill", "-TERM", "4001"],
    ["ps", "-o", "lstart=", "-p", "4001"], ["ps", "-o", "lstart=", "-p", "4001"],
    ["osascript", "-e", 'tell application "System Events"'],
    ["osascript", "-e", 'tell application "TextEdit" to close document "dictbench c1.1.1" '
                        "saving no"],
    ["SwitchAudioSource", "-c", "-t", "input"], ["SwitchAudioSource", "-t", "input", "-s", MIC]]
UNDONE = ["stopped the processes it started: app (pid 4001)", "released keys F9",
          "closed TextEdit document 'dictbench c1.1.1' without saving",
          f"restored default input device {MIC!r}"]


def test_the_next_run_undoes_a_killed_runs_changes_and_says_so(mac: FakeMac) -> None:
    before, left = killed_run(mac)
    assert left["input"] == DEVICE and left["processes"] and left["keys"] == ["F9"]
    assert left["documents"] == ["dictbench c1.1.1"]
    mac.calls.clear()
    backend = MacBackend(DEVICE)
    with backend.claim():
        recovered = backend.recovered
        assert mac.calls[:len(UNDO_CALLS)] == UNDO_CALLS
    assert [line.split(" left: ", 1)[1] for line in recovered] == UNDONE
    assert all(line.startswith("undid what a killed run (pid ") for line in recovered)
    assert mac.state == before and mac.unjournaled == []


@pytest.mark.parametrize("command", ["doctor", "reset"])
def test_doctor_and_reset_undo_a_killed_run_and_say_what(
        mac: FakeMac, tmp_path: Path, command: str) -> None:
    before, _ = killed_run(mac)
    product = mac_product(tmp_path)
    mac.calls.clear()
    said: list[str] = []
    run = doctor if command == "doctor" else reset
    code = run(str(product), print_line=said.append)
    assert code == 0, said
    undone = [line for line in said if line.startswith("UNDONE ")]
    assert [line.split(" left: ", 1)[1] for line in undone] == UNDONE, said
    assert [c for c in mac.calls if c[0] in ("kill", "SwitchAudioSource")] == [
        c for c in UNDO_CALLS if c[0] in ("kill", "SwitchAudioSource")] + (
        [["SwitchAudioSource", "-c", "-t", "input"]] if command == "doctor" else [])
    assert mac.state == before
    assert not journal_path(f"macos-{DEVICE}").exists()
    if command == "doctor":
        assert said[-1].startswith("OK:"), said


def test_a_pid_reused_by_another_program_is_never_signalled(mac: FakeMac) -> None:
    before, _ = killed_run(mac)
    mac.state["processes"] = {4001: "Sat Dec  5 03:59:59 2026"}  # someone else's now
    backend = MacBackend(DEVICE)
    with backend.claim():
        pass
    assert not any(c[0] == "kill" for c in mac.calls)
    assert mac.state["processes"] == {4001: "Sat Dec  5 03:59:59 2026"}
    assert mac.state["input"] == before["input"]


def test_doctor_names_the_rigs_device_left_as_default_input_without_a_journal(
        mac: FakeMac, tmp_path: Path) -> None:
    mac.state["input"] = DEVICE  # set by hand, or a journal removed
    product = mac_product(tmp_path)
    said: list[str] = []
    assert doctor(str(product), print_line=said.append) == 1
    assert any(line.startswith("MISSING the default input device is the rig's own "
                               f"{DEVICE!r}") for line in said), said
    assert not any(line.startswith("OK") for line in said)


def test_reset_touches_nothing_while_a_run_holds_the_rig(mac: FakeMac, tmp_path: Path
                                                         ) -> None:
    product = mac_product(tmp_path)
    said: list[str] = []
    with MacBackend(DEVICE).claim():
        held = copy.deepcopy(mac.state)
        assert reset(str(product), print_line=said.append) == 1
        assert mac.state == held
    assert said[0].startswith("BUSY another dictbench desktop rig (pid "), said
