"""The Linux desktop rig for real: Xvfb, a PulseAudio null sink, the editor window,
XTest hotkeys, and the scripted typing app (``tests/desktop_apps/scripted_app.py``).

Each test drives the ``desktop`` adapter (the live-adapter engine over the desktop
driver) and reads what it recorded in the capture cache.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.desktop import desktop_adapter
from pytest_dictbench.adapters.desktop.config import DesktopConfig
from pytest_dictbench.adapters.desktop.driver import DesktopTranscriber
from pytest_dictbench.adapters.desktop.linux import LinuxBackend
from pytest_dictbench.errors import ProductError
from pytest_dictbench.model import Case, Output, Suite
from tests.adapter_support import CANARY, make_product
from tests.desktop_apps import READY
from tests.desktop_support import Desktop, app_argv, private_desktop

RATE = 16000
ONSET_S = 0.5
READY_LOG = "^[0-9.]+ " + re.escape(READY)


@pytest.fixture(scope="module")
def desktop() -> Iterator[Desktop]:
    with private_desktop() as found:
        yield found


def write_clip(path: Path, seconds: float = 1.0) -> Path:
    """Half a second of silence, a tone, half a second of silence."""
    tone = 0.2 * np.sin(2 * np.pi * 440 * np.arange(int(seconds * RATE)) / RATE)
    silence = np.zeros(int(ONSET_S * RATE))
    sf.write(str(path), np.concatenate([silence, tone, silence]).astype(np.float32), RATE,
             subtype="PCM_16")
    return path


def tone_suite(root: Path, ids: tuple[str, ...] = ("c1", "c2"), seconds: float = 1.0
               ) -> Suite:
    root.mkdir(parents=True, exist_ok=True)
    cases = []
    for line, case_id in enumerate(ids, start=1):
        write_clip(root / f"{case_id}.wav", seconds)
        cases.append(Case(case_id, {"id": case_id, "audio": f"{case_id}.wav",
                                    "canary": CANARY, "reference": "x"}, line))
    return Suite(id="desk", version="1", title="t", method="error_rate", locale="en-US",
                 canary=CANARY, root=root, cases=tuple(cases), manifest={})


class Rig:
    """One product on the scripted app, its script rewritten per test; the rig waits
    for the app's ready line (``READY_LOG``) unless ``settings`` say otherwise."""

    def __init__(self, tmp: Path, app_args: tuple[str, ...] = (), clip_s: float = 1.0,
                 **settings: Any) -> None:
        self.script = tmp / "script.json"
        self.steps([])
        app = app_argv("scripted_app", "--script", str(self.script),
                       "--mode", settings.get("hotkey_mode", "toggle"), *app_args)
        base = {"app": app, "hotkey": "F9", "stable_s": 2.0, "max_wait_s": 10.0,
                "empty_wait_s": 8.0, "ready_log": READY_LOG, "launch_wait_s": 60.0,
                "hotkey_lead_s": 0.2}
        chosen = {k: v for k, v in {**base, **settings}.items() if v is not None}
        self.product = make_product(tmp / "products", "desktop", chosen)
        self.suite = tone_suite(tmp / "suite", seconds=clip_s)
        self.adapter = desktop_adapter(self.product, self.suite, AdapterOptions(warmup=False))

    def steps(self, steps: list[dict[str, Any]]) -> None:
        self.script.write_text(json.dumps(steps), encoding="utf-8")
        Path(f"{self.script}.dictations").unlink(missing_ok=True)

    def log(self) -> str:
        return (self.product.outputs_dir / "desktop-app.log").read_text(encoding="utf-8")

    def get(self, case: int = 0, repetition: int = 1) -> Output:
        output = self.adapter.get(self.suite.cases[case], repetition)
        assert output is not None
        return output

    @property
    def driver(self) -> DesktopTranscriber:
        transcriber = self.adapter._transcriber
        assert isinstance(transcriber, DesktopTranscriber)
        return transcriber

    def close(self) -> None:
        if self.adapter._transcriber is not None:
            self.driver.close()

    def two_items(self, first: list[dict[str, Any]], second: list[dict[str, Any]]
                  ) -> tuple[Output, Output]:
        """Cases 0 and 1, the app scripted with ``first``, then ``second`` steps; the
        rig is closed after."""
        try:
            self.steps(first)
            one = self.get()
            self.steps(second)
            two = self.get(case=1)
        finally:
            self.close()
        return one, two


@pytest.fixture
def rig(desktop: Desktop, tmp_path: Path) -> Iterator[Rig]:
    made = Rig(tmp_path)
    yield made
    made.close()


def test_bursts_deletes_and_retyping_settle_on_the_final_text(desktop: Desktop, tmp_path: Path
                                                               ) -> None:
    # a 4 s tone: the bursts end before the rig's stop press (keys an app types while
    # its own hotkey is held go to its key grab, not to the document)
    rig = Rig(tmp_path, clip_s=4.0)
    try:
        rig.steps([{"wait_audio": True}, {"type": "the quick"}, {"sleep": 0.3},
                   {"type": " brown fix"}, {"sleep": 0.3}, {"backspace": 3},
                   {"type": "fox"}, {"flicker": " jumps", "times": 2, "every": 0.15},
                   {"type": "."}])
        output = rig.get()
    finally:
        rig.close()
    assert (output.status, output.text) == ("complete", "the quick brown fox.")
    facts = output.meta["desktop"]
    assert facts["settle"] == "settled" and facts["replays"] == 0
    assert facts["changes"] >= 6 and facts["first_text_s"] < facts["final_text_s"]
    # the rig's live timing is the line's latency: first audible sample -> final text
    assert output.latency_ms == pytest.approx(facts["final_text_s"] * 1000)


@pytest.mark.parametrize("delay", [0.3, 1.2])
def test_an_injected_delay_is_recovered_within_50_ms(rig: Rig, delay: float) -> None:
    # the app types `delay` after the first audible sample it heard; on a loaded machine
    # it may start typing later than that, so the truth is what it logged: when it heard
    # the first sample (dated like the rig's tap) and when it sent the first key
    rig.steps([{"wait_audio": True}, {"sleep_after_audio": delay}, {"type": "ok"}])
    facts = rig.get().meta["desktop"]
    heard = float(re.findall(r"heard at ([0-9.]+)", rig.log())[-1])
    typing = float(re.findall(r"typing at ([0-9.]+)", rig.log())[-1])
    assert typing - heard >= delay - 0.005
    assert facts["first_text_s"] == pytest.approx(typing - heard, abs=0.05)


def test_a_dead_hotkey_is_replayed_once_then_failed_with_the_reason(rig: Rig) -> None:
    rig.steps([])  # the app does nothing on its hotkey
    output = rig.get()
    assert output.status == "failed" and output.text == ""
    assert "no text arrived" in (output.error or "") and "'F9'" in (output.error or "")
    assert output.meta["desktop"]["attempt"] == 2
    assert output.meta["desktop"]["replays"] == 1
    # toggle mode: the app's state is unknown after an empty attempt (a lost press
    # would leave it dictating), so it is relaunched before the replay
    assert rig.log().count(READY) == 2


def test_an_app_slow_to_grab_its_hotkey_is_waited_for(desktop: Desktop, tmp_path: Path
                                                      ) -> None:
    # 4 s before the app can hear its hotkey: a fixed wait shorter than that loses the
    # start press, and in toggle mode the rig's stop press would start the dictation
    rig = Rig(tmp_path, app_args=("--grab-delay", "4"))
    try:
        rig.steps([{"wait_audio": True}, {"type": "in phase"}])
        first = rig.get()
        second = rig.get(case=1)
        assert (first.status, first.text) == ("complete", "in phase"), first.error
        assert (second.status, second.text) == ("complete", "in phase"), second.error
        assert rig.log().count(READY) == 1
    finally:
        rig.close()


def test_a_ready_window_is_waited_for(desktop: Desktop, tmp_path: Path) -> None:
    rig = Rig(tmp_path, app_args=("--grab-delay", "3", "--window", "Scripted dictation"),
              ready_log=None, ready_window="^Scripted dictation$")
    try:
        rig.steps([{"wait_audio": True}, {"type": "window"}])
        output = rig.get()
        assert (output.status, output.text) == ("complete", "window"), output.error
    finally:
        rig.close()


def test_an_app_never_ready_is_an_item_error_naming_its_log(desktop: Desktop, tmp_path: Path
                                                             ) -> None:
    rig = Rig(tmp_path, ready_log="never printed", launch_wait_s=2)
    try:
        output = rig.get()
        assert output.status == "error"
        error = output.error or ""
        assert "not ready 2 s after its launch (launch_wait_s)" in error, error
        assert "ready_log 'never printed'" in error
        assert str(rig.product.outputs_dir / "desktop-app.log") in error
    finally:
        rig.close()


def test_an_app_exiting_before_it_is_ready_says_what_it_printed(desktop: Desktop,
                                                                 tmp_path: Path) -> None:
    rig = Rig(tmp_path, app=[sys.executable, "-c",
                             "print('no microphone found'); raise SystemExit(3)"])
    try:
        output = rig.get()
        assert output.status == "error"
        assert "exited with status 3 before it was ready" in (output.error or "")
        assert "no microphone found" in (output.error or "")
    finally:
        rig.close()


def test_text_arriving_on_the_replay_is_kept(rig: Rig) -> None:
    rig.steps([{"from_dictation": 2}, {"wait_audio": True}, {"type": "second time"}])
    output = rig.get()
    assert (output.status, output.text) == ("complete", "second time")
    assert output.meta["desktop"]["replays"] == 1


def test_text_still_changing_past_max_wait_fails_with_the_last_text(rig: Rig) -> None:
    rig.steps([{"wait_audio": True}, {"type": "a"},
               {"flicker": "b", "times": 40, "every": 0.2}, {"type": "z"}])
    output = rig.get()
    assert output.status == "failed" and "still changing" in (output.error or "")
    facts = output.meta["desktop"]
    assert facts["settle"] == "timeout" and facts["last_text"] in ("a", "ab")


def test_losing_the_focus_makes_the_item_invalid(rig: Rig) -> None:
    rig.steps([{"wait_audio": True}, {"type": "hel"}, {"steal_focus": True},
               {"type": "lo"}])
    output = rig.get()
    assert output.status == "invalid" and "lost the keyboard focus" in (output.error or "")
    assert output.meta["desktop"]["settle"] == "focus_lost"
    # the document's last text when the focus went: "hel", or "he" when the editor saw
    # the focus move before it had drawn the last key (under load)
    last = output.meta["desktop"]["last_text"]
    assert last and "hel".startswith(last)


def test_text_typed_before_the_audio_is_stray_and_invalid(desktop: Desktop, tmp_path: Path
                                                           ) -> None:
    # a second between the hotkey and the audio: the app types into a window that has
    # settled its focus (a key sent in the first instants can be lost under load)
    rig = Rig(tmp_path, hotkey_lead_s=1.0)
    try:
        rig.steps([{"sleep": 0.4}, {"type": "left over"}, {"wait_audio": True},
                   {"type": " new"}])
        output = rig.get()
        assert output.status == "invalid" and "before the first audible sample" in output.error
        assert output.meta["desktop"]["stray_text"] is True
        assert output.meta["desktop"]["last_text"] == "left over new"
    finally:
        rig.close()


def test_an_app_crash_mid_item_is_an_error_and_the_next_item_relaunches(rig: Rig) -> None:
    rig.steps([{"wait_audio": True}, {"type": "par"}, {"exit": 3}])
    output = rig.get()
    assert output.status == "error" and "exited with status 3" in (output.error or "")
    rig.steps([{"wait_audio": True}, {"type": "fine"}])
    again = rig.get(case=1)
    assert (again.status, again.text) == ("complete", "fine")


def test_hold_to_talk_holds_the_hotkey_for_the_audio(desktop: Desktop, tmp_path: Path
                                                      ) -> None:
    rig = Rig(tmp_path, hotkey_mode="hold")
    try:
        # the app types once the hotkey is released: the audio was played in between
        rig.steps([{"wait_audio": True}, {"wait_stop": True}, {"type": "held"}])
        output = rig.get()
        assert (output.status, output.text) == ("complete", "held")
        assert output.meta["desktop"]["first_text_s"] >= 1.0  # after the 1 s tone
    finally:
        rig.close()


def test_a_second_rig_on_the_same_display_is_refused(rig: Rig, tmp_path: Path) -> None:
    rig.adapter._ready()
    rig.driver._take_rig()  # the first rig holds the display and route from here on
    config = DesktopConfig.from_product(rig.product)
    with pytest.raises(ProductError, match="one rig per display and audio route"), \
            LinuxBackend(None, config.input_device).claim():
        pass


def test_a_missing_audio_route_stops_the_run_before_any_item(
        desktop: Desktop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path}/no-such-server")
    product = make_product(tmp_path / "products", "desktop",
                           {"app": app_argv("scripted_app", "--script", "x"), "hotkey": "F9"})
    with pytest.raises(ProductError, match="no PulseAudio/PipeWire server answers"):
        desktop_adapter(product, tone_suite(tmp_path / "s"), AdapterOptions())


def test_a_missing_display_or_app_binary_is_named(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    product = make_product(tmp_path / "products", "desktop",
                           {"app": ["no-such-dictation-app"], "hotkey": "F9"})
    with pytest.raises(ProductError) as caught:
        desktop_adapter(product, tone_suite(tmp_path / "s"), AdapterOptions())
    assert "no X display" in str(caught.value)
    assert "'no-such-dictation-app' is not found" in str(caught.value)


def test_relaunch_by_block_starts_the_app_again(desktop: Desktop, tmp_path: Path) -> None:
    rig = Rig(tmp_path, relaunch="block")
    try:
        rig.steps([{"wait_audio": True}, {"type": "one"}])
        rig.adapter.start_block(1)
        one = rig.get()
        assert one.status == "complete"
        first = rig.driver._app
        # the same block: no relaunch, unless the first item gave its own reason (on a
        # loaded machine its typed text can arrive after the quiet window: late text)
        reason = one.meta["desktop"].get("relaunch_after")
        rig.adapter.start_block(1)
        assert rig.get(case=1).status == "complete"
        assert (rig.driver._app is first) == (reason is None), reason
        rig.adapter.start_block(2)
        assert rig.get(case=0, repetition=2).status == "complete"
        assert rig.driver._app is not first and first is not None
        assert first.exit_code() is not None  # the old app was stopped
    finally:
        rig.close()


def test_the_screen_is_recorded_during_the_item(desktop: Desktop, tmp_path: Path) -> None:
    rig = Rig(tmp_path, record_screen=True)
    try:
        rig.steps([{"wait_audio": True}, {"type": "on video"}])
        started = time.monotonic()
        output = rig.get()
        took = time.monotonic() - started
        assert (output.status, output.text) == ("complete", "on video"), output.error
        name = output.meta["desktop"]["screen_recording"]
        assert name == "screen/c1.1.1.mp4"
        video = rig.product.outputs_dir / name
        assert video.stat().st_size > 0
        probe = subprocess.run(
            ["ffprobe", "-v", "error", "-show_entries",
             "format=duration:stream=codec_type,codec_name,width,height,nb_frames",
             "-of", "json", str(video)], capture_output=True, text=True, check=True)
        found = json.loads(probe.stdout)
        stream = found["streams"][0]
        assert (stream["codec_type"], stream["codec_name"]) == ("video", "h264")
        assert (stream["width"], stream["height"]) == (1024, 768)  # the Xvfb screen
        assert int(stream["nb_frames"]) > 0
        # from the fresh document to its close: the 2 s clip and stable_s (2 s) at least,
        # never longer than the item took
        assert 4.0 <= float(found["format"]["duration"]) <= took + 1.0
    finally:
        rig.close()


def test_screen_recording_command() -> None:
    from pytest_dictbench.adapters.desktop.linux import screen_command

    assert screen_command(":7", Path("/o/s.mp4")) == [
        "ffmpeg", "-loglevel", "error", "-y", "-f", "x11grab", "-framerate", "10",
        "-i", ":7", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
        "/o/s.mp4"]
