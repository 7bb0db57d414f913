"""Tests for the sudachipy wrapper and the character diff."""

from __future__ import annotations

import pytest

from pytest_dictbench.text import japanese
from pytest_dictbench.text.diff import (
    closest,
    diff_against_closest,
    edit_distance,
    opcodes,
    render_diff,
)
from pytest_dictbench.text.japanese import analyse, bare, fold, reading, squash

# --- folding -------------------------------------------------------------------------


def test_fold_makes_ascii_half_width_and_katakana_full_width():
    assert fold("ＰＤＦ１０件ｶﾞｲﾄﾞ") == "PDF10件ガイド"


def test_fold_turns_crlf_and_cr_into_lf():
    assert fold("一行目\r\n二行目\r三行目") == "一行目\n二行目\n三行目"


def test_squash_drops_every_kind_of_whitespace():
    assert squash("新しい API\u3000キー\n です") == "新しいAPIキーです"


def test_bare_also_drops_light_punctuation_but_keeps_full_stop_and_percent():
    assert bare("TCP/IP 設定、「2.5」%") == "TCPIP設定2.5%"


# --- word matching on token boundaries -------------------------------------------------


def test_a_word_is_not_found_inside_a_longer_word():
    # mode B keeps 会議室 whole, so 会議 has no boundary after it there
    text = analyse("会議室を予約しました")
    assert text.find("会議") == []
    assert text.find("会議室") == [(0, 3)]


def test_a_word_is_found_as_part_of_a_compound_split_in_mode_b():
    # 部門会議 splits as 部門|会議 in mode B: the meeting is still a 会議
    assert analyse("来週の部門会議で").find("会議") == [(5, 7)]
    # ログインID splits as ログイン|ID
    assert analyse("ログインIDごとに").contains("ログイン")


def test_a_number_is_not_found_inside_a_longer_number():
    text = analyse("13件と3件")
    assert text.find("3件") == [(4, 6)]
    assert text.count("3件") == 1


def test_spaces_and_light_punctuation_are_ignored_inside_a_match():
    text = analyse("新しい API キーと TCP/IP 設定")
    assert text.contains("APIキー")
    assert text.contains("TCPIP設定")


def test_full_stop_is_not_ignorable_so_decimals_do_not_collapse():
    assert not analyse("1.5倍になった").contains("15倍")


def test_width_is_folded_on_both_sides():
    assert analyse("ＰＤＦで送ります").contains("PDF")
    assert analyse("PDFで送ります").contains("ＰＤＦ")


def test_latin_case_is_ignored_unless_asked_for():
    text = analyse("pdfで送ります")
    assert text.contains("PDF")
    assert not text.contains("PDF", ignore_case=False)


def test_needle_made_only_of_ignorable_characters_matches_nothing():
    assert analyse("、、").find("、") == []


def test_overlapping_candidate_does_not_hide_a_valid_match():
    # 会議 at 0 is inside 会議室 (rejected); the next 会議 at 4 stands alone
    assert analyse("会議室と会議").find("会議") == [(4, 6)]


def test_token_offsets_point_into_the_folded_text_across_lines():
    text = analyse("ＡＢ\n会議")
    assert text.text == "AB\n会議"
    assert [(t.surface, t.start, t.end) for t in text.tokens] == [("AB", 0, 2), ("会議", 3, 5)]


def test_pos_and_readings_come_from_sudachipy():
    tokens = analyse("えーと、照会").tokens
    assert tokens[0].pos[:2] == ("感動詞", "フィラー")
    assert tokens[-1].reading == "ショウカイ"
    assert reading("紹介") == reading("照会") == "ショウカイ"


def test_a_line_longer_than_one_sudachipy_chunk_is_tokenized_whole():
    line = "会議" * 7000  # 14,000 characters: more than one 12,000-character chunk
    text = analyse(line)
    assert "".join(t.surface for t in text.tokens) == line
    assert text.tokens[-1].end == len(line)


def test_one_tokenizer_per_process_and_analysis_is_cached():
    assert japanese._tokenizer() is japanese._tokenizer()
    assert analyse("同じ文です") is analyse("同じ文です")


# --- character diff ----------------------------------------------------------------------


def test_edit_distance_hand_values():
    assert edit_distance("kitten", "sitting") == 3  # k->s, e->i, +g
    assert edit_distance("", "abc") == 3
    assert edit_distance("体制の見直し", "態勢の見直し") == 2  # 体->態, 制->勢
    assert edit_distance("同じ", "同じ") == 0


def test_opcodes_cover_both_texts():
    ops = opcodes("資料は6件", "資料は5件。6件")
    assert "".join(a for _, a, _ in ops) == "資料は6件"
    assert "".join(b for _, _, b in ops) == "資料は5件。6件"
    assert ops == [("equal", "資料は", "資料は"), ("insert", "", "5件。"), ("equal", "6件", "6件")]


def test_closest_picks_the_smallest_distance_and_the_first_on_ties():
    assert closest("abd", ["xyz", "abc", "abe"]) == 1  # 3, 1, 1 -> first of the ties
    assert closest("ＡＢＣ", ["xyz", "ABC"]) == 1  # width folded before measuring
    with pytest.raises(ValueError, match="at least one"):
        closest("a", [])


def test_render_diff_marks_removed_and_added_text_with_context():
    # 体制->態勢 replaced, then 6 of the 8 unchanged characters after it (の見直しを始) and …
    assert render_diff("体制の見直しを始めます", "態勢の見直しを始めます") == (
        "[-体制-]{+態勢+}の見直しを始…"
    )


def test_render_diff_shows_line_breaks_and_identical_texts():
    assert render_diff("一行目\n二行目", "一行目 二行目") == "一行目[-↵-]{+ +}二行目"
    assert render_diff("ＡＢ", "AB") == "(no difference)"


def test_render_diff_cuts_long_unchanged_middles():
    expected = "あいうえおかきくけこさしすせそたちつてと"
    output = "X" + expected[1:-1] + "Y"
    # unchanged middle: いうえおかきくけこさしすせそたちつて (18) -> first 6 … last 6
    assert render_diff(expected, output) == "[-あ-]{+X+}いうえおかき…せそたちつて[-と-]{+Y+}"


def test_diff_against_closest_uses_the_nearest_expected_output():
    expected = ["今日は晴れです。", "明日は雨です。"]
    assert diff_against_closest("明日は飴です。", expected) == "明日は[-雨-]{+飴+}です。"
    assert diff_against_closest("何か", []) == ""


def test_long_texts_are_aligned_minimally_and_cover_both_sides():
    expected = "会議の議事録です。" * 200  # 1,800 x 1,800 characters
    output = expected.replace("議事録", "議事禄", 1)
    ops = opcodes(expected, output)
    assert "".join(a for _, a, _ in ops) == expected
    assert "".join(b for _, _, b in ops) == output
    assert [(t, a, b) for t, a, b in ops if t != "equal"] == [("replace", "録", "禄")]


def test_render_diff_is_cut_at_its_maximum_length():
    from pytest_dictbench.text.diff import MAX_RENDERED

    expected = "".join(f"{i}あ" for i in range(200))
    output = "".join(f"{i}い" for i in range(200))
    rendered = render_diff(expected, output)
    # cut at the limit, never inside a change: the last kept change closes after the "…"
    assert len(rendered) <= MAX_RENDERED and "…" in rendered[-4:]
    assert rendered.count("[-") == rendered.count("-]")
    assert rendered.count("{+") == rendered.count("+}")
