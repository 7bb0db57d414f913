"""Control and bidi characters from outputs are shown, never obeyed, in every report."""

from __future__ import annotations

import pytest

from pytest_dictbench.text.visible import visible

HOSTILE = "Hello \x1b[2J\x1b[31mMaria\x07, see\r you \u202eat noon\u2066.\x9b0m"
LIVE = ("\x1b", "\x07", "\r", "\u202e", "\u2066", "\x9b")


def test_visible_stand_ins() -> None:
    assert visible("a\x1b[31mb") == "a\u241b[31mb"  # ␛
    assert visible("x\x00\x7f\x9b") == "x\u2400\u2421\\u{9b}"
    assert visible("\u202egnp.exe\u200f") == "\\u{202e}gnp.exe\\u{200f}"
    assert visible("line\n\tnext — 日本語 שלום") == "line\n\tnext — 日本語 שלום"
    assert visible(visible(HOSTILE)) == visible(HOSTILE)


def test_reports_and_terminal_show_control_characters(mini: pytest.Pytester,
                                                      write_product) -> None:
    write_product(outputs=[{"case_id": "c1", "text": HOSTILE},
                           {"case_id": "c2", "text": "x", "status": "error",
                            "error": "engine said \x1b]0;owned\x07"}])
    result = mini.runpytest("--product=p1", "-rA")
    reports = mini.path / "reports"
    for name in ("dictbench.md", "dictbench.html"):
        text = (reports / name).read_text(encoding="utf-8")
        assert not any(char in text for char in LIVE), name
        assert "\u241b[31m" in text and "\u2407" in text and "\\u{202e}" in text, name
    out = "\n".join(result.outlines + result.errlines)
    assert not any(char in out for char in LIVE)
    assert "engine said \u241b]0;owned\u2407" in out
