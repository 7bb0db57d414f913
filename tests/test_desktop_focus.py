"""Focus losses between the editor's polls (DK22 of ``desktop.md``), on the real Linux
rig (Xvfb, PulseAudio, the scripted app)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.desktop_support import Desktop, private_desktop
from tests.test_desktop_linux import Rig


@pytest.fixture(scope="module")
def desktop() -> Iterator[Desktop]:
    with private_desktop() as found:
        yield found


def test_a_focus_loss_shorter_than_the_poll_voids_the_item(desktop: Desktop,
                                                           tmp_path: Path) -> None:
    """DK22: a window takes the focus and gives it straight back (well under the
    editor's 10 ms poll), twice, while the app types: the item is invalid."""
    rig = Rig(tmp_path, clip_s=2.0)
    try:
        rig.steps([{"wait_audio": True}, {"type": "before"}, {"blink_focus": 2},
                   {"type": " after"}])
        output = rig.get()
    finally:
        rig.close()
    assert rig.log().count("focus blinked") == 2
    assert output.status == "invalid", (output.status, output.text)
    assert "lost the keyboard focus" in (output.error or ""), output.error
    assert "(briefly: it came back): not scored" in (output.error or ""), output.error
    facts = output.meta["desktop"]
    assert facts["settle"] == "focus_lost" and facts["focus_came_back"] is True
    assert "focus_taken_by" not in facts


@pytest.mark.parametrize("mode", ["toggle", "hold"])
def test_hotkey_grabs_and_a_window_that_takes_no_focus_are_no_loss(
        desktop: Desktop, tmp_path: Path, mode: str) -> None:
    """DK22: the FocusOut a key grab causes (the app's hotkey, pressed and held) and a
    window mapped beside the document are not losses."""
    rig = Rig(tmp_path, hotkey_mode=mode, app_args=("--window", "overlay"))
    try:
        rig.steps([{"wait_audio": True}, {"wait_stop": True}, {"sleep": 0.3}, {"type": "kept"}])
        first = rig.get()
        second = rig.get(case=1)
    finally:
        rig.close()
    assert [(o.status, o.text) for o in (first, second)] == [("complete", "kept")] * 2, \
        (first.error, second.error)
