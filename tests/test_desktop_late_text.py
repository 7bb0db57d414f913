"""Late text never lands in another item (issue 45, DK4, DK5 of ``desktop.md``): the
scripted app types late at several delays, on the real Linux rig (Xvfb, PulseAudio).

Timeline of an item (toggle mode): the stop press at the audio's end, the settle
decision ``stable_s`` after it, then the item goes on until the document has been quiet
for ``late_guard_s`` (at most ``late_max_s``); late text relaunches the app."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_dictbench.adapters.desktop.boundary import WAITING, LateText, watch_late
from pytest_dictbench.adapters.desktop.settle import Snapshot
from tests.desktop_apps import READY
from tests.desktop_support import Desktop, private_desktop
from tests.test_desktop_linux import Rig


@pytest.fixture(scope="module")
def desktop() -> Iterator[Desktop]:
    with private_desktop() as found:
        yield found


# -- the watch, as a pure function -------------------------------------------------------

def test_each_late_change_extends_the_item_until_it_is_quiet() -> None:
    shots = [Snapshot(1.0, "a"), Snapshot(3.5, "a b"), Snapshot(4.3, "a b c")]
    watch = {"text": "a", "final_at": 1.0, "decided": 3.0, "quiet_s": 1.0, "max_s": 10.0}
    assert watch_late(shots[:1], now=4.0, **watch) is None  # quiet since the decision
    assert watch_late(shots, now=5.2, **watch) is WAITING  # 0.9 s after the last change
    assert watch_late(shots, now=5.3, **watch) == LateText("a b c", 2.5, 3.3, False)
    assert watch_late(shots, now=5.0, **{**watch, "max_s": 2.0}) == \
        LateText("a b c", 2.5, 3.3, True)


@given(st.lists(st.tuples(st.floats(0, 20), st.sampled_from(["", "a", "ab", "b"])),
                max_size=12),
       st.floats(0.1, 5), st.floats(0, 30))
def test_the_watch_ends_quiet_or_at_its_bound_and_names_the_last_text(
        raw: list[tuple[float, str]], quiet_s: float, now_after: float) -> None:
    shots = [Snapshot(at, text) for at, text in sorted(raw)]
    decided, max_s = 2.0, 8.0
    late = watch_late(shots, text="a", final_at=1.0, decided=decided,
                      now=decided + now_after, quiet_s=quiet_s, max_s=max_s)
    after = [s for s in shots if s.at > decided]
    changes, current = [], "a"
    for shot in after:  # written out again: a change is a text unlike the one before
        if shot.text != current:
            changes.append(shot)
        current = shot.text
    last = changes[-1].at if changes else decided
    if decided + now_after - last < quiet_s and now_after < max_s:
        assert late is WAITING
    elif not changes:
        assert late is None
    else:
        assert isinstance(late, LateText) and late.text == changes[-1].text
        assert late.first_s <= late.last_s
        assert late.still_arriving == (decided + now_after - last < quiet_s)


# -- on the rig ---------------------------------------------------------------------------

def test_late_text_inside_the_guard_is_its_items_however_long_it_trickles(
        desktop: Desktop, tmp_path: Path) -> None:
    """DK4: two late words, the second after the first guard would have ended: both are
    the first item's late text (invalid, with the delays), the app is relaunched, and
    the next item holds only its own text."""
    rig = Rig(tmp_path, stable_s=1.5, late_guard_s=2.0)
    # L1 0.8 s into the guard, L2 1.5 s after L1: after a fixed 2 s guard's end
    first, second = rig.two_items(
        [{"wait_audio": True}, {"type": "item"}, {"wait_stop": True},
         {"sleep": 2.3}, {"type": " L1"}, {"sleep": 1.5}, {"type": " L2"}],
        [{"wait_audio": True}, {"type": "next"}])
    assert first.status == "invalid", (first.status, first.error)
    facts = first.meta["desktop"]
    assert facts["late_text"] == "item L1 L2", facts
    assert facts["late_text_last_s"] - facts["late_text_s"] >= 1.4, facts
    assert facts["relaunch_after"] == "late text"
    assert "(the app is relaunched before the next item)" in (first.error or "")
    assert (second.status, second.text) == ("complete", "next"), second.error
    assert rig.log().count(READY) == 2  # the relaunch


def test_late_text_still_arriving_at_late_max_s_ends_the_item_and_the_app(
        desktop: Desktop, tmp_path: Path) -> None:
    rig = Rig(tmp_path, stable_s=1.5, late_guard_s=0.6, late_max_s=2.0)
    first, second = rig.two_items(
        [{"wait_audio": True}, {"type": "item"}, {"wait_stop": True},
         {"sleep": 1.7}, {"flicker": " x", "times": 25, "every": 0.15}],
        [{"wait_audio": True}, {"type": "next"}])
    facts = first.meta["desktop"]
    assert first.status == "invalid" and facts["late_text_still_arriving"] is True, facts
    assert facts["relaunch_after"] == "late text still arriving at late_max_s"
    assert "still changing late_max_s (2 s) after the decision" in (first.error or "")
    assert (second.status, second.text) == ("complete", "next"), second.error


def test_late_text_past_the_guard_before_the_next_audio_is_the_earlier_items(
        desktop: Desktop, tmp_path: Path) -> None:
    """DK4: a word typed after the guard reaches the next item's fresh document before
    its first audible sample: it is recorded as the first item's late text, the app is
    relaunched and the next item dictated again in a fresh document (so it is scored on
    its own text, not voided)."""
    rig = Rig(tmp_path, stable_s=1.5, late_guard_s=0.3, hotkey_lead_s=1.5)
    first, second = rig.two_items(
        [{"wait_audio": True}, {"type": "item"}, {"wait_stop": True},
         {"sleep": 2.6}, {"type": " LATE"}],
        [{"wait_audio": True}, {"sleep": 0.5}, {"type": "next"}])
    assert (first.status, first.text) == ("complete", "item"), first.error
    assert (second.status, second.text) == ("complete", "next"), second.error
    previous = second.meta["desktop"]["previous_late_text"]
    assert previous["item"] == "c1.1.1" and "LATE" in previous["text"], previous
    assert previous["after_its_decision_s"] > 0.3
    assert rig.log().count(READY) == 2


def test_isolate_items_relaunches_so_text_after_a_long_silence_never_comes(
        desktop: Desktop, tmp_path: Path) -> None:
    """With ``isolate_items`` the app that would type after a silence longer than the
    guard (and during the next item's audio) is gone before the next item starts."""
    rig = Rig(tmp_path, stable_s=1.5, late_guard_s=0.3, isolate_items=True)
    first, second = rig.two_items(
        [{"wait_audio": True}, {"type": "item"}, {"wait_stop": True},
         {"sleep": 3.5}, {"type": " LATE"}],
        [{"wait_audio": True}, {"sleep": 1.0}, {"type": "next"}])
    assert (first.status, first.text) == ("complete", "item"), first.error
    assert first.meta["desktop"]["relaunch_after"] == "isolate_items"
    assert (second.status, second.text) == ("complete", "next"), second.error
    assert "' LATE'" not in rig.log()  # the process that would have typed it is gone
    assert rig.log().count(READY) == 2


@pytest.mark.parametrize("workers", [[], ["-p", "xdist", "-n", "2"]])
def test_late_text_stays_in_its_item_in_a_run_serial_and_under_xdist(
        desktop: Desktop, tmp_path: Path, workers: list[str]) -> None:
    """The first dictation types a late word inside the guard: its item is invalid
    (an error in the run, never a score), the second item is its own text only."""
    from tests.test_desktop_journal import dictbench, lines, project, run

    folder = project(tmp_path, steps=[
        {"wait_audio": True}, {"type": "ok"}, {"until_dictation": 1}, {"wait_stop": True},
        {"sleep": 1.8}, {"type": " LATE"}])
    toml = folder / "products" / "desk.toml"
    toml.write_text(toml.read_text().replace("late_guard_s = 0.5", "late_guard_s = 1.2"))
    dictbench(folder, "desktop", "reset")  # whatever an earlier test left
    done = run(folder, "--product=desk", "-rA", *workers)
    found = {x["case_id"]: x for x in lines(folder)}
    assert (found["c1"]["status"], found["c1"]["text"]) == ("invalid", None), found
    assert found["c1"]["desktop"]["late_text"] == "ok LATE"
    assert found["c1"]["desktop"]["late_text_s"] > 1.5
    assert (found["c2"]["status"], found["c2"]["text"]) == ("complete", "ok"), found
    # the invalid item is an error of the run, never a scored (zero) result
    assert done.returncode == 1, done.stdout
    items = {x["case_id"]: x for x in map(json.loads, (folder / "reports" / "items.jsonl")
                                          .read_text().splitlines())}
    assert (items["c1"]["status"], items["c1"]["score"]) == ("error", None), items["c1"]
    assert items["c1"]["message"].startswith("invalid: the text changed")
    assert (items["c2"]["status"], items["c2"]["score"]) == ("passed", 100.0)


@pytest.mark.parametrize(("settings", "message"), [
    ({"late_guard_s": 3, "late_max_s": 2}, "late_max_s must be a number of seconds >= 3"),
    ({"isolate_items": True, "relaunch": "never"}, "isolate_items = true needs an app"),
])
def test_boundary_settings_that_cannot_work_are_refused_at_load(
        tmp_path: Path, settings: dict, message: str) -> None:
    from pytest_dictbench.adapters.desktop.config import DesktopConfig
    from pytest_dictbench.errors import ProductError
    from tests.adapter_support import make_product

    with pytest.raises(ProductError, match=re.escape(message)):
        DesktopConfig.from_product(make_product(tmp_path, "desktop",
                                                {"app": ["x"], "hotkey": "F9", **settings}))
