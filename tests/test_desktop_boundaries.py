"""Item boundaries, the route, the app's launches and the checks before anything changes,
on the real Linux rig (Xvfb, PulseAudio, the scripted app). Findings DK3-DK6, DK10-DK16,
DK19-DK23, DK25 of ``desktop.md``."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_dictbench.adapters.desktop import check_machine
from pytest_dictbench.adapters.desktop.config import DesktopConfig
from pytest_dictbench.adapters.desktop.linux import LinuxBackend
from pytest_dictbench.adapters.desktop.xkeys import XKeys, parse_hotkey
from pytest_dictbench.errors import ProductError
from tests.adapter_support import make_product
from tests.desktop_apps import READY
from tests.desktop_support import Desktop, app_argv, pactl, private_desktop
from tests.test_desktop_linux import Rig


@pytest.fixture(scope="module")
def desktop() -> Iterator[Desktop]:
    with private_desktop() as found:
        yield found


def rig_modules() -> list[str]:
    return [line for line in pactl("list", "short", "modules").splitlines()
            if "dictbench_mic" in line]


# -- item boundaries: late text (DK4, DK5) ---------------------------------------------

def test_late_text_within_the_guard_voids_its_own_item_not_the_next(
        desktop: Desktop, tmp_path: Path) -> None:
    """DK4: a word typed after the item was final lands in its own (still watched)
    document: that item is invalid with the late text and its delay; the next item
    holds only its own text."""
    rig = Rig(tmp_path, stable_s=1.5, late_guard_s=3.0)
    first, second = rig.two_items(
        [{"wait_audio": True}, {"type": "item"}, {"wait_stop": True},
         {"sleep": 2.5}, {"type": " LATE"}],
        [{"wait_audio": True}, {"type": "next"}])
    assert first.status == "invalid", (first.status, first.error)
    assert "after its final text" in (first.error or "")
    facts = first.meta["desktop"]
    assert facts["late_text"] == "item LATE" and facts["late_text_s"] > 1.5
    assert (second.status, second.text) == ("complete", "next"), second.error


# -- the route (DK6) --------------------------------------------------------------------

def test_a_default_source_changed_during_an_item_voids_it_and_is_set_again(
        desktop: Desktop, tmp_path: Path) -> None:
    rig = Rig(tmp_path, clip_s=2.0)
    rig.steps([{"wait_audio": True}, {"type": "route"}])

    def switch() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            log = rig.product.outputs_dir / "desktop-app.log"
            if log.exists() and " start 1" in log.read_text():
                break
            time.sleep(0.05)
        time.sleep(0.8)
        pactl("set-default-source", "speakers.monitor")

    try:
        thread = threading.Thread(target=switch)
        thread.start()
        first = rig.get()
        thread.join()
        second = rig.get(case=1)
    finally:
        rig.close()
    assert first.status == "invalid", (first.status, first.error)
    assert "the default source changed to 'speakers.monitor' during the item" in \
        (first.error or "")
    assert (second.status, second.text) == ("complete", "route"), second.error
    assert pactl("get-default-source").strip() == "speakers.monitor"  # given back


# -- checks before anything changes (DK10-DK14) ----------------------------------------

@pytest.mark.parametrize("hotkey", ["ctrl+alt+fn", "F１２x", "super+shift+F13"])
def test_a_hotkey_not_on_the_keymap_stops_the_run_before_the_sink(
        desktop: Desktop, tmp_path: Path, hotkey: str) -> None:
    """DK10: refused before collection (and so before the sink is loaded)."""
    product = make_product(tmp_path, "desktop", {"app": app_argv("scripted_app", "--script",
                                                                 "x"), "hotkey": hotkey})
    try:
        keys = XKeys()
        keys.check(parse_hotkey(hotkey))
        keys.close()
        pytest.skip(f"{hotkey} is on this Xvfb's keymap")
    except ValueError:
        pass
    with pytest.raises(ProductError, match=r"\[settings\] hotkey .* is not a key on X display"):
        check_machine(product)
    assert rig_modules() == []


def test_fullwidth_digits_fold_and_foreign_characters_are_refused() -> None:
    """DK10, DK11."""
    assert parse_hotkey("ctrl+F１２").key == "F12"
    for spec in ('cmd+" & (do shell script "id") & "', "alt+ä", "ctrl+a b"):
        with pytest.raises(ValueError, match="is not an X keysym name"):
            parse_hotkey(spec)


def test_a_macos_key_without_a_key_code_is_refused_at_load(tmp_path: Path) -> None:
    """DK11."""
    with pytest.raises(ProductError, match="no macOS key code for 'F13'"):
        DesktopConfig.from_product(make_product(tmp_path, "desktop", {
            "app": ["x"], "hotkey": "cmd+F13", "platform": "macos"}))


def test_an_app_file_that_cannot_run_is_named_before_the_sink(
        desktop: Desktop, tmp_path: Path) -> None:
    """DK12, DK13: not executable, missing path, bare name not on PATH."""
    script = tmp_path / "noexec.py"
    script.write_text("print('x')\n")
    script.chmod(0o644)
    cases = {str(script): "is not executable", str(tmp_path / "gone"): "does not exist",
             "dictapp-not-on-path": "is not found on PATH ("}
    for app, message in cases.items():
        product = make_product(tmp_path, "desktop", {"app": [app], "hotkey": "F9"})
        with pytest.raises(ProductError, match=re.escape(message)):
            check_machine(product)
    assert rig_modules() == []


@pytest.mark.parametrize(("settings", "message"), [
    ({"hotkey_lead_s": -1}, "hotkey_lead_s must be a number of seconds >= 0"),
    ({"poll_s": 1e-9}, "poll_s must be a number of seconds >= 0.005"),
    ({"late_guard_s": float("nan")}, "late_guard_s must be"),
])
def test_settings_that_cannot_work_are_refused_at_load(tmp_path: Path, settings: dict,
                                                       message: str) -> None:
    """DK14."""
    with pytest.raises(ProductError, match=re.escape(message)):
        DesktopConfig.from_product(make_product(tmp_path, "desktop",
                                                {"app": ["x"], "hotkey": "F9", **settings}))


# -- set-up of the route (DK15, DK16) --------------------------------------------------

def test_a_failing_load_module_is_one_set_up_error_not_retried(
        desktop: Desktop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DK15."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "pactl"
    wrapper.write_text('#!/bin/sh\nif [ "$1" = load-module ]; then\n'
                       '  echo "Failure: Module initialization failed"; exit 1\nfi\n'
                       'exec /usr/bin/pactl "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    rig = Rig(tmp_path)
    try:
        with pytest.raises(ProductError, match="cannot create the virtual microphone: "
                                               "pactl load-module"):
            rig.get()
        started = time.monotonic()
        with pytest.raises(ProductError, match="not tried again"):
            rig.get(case=1)
        assert time.monotonic() - started < 1.0
    finally:
        rig.close()


def test_an_existing_sink_is_named_or_refused(desktop: Desktop, tmp_path: Path) -> None:
    """DK16: a null sink of the rig's name is used and said; another kind is refused."""
    index = pactl("load-module", "module-null-sink", "sink_name=dictbench_mic").strip()
    rig = Rig(tmp_path)
    try:
        rig.steps([{"wait_audio": True}, {"type": "mine"}])
        output = rig.get()
        assert output.meta["desktop"]["input_device_created"] is False, output.error
    finally:
        rig.close()
        pactl("unload-module", index)
    assert rig_modules() == []
    index = pactl("load-module", "module-remap-sink", "sink_name=dictbench_mic",
                  "master=speakers").strip()
    try:
        backend = LinuxBackend(None, "dictbench_mic")
        with pytest.raises(RuntimeError, match="is not a null sink"):
            backend.route.setup()
    finally:
        pactl("unload-module", index)


# -- the app (DK2, DK19, DK20, DK21) ----------------------------------------------------

def test_an_app_killed_by_a_signal_is_named(rig: Rig) -> None:
    """DK19."""
    rig.steps([{"wait_audio": True}, {"type": "Are we"}, {"signal": int(signal.SIGSEGV)}])
    output = rig.get()
    assert output.status == "error"
    assert re.search(r"the app was killed by signal 11 \(SIGSEGV\) during the item \(about "
                     r"[0-9.]+ s after the first audible sample\)", output.error or ""), \
        output.error
    facts = output.meta["desktop"]  # the error line keeps what the rig saw
    assert facts["last_text"] == "Are we" and facts["app_exit_code"] == -11
    assert facts["first_text_s"] is not None and facts["app_exited_s"] > 0


def test_an_app_that_never_gets_ready_is_launched_twice_then_not_again(
        desktop: Desktop, tmp_path: Path) -> None:
    """DK20."""
    rig = Rig(tmp_path, app=["sh", "-c", "echo failing at start >&2; exit 1"])
    try:
        errors = [rig.get(case=c, repetition=r).error or "" for c, r in ((0, 1), (1, 1),
                                                                          (0, 2))]
    finally:
        rig.close()
    assert "exited with status 1 before it was ready" in errors[0]
    assert errors[2].startswith("not launched again: the app failed to get ready 2 times"), \
        errors[2]
    assert rig.log().count("failing at start") == 2


def test_relaunch_never_without_an_app_says_so(desktop: Desktop, tmp_path: Path) -> None:
    """DK21."""
    rig = Rig(tmp_path, app=None, relaunch="never", replay_if_empty=0, ready_log=None)
    try:
        output = rig.get()
    finally:
        rig.close()
    assert output.status == "error"
    assert "no X client grabs F9 on display" in (output.error or "")


def test_an_app_left_holding_the_hotkey_is_named_before_the_launch(
        desktop: Desktop, tmp_path: Path) -> None:
    """DK2: the rig probes the grab before it launches its app."""
    squatter = subprocess.Popen(app_argv("scripted_app", "--script", "/dev/null"),
                                stdout=subprocess.PIPE, text=True)
    try:
        assert squatter.stdout is not None and READY in squatter.stdout.readline()
        rig = Rig(tmp_path)
        try:
            output = rig.get()
        finally:
            rig.close()
    finally:
        squatter.kill()
        squatter.wait()
    assert output.status == "error"
    assert "another X client already grabs F9" in (output.error or "")


def test_a_probe_grab_during_the_apps_start_never_leaves_it_without_its_hotkey(
        desktop: Desktop, tmp_path: Path) -> None:
    """The race noted in the last round: a probe grab of the hotkey (the rig's, or a
    test's) at the moment the app grabs it made the app's grab fail, and the test app
    printed its ready line anyway. The rig's own probe ends (ungrab synced) before it
    spawns the app, so it never overlaps; a probe that does overlap (here: probing
    without pause while four apps start) must still leave each app holding its hotkey."""
    hotkey = parse_hotkey("F9")
    for number in range(4):
        stop = threading.Event()

        def probe(stop: threading.Event) -> None:
            keys = XKeys()
            while not stop.is_set():
                keys.grabbed_elsewhere(hotkey)
            keys.close()

        thread = threading.Thread(target=probe, args=(stop,))
        thread.start()
        app = subprocess.Popen(app_argv("scripted_app", "--script", "/dev/null"),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert app.stdout is not None
            line = app.stdout.readline()
            stop.set()
            thread.join()
            assert READY in line, line
            checker = XKeys()
            assert checker.grabbed_elsewhere(hotkey), f"launch {number}: the app has no grab"
            checker.close()
        finally:
            stop.set()
            app.kill()
            app.wait()
        time.sleep(0.3)  # X frees the killed app's grab


# -- focus (DK22), keys (DK23), player (DK3), recorder (DK25) ---------------------------

def test_a_lost_focus_names_the_window_that_took_it(rig: Rig) -> None:
    """DK22 (the window is named; losses shorter than the editor's poll are documented)."""
    rig.steps([{"wait_audio": True}, {"type": "hel"}, {"steal_focus": True}])
    output = rig.get()
    assert output.status == "invalid", output.error
    assert "lost the keyboard focus" in (output.error or "")
    assert "to 'focus thief'" in (output.error or ""), output.error
    assert output.meta["desktop"]["focus_taken_by"] == "'focus thief'"


def test_hold_mode_turns_the_keys_autorepeat_off_while_held(desktop: Desktop,
                                                            tmp_path: Path) -> None:
    """DK23: the app gets one press and one release; autorepeat is given back."""
    rig = Rig(tmp_path, hotkey_mode="hold")
    keys = XKeys()
    code = keys.keycode("F9")
    assert keys.autorepeats(code)
    seen: list[bool] = []
    done = threading.Event()

    def sample() -> None:
        watcher = XKeys()
        while not done.is_set():
            seen.append(watcher.autorepeats(code))
            time.sleep(0.05)
        watcher.close()

    try:
        rig.steps([{"wait_audio": True}, {"wait_stop": True}, {"type": "held"}])
        thread = threading.Thread(target=sample)
        thread.start()
        output = rig.get()
        done.set()
        thread.join()
    finally:
        rig.close()
    assert (output.status, output.text) == ("complete", "held"), output.error
    assert False in seen and keys.autorepeats(code)
    keys.close()


def test_closing_the_rig_stops_a_playing_player(desktop: Desktop, tmp_path: Path) -> None:
    """DK3: the player goes with the rig, before the route."""
    from tests.test_desktop_linux import write_clip

    backend = LinuxBackend(None, "dictbench_mic")
    with backend.claim():
        backend.play(write_clip(tmp_path / "long.wav", seconds=20))
        player = backend._player
        assert player is not None and player.poll() is None
    assert player.poll() is not None
    assert rig_modules() == []


def test_a_recorder_that_ignores_q_is_killed_with_its_children_and_its_file_refused(
        desktop: Desktop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DK25."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "ffmpeg"
    marker = f"sleep 3{os.getpid() % 10}1"
    fake.write_text(f"#!/bin/sh\neval last=\\${{$#}}\necho not a video > \"$last\"\n"
                    f"trap '' TERM\n{marker.split()[0]} {marker.split()[1]} &\n"
                    "while :; do sleep 1; done\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    rig = Rig(tmp_path, record_screen=True)
    try:
        rig.steps([{"wait_audio": True}, {"type": "on video"}])
        output = rig.get()
    finally:
        rig.close()
    facts = output.meta["desktop"]
    assert facts["screen_recording"] is None
    assert "no video stream" in facts["screen_recording_problem"]
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    assert left.stdout == "", left.stdout


@pytest.fixture
def rig(desktop: Desktop, tmp_path: Path) -> Iterator[Rig]:
    made = Rig(tmp_path)
    yield made
    made.close()

