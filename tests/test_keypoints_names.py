"""Names, numbers and coined words from sudachipy; numerals to values; set F1 by hand."""

from __future__ import annotations

import pytest

from pytest_dictbench.methods.keypoints import compare_names, extract_names
from pytest_dictbench.text.numerals import numeral_value


@pytest.mark.parametrize("text, value", [
    ("三", "3"), ("十五", "15"), ("二十三", "23"), ("百二十", "120"), ("千五百", "1500"),
    ("一万二千", "12000"), ("3万", "30000"), ("1.5万", "15000"), ("二〇二六", "2026"),
    ("2026", "2026"), ("1,500", "1500"), ("3.5", "3.5"), ("七.二", "7.2"), ("三千万", "30000000"),
    ("一億二千三百四十五万六千七百八十九", "123456789"),
])
def test_numeral_values(text: str, value: str) -> None:
    assert numeral_value(text) == value


@pytest.mark.parametrize("text", ["", "1,2", ".", "三つ", "abc"])
def test_not_numerals(text: str) -> None:
    assert numeral_value(text) is None


@pytest.mark.parametrize("text, numbers", [
    ("りんごを三つ買った", {"3つ"}),
    ("三人で一万二千円払った", {"3人", "12000円"}),
    ("3万円かかった", {"30000円"}),
    ("２０２６年の春", {"2026年"}),       # full-width digits
    ("二〇二六年の春", {"2026年"}),
    ("十五分待った", {"15分"}),
    ("午後三時半に着いた", {"3時半"}),
    ("百二十人が来た", {"120人"}),        # sudachipy splits 百二|十人; rejoined
    ("1,500円と3.5キロ", {"1500円", "3.5キロ"}),
    ("七・二キロ走った", {"7.2キロ"}),      # spoken decimal point
    ("百十二パーセント", {"112%"}),
    ("五時間十分眠った", {"5時間", "10分"}),  # 十分 after hours: ten minutes
    ("それで十分だ", set()),                # 十分 alone: "enough"
])
def test_numbers_with_counters(text: str, numbers: set[str]) -> None:
    assert extract_names(text).numbers == numbers


def test_same_value_in_any_notation_matches() -> None:
    for ref, hyp in [("一万二千円", "12,000円"), ("２０２６年", "2026年"),
                     ("十五分", "15分"), ("三万円", "3万円")]:
        scores = compare_names(ref + "だった", hyp + "だった")
        assert (scores.tp, scores.fp, scores.fn) == (1, 0, 0), (ref, hyp)


def test_proper_nouns_and_coined_words() -> None:
    found = extract_names("佐藤さんと横浜のスタバでiPhoneを見た。チャピに聞いた。")
    assert found.names == {"佐藤", "横浜", "スタバ", "iphone"}
    assert found.coined == {"チャピ"}      # not in the dictionary
    assert extract_names("Slackで連絡した").items == {"slack"}  # Latin, case-folded
    assert extract_names("Quolvaを試した").coined == {"quolva"}  # unknown Latin word


def test_set_f1_by_hand() -> None:
    # reference {村井, 3時, 12000円, チャピ}; hypothesis {村上, 3時, 12000円}
    # (村上 is a different name: one false positive and one miss)
    scores = compare_names("村井さんと三時にチャピで一万二千円使った。",
                           "村上さんと3時に12000円使った。")
    assert scores.reference.items == {"村井", "3時", "12000円", "チャピ"}
    assert (scores.tp, scores.fp, scores.fn) == (2, 1, 2)
    assert scores.precision == pytest.approx(2 / 3)
    assert scores.recall == pytest.approx(2 / 4)
    assert scores.f1 == pytest.approx(4 / 7)   # 2tp / (2tp + fp + fn)


def test_repeated_items_count_once_and_empty_sides() -> None:
    scores = compare_names("佐藤さん、佐藤さん", "佐藤さん")
    assert (scores.tp, scores.fp, scores.fn) == (1, 0, 0)
    none = compare_names("きょうはさむい", "きょうはさむい")
    assert not none.applies and none.f1 == 0.0
    one_sided = compare_names("佐藤さん", "")
    assert one_sided.applies and one_sided.f1 == 0.0
