"""Word diffs for word-unit suites, and diffs of hour-long texts."""

from __future__ import annotations

import random
import re

import jiwer
import pytest

from pytest_dictbench.report.sections import failing_items
from pytest_dictbench.text.diff import (
    closest,
    diff_against_closest,
    edit_distance,
    opcodes,
    render_diff,
)


def test_word_edit_distance_hand_values() -> None:
    assert edit_distance("the cat sat", "the bat sat down", unit="word") == 2
    assert edit_distance("a b", "", unit="word") == 2
    assert edit_distance("same  words\nhere", "same words here", unit="word") == 0


def test_word_opcodes_align_whole_words() -> None:
    assert opcodes("see you at noon today", "see you at new today", unit="word") == [
        ("equal", "see you at", "see you at"), ("replace", "noon", "new"),
        ("equal", "today", "today")]


def test_word_diffs_mark_whole_words_and_cut_context_in_words() -> None:
    assert render_diff("see you at noon today", "see you at new today", unit="word") == (
        "see you at [-noon-]{+new+} today")
    expected = " ".join(f"w{i}" for i in range(30))
    output = expected.replace("w0 ", "x0 ").replace("w29", "x29")
    assert render_diff(expected, output, unit="word") == (
        "[-w0-]{+x0+} w1 w2 w3 w4 w5 w6 … w23 w24 w25 w26 w27 w28 [-w29-]{+x29+}")
    assert render_diff("a b", "a  b", unit="word") == "(no difference)"


def test_closest_in_words_counts_words_not_characters() -> None:
    # In characters "extraordinarily" is far from "extra"; in words both are one edit.
    refs = ["it was extraordinarily good", "it was good"]
    assert closest("it was extra good", refs, unit="word") == 0
    assert closest("it was extra good", refs, unit="char") == 1


def test_an_unknown_unit_is_refused() -> None:
    with pytest.raises(ValueError, match="unit must be one of char, word"):
        opcodes("a", "b", unit="line")


def test_failing_items_of_a_word_unit_suite_get_word_diffs() -> None:
    suite = {"method": "error_rate", "locale": "en-US",
             "products": [{"product": "p1", "tables": {"summary": {"unit": "word"}}}]}
    record = {"status": "failed", "product": "p1", "case_id": "c1", "repetition": 1,
              "text": "The meeting moved to a room for.", "rules": {}, "message": ""}
    (item,) = failing_items(suite, [record], {"c1": ["The meeting moved to room four."]})
    assert item.diff == "The meeting moved to {+a+} room [-four.-]{+for.+}"
    ja = {"method": "error_rate", "locale": "ja-JP",
          "products": [{"product": "p1", "tables": {"summary": {"unit": "char"}}}]}
    record = dict(record, text="体制の見直し")
    (item,) = failing_items(ja, [record], {"c1": ["態勢の見直し"]})
    assert item.diff == "[-態勢-]{+体制+}の見直し"


def test_an_hour_of_transcript_is_diffed_with_minimal_word_edits() -> None:
    rng = random.Random(7)
    vocabulary = [f"word{i}" for i in range(400)]
    reference = [rng.choice(vocabulary) for _ in range(9000)]
    output = list(reference)
    for index in rng.sample(range(9000), 300):
        output[index] = "wrong"
    ref_text, out_text = " ".join(reference), " ".join(output)
    ops = opcodes(ref_text, out_text, unit="word")
    assert " ".join(a for _, a, _ in ops if a).split() == reference
    assert " ".join(b for _, _, b in ops if b).split() == output
    # as many edits as jiwer's independent count of the same alignment problem
    counts = jiwer.process_words(ref_text, out_text)
    edits = counts.substitutions + counts.deletions + counts.insertions
    assert edit_distance(ref_text, out_text, unit="word") == edits
    assert diff_against_closest(out_text, [ref_text], unit="word").count("{+wrong+}") >= 1


def test_texts_that_differ_only_in_unicode_form_never_show_no_difference() -> None:
    """An NFD 'é' against an NFC one is a real difference of code points (the rig's
    strict edit distance counts it), so the diff says so instead of '(no difference)'."""
    nfc, nfd = "caf\u00e9 cr\u00e8me", "cafe\u0301 cre\u0300me"
    assert edit_distance(nfc, nfd) == 4
    shown = render_diff(nfc, nfd)
    assert shown != "(no difference)"
    assert "Unicode" in shown
    assert render_diff(nfc, nfc) == "(no difference)"
    assert render_diff("ＡＢＣ", "ABC") == "(no difference)"  # width: never an error


def _balanced(diff: str) -> bool:
    """Every ``[-`` closes with ``-]`` and every ``{+`` with ``+}`` (texts without
    brackets or braces of their own)."""
    rest = re.sub(r"\[-[^\[\]{}]*?-\]|\{\+[^\[\]{}]*?\+\}", "", diff)
    return not any(mark in rest for mark in ("[-", "-]", "{+", "+}"))


def test_a_long_diff_is_cut_between_tokens_never_inside_a_change_or_a_word() -> None:
    from pytest_dictbench.report.html_parts import diff_html
    from pytest_dictbench.text.diff import MAX_RENDERED

    expected = " ".join(f"word{i} common{i}" for i in range(60))
    output = " ".join(f"other{i} common{i}" for i in range(60))
    diff = render_diff(expected, output, unit="word")
    assert len(diff) <= MAX_RENDERED and diff.endswith(" …")
    assert _balanced(diff), diff
    kept = re.sub(r"\[-|-\]|\{\+|\+\}", " ", diff.removesuffix(" …")).split()
    assert all(w in expected.split() + output.split() for w in kept), diff
    # the HTML shows every change as del/ins: no marker is left as text
    html = diff_html(diff)
    assert "[-" not in html and "{+" not in html
    # one change longer than the limit is cut inside, between words, and closed
    long = render_diff("a", " ".join(["spoken"] * 80), unit="word")
    assert len(long) <= MAX_RENDERED and _balanced(long) and long.endswith(" …+}"), long
    chars = render_diff("x", "y" * 500)
    assert len(chars) <= MAX_RENDERED and _balanced(chars), chars
