"""The review page's approve shortcut and its guards, in a real headless Chromium
(findings 2, 11, 13 and 14 of the review): nothing is approved that was not on screen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from workbench_support import CHROMIUM, browser, make_review_suite, open_page, serving

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed (CI installs it)")


def statuses(root: Path) -> list[str]:
    return [json.loads(line)["status"] for line in
            (root / "cases.jsonl").read_text(encoding="utf-8").splitlines()]


def save_the_first_two(page: Any) -> None:
    """Ctrl+S on the first case, Alt+Right to the second, Ctrl+S there, each waited for."""
    page.keyboard.press("Control+s")
    page.wait_for_selector("body[data-saved='1']")
    page.keyboard.press("Alt+ArrowRight")
    page.wait_for_selector("body[data-shown='rec-2']")
    page.keyboard.press("Control+s")
    page.wait_for_selector("body[data-saved='2']")


def test_holding_ctrl_enter_approves_at_most_the_case_on_screen(tmp_path: Path) -> None:
    """Finding 11 (a): 20 auto-repeated keydowns; on a fresh page nothing, once the case
    has been on screen only that case."""
    root = make_review_suite(tmp_path / "s")
    before = (root / "cases.jsonl").read_bytes()
    with serving(root) as (url, _), browser() as chromium:
        page, errors = open_page(chromium, url + "/")
        page.keyboard.down("Control")
        for _ in range(20):
            page.keyboard.down("Enter")
        page.keyboard.up("Enter")
        assert (root / "cases.jsonl").read_bytes() == before  # not on screen long enough
        page.wait_for_selector("body[data-settled='rec-1']")
        for _ in range(20):
            page.keyboard.down("Enter")  # the first is a press, the others repeats
        page.keyboard.up("Enter")
        page.keyboard.up("Control")
        page.wait_for_selector("body[data-saved='1']")
        page.wait_for_selector("body[data-settled='rec-2']")  # any stray write is done
        assert statuses(root) == ["approved", "draft", "draft"]
        assert page.inner_text("#progress") == "1 of 3 approved"
        assert errors == []


def test_ctrl_enter_during_ime_composition_does_nothing(tmp_path: Path) -> None:
    """Finding 11 (b): the Enter that confirms a composition is not an approval."""
    root = make_review_suite(tmp_path / "s")
    before = (root / "cases.jsonl").read_bytes()
    with serving(root) as (url, _), browser() as chromium:
        page, _ = open_page(chromium, url + "/")
        page.wait_for_selector("body[data-settled='rec-1']")
        page.focus("#transcript")
        for init in ("{key: 'Enter', ctrlKey: true, isComposing: true, bubbles: true}",
                     "{key: 'Enter', ctrlKey: true, keyCode: 229, bubbles: true}"):
            page.evaluate(f"document.getElementById('transcript').dispatchEvent("
                          f"new KeyboardEvent('keydown', {init}))")
        page.keyboard.press("Control+s")  # a save that changes nothing marks the end
        page.wait_for_selector("body[data-saved='1']")
        assert statuses(root) == ["draft", "draft", "draft"]
        assert (root / "cases.jsonl").read_bytes() == before


def test_a_second_press_does_not_approve_the_next_case_unseen(tmp_path: Path) -> None:
    """Finding 11 (c): two presses 200 ms apart approve only the first case. The second
    press meets either the first one's write still in flight or the next case just
    shown, depending on the machine's speed; neither may approve ``rec-2``."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, _), browser() as chromium:
        page, errors = open_page(chromium, url + "/")
        page.wait_for_selector("body[data-settled='rec-1']")
        page.keyboard.press("Control+Enter")
        page.wait_for_timeout(200)
        page.keyboard.press("Control+Enter")
        page.wait_for_selector("body[data-saved='1']")
        page.wait_for_selector("body[data-settled='rec-2']")  # a stray approval could start
        page.keyboard.press("Control+s")  # a save that changes nothing marks the end
        page.wait_for_selector("body[data-saved='2']")
        assert statuses(root) == ["approved", "draft", "draft"]
        assert "changed on disk" not in page.inner_text("#message")
        assert errors == []


PRESS_AS_NEXT_APPEARS = """(id) => {
  // presses Ctrl+Enter the moment case ``id`` is shown, whatever the machine's load
  new MutationObserver((_, observer) => {
    if (document.body.dataset.shown !== id) return;
    observer.disconnect();
    document.dispatchEvent(new KeyboardEvent("keydown",
      { key: "Enter", ctrlKey: true, bubbles: true, cancelable: true }));
  }).observe(document.body, { attributes: true, attributeFilter: ["data-shown"] });
}"""


def test_a_press_as_the_next_case_appears_is_refused_with_a_message(tmp_path: Path) -> None:
    """Finding 11 (c), the other timing: a press that lands just after the next case
    appeared says so and approves nothing."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, _), browser() as chromium:
        page, errors = open_page(chromium, url + "/")
        page.wait_for_selector("body[data-settled='rec-1']")
        page.evaluate(PRESS_AS_NEXT_APPEARS, "rec-2")
        page.keyboard.press("Control+Enter")
        page.wait_for_selector("body[data-saved='1']")
        page.wait_for_selector("#message.error")
        assert "just appeared" in page.inner_text("#message")
        page.wait_for_selector("body[data-settled='rec-2']")
        assert statuses(root) == ["approved", "draft", "draft"]
        assert errors == []


def test_approving_the_last_case_says_the_suite_is_done(tmp_path: Path) -> None:
    """Finding 13."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, _), browser() as chromium:
        page, _ = open_page(chromium, url + "/")
        for n in (1, 2, 3):
            page.wait_for_selector(f"body[data-settled='rec-{n}']")
            page.keyboard.press("Control+Enter")
            page.wait_for_selector(f"body[data-saved='{n}']")
        page.wait_for_selector("body[data-done='1']")
        message = page.inner_text("#message")
        assert "All 3 cases approved; nothing left to review" in message
        assert f"pytest {root}" in message
        page.reload()  # a finished suite says so from the start
        page.wait_for_selector("body[data-done='1']")
    assert statuses(root) == ["approved"] * 3


LEAVE = """() => {
  const event = new Event("beforeunload", { cancelable: true });
  window.dispatchEvent(event);
  return event.defaultPrevented;
}"""


def test_leaving_with_unsaved_edits_asks(tmp_path: Path) -> None:
    """Finding 14: the page asks before unload (cancels ``beforeunload``, which makes the
    browser ask) while the editor differs from the saved case, and only then."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, _), browser() as chromium:
        page, _ = open_page(chromium, url + "/")
        assert page.evaluate(LEAVE) is False
        page.click("#transcript")
        page.keyboard.type(" and more")
        assert page.evaluate(LEAVE) is True
        page.keyboard.press("Control+s")
        page.wait_for_selector("body[data-saved='1']")
        assert page.evaluate(LEAVE) is False
        page.click("#add")
        assert page.evaluate(LEAVE) is True


def test_the_page_says_why_audio_is_unavailable(tmp_path: Path) -> None:
    """Finding 2: the player alone shows nothing; the page names the reason."""
    root = make_review_suite(tmp_path / "s")
    (root / "audio/rec-1.wav").unlink()
    with serving(root) as (url, _), browser() as chromium:
        page, _ = open_page(chromium, url + "/")
        page.wait_for_function("() => document.getElementById('audio-note').textContent")
        note = page.inner_text("#audio-note")
        assert "Audio unavailable" in note and "missing" in note


def test_a_save_with_no_edit_keeps_crlf_and_spaces_byte_for_byte(tmp_path: Path) -> None:
    """Finding 10 in the page: the text box hands back LF; the saved text keeps CRLF, a
    lone CR and the spaces around it."""
    from pytest_dictbench.workbench.store import read_cases

    root = make_review_suite(tmp_path / "s")
    lines = (root / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(x) for x in lines]
    rows[0]["reference"] = "\n first line\r\nsecond line \r\n"
    rows[1]["reference"] = "one\rtwo  "
    (root / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    from pytest_dictbench.hashes import refresh_hashes

    refresh_hashes(root)
    with serving(root) as (url, _), browser() as chromium:
        page, errors = open_page(chromium, url + "/")
        save_the_first_two(page)
        page.focus("#transcript")
        page.keyboard.press("End")
        page.keyboard.press("Control+End")
        page.keyboard.type("three")
        page.keyboard.press("Control+s")
        page.wait_for_selector("body[data-saved='3']")
        assert errors == []
    saved = read_cases(root)
    assert saved.row("rec-1")["reference"] == "\n first line\r\nsecond line \r\n"
    assert saved.row("rec-2")["reference"] == "one\rtwo  three"


def test_holding_enter_on_the_approve_button_approves_only_the_case_on_screen(
        tmp_path: Path) -> None:
    """Review defect 1: Enter on the focused Approve button clicks it once per key
    repeat; the button keeps the shortcut's guards (no repeat, a case on screen long
    enough, one approval at a time), even when the key is held past the settle time."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, _), browser() as chromium:
        page, errors = open_page(chromium, url + "/")
        page.wait_for_selector("body[data-settled='rec-1']")
        page.focus("#approve")
        page.keyboard.down("Enter")  # a press: approves rec-1
        page.wait_for_selector("body[data-saved='1']")
        for _ in range(30):  # held for 1.5 s: past rec-2's settle time
            page.keyboard.down("Enter")
            page.wait_for_timeout(50)
        page.keyboard.up("Enter")
        page.wait_for_selector("body[data-settled='rec-2']")
        page.keyboard.press("Control+s")  # after any stray write: saves are one at a time
        page.wait_for_selector("body[data-saved='2']")
        assert statuses(root) == ["approved", "draft", "draft"]
        assert page.inner_text("#progress") == "1 of 3 approved"
        assert errors == []


def test_a_double_click_on_approve_approves_one_case(tmp_path: Path) -> None:
    """Review defect 1: the second click of a double click is not an approval."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, _), browser() as chromium:
        page, errors = open_page(chromium, url + "/")
        page.wait_for_selector("body[data-settled='rec-1']")
        page.dblclick("#approve")
        page.wait_for_selector("body[data-saved='1']")
        page.wait_for_selector("body[data-settled='rec-2']")
        page.keyboard.press("Control+s")  # after any stray write: saves are one at a time
        page.wait_for_selector("body[data-saved='2']")
        assert statuses(root) == ["approved", "draft", "draft"]
        assert errors == []


def test_the_approve_button_refuses_a_case_just_shown(tmp_path: Path) -> None:
    """Review defect 1: a click on a case that has just appeared is refused, as the
    shortcut is; once the case has been on screen a click approves it."""
    root = make_review_suite(tmp_path / "s")
    before = (root / "cases.jsonl").read_bytes()
    with serving(root) as (url, _), browser() as chromium:
        page, errors = open_page(chromium, url + "/")
        page.click("#approve")
        page.wait_for_selector("#message.error")
        assert "just appeared" in page.inner_text("#message")
        assert (root / "cases.jsonl").read_bytes() == before
        page.wait_for_selector("body[data-settled='rec-1']")
        page.click("#approve")
        page.wait_for_selector("body[data-saved='1']")
        assert statuses(root) == ["approved", "draft", "draft"]
        assert errors == []


def test_a_key_point_with_line_breaks_survives_a_save_with_no_edit(tmp_path: Path) -> None:
    """Reviewer's suspicion: a one-line ``<input>`` drops a key point's newlines, so
    Ctrl+S on an unedited case rewrote it; key points are edited in a text box that keeps
    them (CRLF too), and an unedited save leaves the file byte-identical."""
    from pytest_dictbench.hashes import refresh_hashes

    root = make_review_suite(tmp_path / "s")
    rows = [json.loads(x) for x in (root / "cases.jsonl").read_text().splitlines()]
    rows[0]["key_points"][0]["text"] = "first line\nsecond line"
    rows[1]["key_points"][0]["text"] = "one\r\ntwo"
    (root / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    refresh_hashes(root)
    before = (root / "cases.jsonl").read_bytes()
    with serving(root) as (url, _), browser() as chromium:
        page, errors = open_page(chromium, url + "/")
        save_the_first_two(page)
        assert errors == []
    assert (root / "cases.jsonl").read_bytes() == before
