"""Each automated check of the rubric, catching and passing, with its evidence."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_dictbench.methods.rubric.casedata import RubricCase
from pytest_dictbench.methods.rubric.checks import run_checks


def make_case(expected: str | list[str], **fields: Any) -> RubricCase:
    data = {
        "id": "c",
        "canary": "X",
        "genre": fields.pop("genre", "chat"),
        "short": fields.pop("short", True),
        "source": "unit",
        "script": "(script)",
        "expected": [expected] if isinstance(expected, str) else expected,
        **fields,
    }
    return RubricCase.from_mapping(data)


def check(case: RubricCase, text: str, rule: str) -> tuple[int, str]:
    return run_checks(case, text)[rule]


# --- A1 must-keep words and terms ---------------------------------------------------------


MEETING = make_case("会議を予約しました。", must=["会議"])


def test_a1_catches_a_must_word_only_inside_a_longer_word():
    assert check(MEETING, "会議室を予約しました。", "A1") == (0, "missing content word(s): 会議")


@pytest.mark.parametrize("text", ["会議を予約しました", "部門会議を予約しました", "会 議を予約"])
def test_a1_passes_when_the_word_stands_on_token_boundaries(text):
    assert check(MEETING, text, "A1") == (2, "")


def test_a1_accepts_any_listed_variant_and_names_the_first_when_missing():
    case = make_case("打ち合わせは明日です。", must=[["打ち合わせ", "打合せ"]])
    assert check(case, "打合せは明日です。", "A1")[0] == 2
    assert check(case, "話し合いは明日です。", "A1") == (0, "missing content word(s): 打ち合わせ")


def test_a1_fails_a_term_missing_in_every_accepted_spelling():
    case = make_case(
        "ブランチをマージします。",
        terms=[{"text": "マージ", "kind": "flexible", "variants": ["merge"]}],
        rules=["D2"],
    )
    assert check(case, "ブランチをmergeします。", "A1")[0] == 2
    assert check(case, "ブランチを統合します。", "A1") == (0, "missing content word(s): マージ")
    assert check(case, "ブランチを統合します。", "D2") == (2, "")  # absence is left to A1


# --- A2 proper nouns, A3 numbers ------------------------------------------------------------


def test_a2_catches_a_missing_proper_noun_and_ignores_latin_case():
    case = make_case("Figmaにまとめました。", proper_nouns=["Figma"])
    assert check(case, "フィグマにまとめました。", "A2") == (0, "missing proper noun(s): Figma")
    assert check(case, "figmaにまとめました。", "A2") == (2, "")


def test_a3_catches_a_number_not_found_on_its_own():
    case = make_case("応募は3件です。", numbers=[{"notations": ["3件"]}])
    assert check(case, "応募は13件です。", "A3") == (0, "missing number(s): 3件")
    assert check(case, "応募は3 件です。", "A3") == (2, "")


# --- B1 fillers ---------------------------------------------------------------------------


PLAN = make_case("明日までに確認します。")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("えっと、明日までに確認します。", "えっと"),
        ("えーと明日までに確認します。", "えーと"),
        ("明日までに、うーん、確認します。", "うーん"),
        ("その、明日までに確認します。", "その"),
        ("明日までに、E、確認します。", "'E' (filler turned into letters)"),
        ("明日までに, uh, 確認します。", "'uh' (filler turned into letters)"),
    ],
)
def test_b1_catches_fillers_and_names_them(text, named):
    assert check(PLAN, text, "B1") == (0, f"filler left in: {named}")


@pytest.mark.parametrize(
    "text", ["あの資料を明日までに確認します。", "プランA、Bを明日までに確認します。"]
)
def test_b1_passes_demonstratives_and_latin_inside_phrases(text):
    assert check(make_case(text), text + "以上。", "B1") == (2, "")


def test_b1_allows_what_the_expected_output_keeps():
    case = make_case("ま、いいか。明日やります。")
    assert check(case, "ま、いいか、明日やります。", "B1") == (2, "")
    assert check(case, "えっと、ま、いいか。明日やります。", "B1") == (0, "filler left in: えっと")
    quoted = make_case("「えっと」を減らすよう意識します。")
    assert check(quoted, "「えっと」を減らすよう、意識します。", "B1") == (2, "")
    assert check(quoted, "えっと、「えっと」を減らすよう意識します。", "B1") == (
        0,
        "filler left in: えっと",
    )


# --- B2 self-corrections, B3 markers -------------------------------------------------------


CORRECTED = make_case(
    "窓口は村井さんです。",
    forbid=[{"text": "小野さん", "rule": "B2", "note": "retracted"}],
    rules=["B2", "B3"],
)


def test_b2_catches_the_pre_correction_word():
    assert check(CORRECTED, "窓口は小野さん、村井さんです。", "B2") == (
        0,
        "pre-correction word left in: 小野さん (retracted)",
    )
    assert check(CORRECTED, "窓口は村井さんです。", "B2") == (2, "")


def test_b3_catches_a_generic_correction_marker_without_any_forbid_entry():
    text = "窓口は小野さん、あ、違った、村井さんです。"
    assert check(CORRECTED, text, "B3") == (0, "correction marker left in: あ、違った")
    assert check(CORRECTED, "窓口は村井さんです。", "B3") == (2, "")


def test_b3_spares_a_marker_word_the_expected_output_uses_as_content():
    case = make_case("設定を間違えたので直します。", rules=["B3"])
    assert check(case, "設定を間違えたので、直します。", "B3") == (2, "")


# --- B4 repetitions -----------------------------------------------------------------------


def test_b4_catches_a_doubled_word_or_phrase():
    case = make_case("この件は資料を確認します。")
    assert check(case, "この件は資料、資料を確認します。", "B4") == (0, "repeated word(s): 資料")
    assert check(case, "この件、この件は資料を確認します。", "B4") == (
        0,
        "repeated word(s): この件",
    )


@pytest.mark.parametrize(
    "text",
    ["人々が集まります。", "一つ一つ確認します。", "はいはい、そうです。", "いろいろ試します。"],
)
def test_b4_passes_legitimate_reduplication(text):
    assert check(make_case(text), text, "B4") == (2, "")


# --- C1, C4, C8 structure -------------------------------------------------------------------


AGENDA_LIST = "来週の議題は3つです。\n\n- 予算の見直し\n- 採用計画\n- オフィス移転"
AGENDA = make_case(
    AGENDA_LIST,
    short=False,
    genre="notes",
    enumeration={"items": [["予算の見直し"], ["採用計画"], ["オフィス移転", "事務所移転"]]},
)


def test_c1_passes_each_item_on_its_own_list_line():
    assert check(AGENDA, AGENDA_LIST, "C1") == (2, "")
    numbered = "来週の議題は3つです。\n\n1. 予算の見直し\n2. 採用計画\n3. 事務所移転"
    assert check(AGENDA, numbered, "C1") == (2, "")
    circled = "来週の議題は3つです。\n\n①予算の見直し\n②採用計画\n③オフィス移転"
    assert check(AGENDA, circled, "C1") == (2, "")


def test_c1_gives_1_to_a_run_on_sentence():
    text = "来週の議題は3つです。予算の見直し、採用計画、オフィス移転です。"
    assert check(AGENDA, text, "C1") == (
        1,
        "enumeration written as running text, not a list: 予算の見直し, 採用計画, オフィス移転",
    )


def test_c1_gives_1_to_a_half_made_list():
    text = "来週の議題は3つです。\n\n・予算の見直しと採用計画\n・オフィス移転"
    assert check(AGENDA, text, "C1") == (
        1,
        "enumeration item(s) not on a list line of their own: 採用計画",
    )


def test_c1_does_not_judge_layout_when_items_are_missing():
    assert check(AGENDA, "来週の議題は予算の見直しです。", "C1") == (2, "")


def test_c4_gives_1_to_a_list_glued_to_the_line_before():
    glued = AGENDA_LIST.replace("\n\n", "\n")
    assert check(AGENDA, glued, "C4") == (
        1,
        "list not separated by a blank line from the line before: '来週の議題は3つです。'",
    )
    assert check(AGENDA, AGENDA_LIST, "C4") == (2, "")
    assert check(AGENDA, "- 予算の見直し\n- 採用計画", "C4") == (2, "")


def test_c4_spares_a_layout_the_expected_output_uses():
    case = make_case("議題:\n・予算\n・採用\n・移転", short=False)
    assert check(case, "議題:\n・予算\n・採用\n・移転", "C4") == (2, "")


SHORT = make_case("資料は金曜に送ります。")


@pytest.mark.parametrize(
    ("text", "evidence"),
    [
        ("【連絡】\n資料は金曜に送ります。", "over-formatted: heading '【連絡】'"),
        ("■ 連絡\n資料は金曜に送ります。", "over-formatted: heading '■ 連絡'"),
        ("# 連絡\n資料は金曜に送ります。", "over-formatted: heading '# 連絡'"),
        ("・資料は金曜に送ります。", "over-formatted: one-item list"),
    ],
)
def test_c8_gives_1_to_headings_and_one_item_lists_on_short_items(text, evidence):
    assert check(SHORT, text, "C8") == (1, evidence)


def test_c8_leaves_long_items_and_real_lists_alone():
    long_case = make_case("資料は金曜に送ります。", short=False)
    assert "C8" not in run_checks(long_case, "【連絡】\n資料は金曜に送ります。")
    assert check(SHORT, "資料は\n\n・金曜に送ります\n・月曜に確認します", "C8") == (2, "")


def test_c8_flags_a_list_where_running_text_is_expected():
    case = make_case("AとBを比べます。", enumeration={"items": ["A", "B"], "as_list": False})
    assert check(case, "比べます。\n\n- A\n- B", "C8") == (
        1,
        "over-formatted: enumeration made into a list where running text is expected",
    )
    assert "C1" not in run_checks(case, "AとBを比べます。")  # no list expected: judgement


# --- D1 homophones ---------------------------------------------------------------------------


def test_d1_names_both_words_with_their_readings():
    case = make_case(
        "責任の追及を求めています。",
        homophones=[{"correct": "追及", "wrong": ["追求"]}],
        rules=["D1"],
    )
    assert check(case, "責任の追求を求めています。", "D1") == (
        0,
        "wrong homophone: 追求 (ツイキュウ) written for 追及 (ツイキュウ)",
    )
    assert check(case, "責任の追及を求めています。", "D1") == (2, "")


def test_d1_counts_only_beyond_legitimate_uses_in_the_expected_output():
    case = make_case(
        "利益の追求と責任の追及は別の話です。",
        homophones=[{"correct": "追及", "wrong": ["追求"]}],
        rules=["D1"],
    )
    assert check(case, "利益の追求と、責任の追及は別の話です。", "D1") == (2, "")
    assert check(case, "利益の追求と責任の追求は別の話です。", "D1")[0] == 0


# --- D2 English notation ---------------------------------------------------------------------


TERMS = make_case(
    "SQLの結果をExcelで見ます。",
    terms=[
        {"text": "SQL", "kind": "exact", "wrong": ["エスキューエル"]},
        {"text": "Excel", "kind": "flexible", "variants": ["エクセル"]},
    ],
    rules=["D2"],
)


def test_d2_catches_katakana_for_an_exact_term():
    assert check(TERMS, "エスキューエルの結果をExcelで見ます。", "D2") == (
        0,
        "エスキューエル written for SQL (exact)",
    )


def test_d2_gives_1_to_an_exact_term_in_another_letter_case():
    assert check(TERMS, "sqlの結果をExcelで見ます。", "D2") == (
        1,
        "SQL: letter case differs (exact term)",
    )


def test_d2_accepts_katakana_for_a_flexible_term():
    assert check(TERMS, "SQLの結果をエクセルで見ます。", "D2") == (2, "")
    assert check(TERMS, "SQL の結果を Excel で見ます。", "D2") == (2, "")


# --- D3, D4 notation -------------------------------------------------------------------------


NUMBERS = make_case(
    "予算は300万円、達成率は80%です。",
    numbers=[
        {"notations": ["300万円"], "variants": ["三百万円", "3,000,000円"]},
        {"notations": ["80%"], "variants": ["80パーセント"], "rule": "D4"},
    ],
)


def test_d3_catches_a_number_written_only_in_a_variant_form():
    text = "予算は三百万円、達成率は80%です。"
    assert check(NUMBERS, text, "D3") == (0, "三百万円 written for 300万円 (accepted: 300万円)")
    assert check(NUMBERS, text, "A3") == (2, "")
    assert check(NUMBERS, text, "D4") == (2, "")


def test_d4_catches_a_unit_written_only_in_a_variant_form():
    text = "予算は300万円、達成率は80パーセントです。"
    assert check(NUMBERS, text, "D4") == (0, "80パーセント written for 80% (accepted: 80%)")
    assert check(NUMBERS, text, "D3") == (2, "")


def test_d3_passes_when_an_accepted_notation_is_present():
    assert check(NUMBERS, "予算は300万円(三百万円)、達成率は80%です。", "D3") == (2, "")


def test_d3_gives_1_to_a_non_standard_counter_spelling():
    case = make_case("契約は3か月ごとに更新します。")
    assert check(case, "契約は3ヶ月ごとに更新します。", "D3") == (
        1,
        "counter spelled 3ヶ月 (standard: か月 / か所)",
    )
    assert check(case, "契約は3か月ごとに更新します。", "D3") == (2, "")


def test_d4_takes_forbid_entries_too():
    case = make_case("気温は30℃です。", forbid=[{"text": "30度C", "rule": "D4"}])
    assert check(case, "気温は30度Cです。", "D4") == (0, "off-standard unit or symbol: 30度C")


def test_d14_spacing_is_left_to_judgement():
    # the old check scored D14 = 2 on every output
    case = make_case("新しいAPIキーを発行します。")
    assert "D14" not in run_checks(case, "新しい API キーを発行します。")


def test_d3_gives_1_to_a_listed_digit_grouping_variant():
    # the old check gave 0 to every listed variant
    case = make_case(
        "予算は1200万円、単価は26万4000円です。",
        numbers=[
            {"notations": ["1200万円"], "variants": ["12,000,000円", "千二百万円"]},
            {"notations": ["26万4000円"], "variants": ["264000円", "264,000円"]},
        ],
    )
    assert check(case, "予算は12,000,000円、単価は26万4000円です。", "D3") == (
        1, "12,000,000円 written for 1200万円 (accepted: 1200万円); digit grouping only")
    assert check(case, "予算は1200万円、単価は264000円です。", "D3")[0] == 1
    # kanji numerals are not a grouping variant: 0
    assert check(case, "予算は千二百万円、単価は26万4000円です。", "D3")[0] == 0
    # listed as an accepted notation: 2
    accepted = make_case("予算は1200万円です。",
                         numbers=[{"notations": ["1200万円", "12,000,000円"]}])
    assert check(accepted, "予算は12,000,000円です。", "D3") == (2, "")


def test_grouping_variant_compares_value_and_surrounding_words():
    from pytest_dictbench.methods.rubric.checks_words import grouping_variant

    assert grouping_variant("1億2000万円", ("120,000,000円",))
    assert grouping_variant("１２００万円", ("12,000,000円",))  # full width folds
    assert not grouping_variant("12,000,000ドル", ("1200万円",))  # other unit
    assert not grouping_variant("13,000,000円", ("1200万円",))  # other value
    assert not grouping_variant("1200万円と3件", ("1200万円",))  # two numbers


# --- A12 omissions ---------------------------------------------------------------------------


def test_a12_is_0_for_an_empty_output():
    # the old code scored every automated rule 2 and left A12 unjudged
    case = make_case("明日の会議は10時からです。")
    assert check(case, "", "A12") == (0, "empty output: everything spoken is left out")
    assert check(case, " \n ", "A12")[0] == 0


def test_a12_similarity_floor_against_the_closest_known_answer():
    case = make_case("明日の会議は10時からです。")
    # bare answer 明日の会議は10時からです: 13 chars; 了解です keeps です and is
    # 9 deletions + 2 substitutions = 11 edits away -> 1 - 11/13 = 2/13 = 0.15
    assert check(case, "了解です。", "A12") == (
        0, "output shares 0.15 of the closest known answer (floor 0.50): most of what was "
        "said is left out")
    # one homophone slip decides nothing (1 - 2/13 = 0.85)
    assert "A12" not in run_checks(case, "明日の開議は10時からです。")


def test_a12_floor_uses_the_closest_of_expected_outputs_and_alternatives():
    from pytest_dictbench.methods.rubric.checks_omission import shared

    assert shared("明日です", "明日の会議は10時からです") == pytest.approx(4 / 13)
    assert shared("", "") == 1.0
    case = make_case("明日の会議は10時からです。",
                     alternatives=[{"text": "会議は明日。", "rules": {"A12": 1}}])
    # 会議は明日 (5 chars) vs the alternative: 0 edits -> 1.0, above the floor
    assert "A12" not in run_checks(case, "会議は明日")


def test_c1_and_c8_are_left_to_judgement_without_case_data():
    long_plain = make_case("一つ目と二つ目と三つ目を確認します。", short=False)
    # the old checks scored C1 = C8 = 2 here
    found = run_checks(long_plain, "一つ目と二つ目と三つ目を確認します。")
    assert "C1" not in found and "C8" not in found
    # short items still get C8 automatically; enumerations still get C1
    assert check(make_case("了解です。"), "## 返事\n了解です。", "C8")[0] == 1


# --- forbid on a rule that needs judgement ----------------------------------------------------


def test_forbid_hit_gives_a_judgement_rule_an_automated_0_and_a_miss_decides_nothing():
    case = make_case("資料を送ります。", forbid=[{"text": "よろしくお願いします", "rule": "A11"}])
    hit = run_checks(case, "資料を送ります。よろしくお願いします。")
    assert hit["A11"] == (0, "forbidden text found: よろしくお願いします")
    assert "A11" not in run_checks(case, "資料を送ります。")


def test_only_scored_rules_are_checked():
    case = make_case("責任を追及します。", homophones=[{"correct": "追及", "wrong": ["追求"]}])
    assert "D1" not in run_checks(case, "責任を追求します。")  # D1 is not in the case's rules


# --- one finding, one report ----------------------------------------------------------------


def test_a_forbidden_text_the_check_already_names_is_reported_once():
    case = make_case(
        "資料を送ります。",
        forbid=[
            {"text": "えっと", "rule": "B1"},
            {"text": "なんか", "rule": "B1", "note": "hedge"},
        ],
    )
    assert check(case, "えっと、資料を送ります。", "B1") == (0, "filler left in: えっと")
    assert check(case, "なんか、資料を送ります。", "B1") == (0, "filler left in: なんか (hedge)")
    assert check(case, "えっと、なんか資料を送ります。", "B1") == (
        0,
        "filler left in: えっと; filler left in: なんか (hedge)",
    )


def test_a_counter_spelling_listed_as_a_number_variant_is_reported_once():
    case = make_case("2か所を直します。", numbers=[{"notations": ["2か所"], "variants": ["2ヶ所"]}])
    assert check(case, "2ヶ所を直します。", "D3") == (
        0,
        "2ヶ所 written for 2か所 (accepted: 2か所)",
    )


BUDGET = make_case("予算は1200万円です。", numbers=[
    {"notations": ["1200万円", "1,200万円"], "variants": ["12,000,000円", "12000000円"],
     "rule": "D3"}])


def test_d3_kanji_numerals_for_a_listed_number_score_0():
    assert check(BUDGET, "予算は千二百万円です。", "D3") == (
        0, "千二百万円 written in kanji numerals for 1200万円 (accepted: 1200万円, 1,200万円)")


def test_d3_evidence_names_only_the_variant_written():
    score, evidence = check(BUDGET, "予算は12,000,000円です。", "D3")
    assert score == 1
    assert evidence.startswith("12,000,000円 written for 1200万円")
