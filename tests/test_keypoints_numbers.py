"""Numbers keep their sign, fraction, range, era and counter; spellings of one number
give one item (J44-J47)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_dictbench.methods.keypoints.names import extract_names


def numbers(text: str) -> list[str]:
    return sorted(extract_names(text).numbers)


@pytest.mark.parametrize("text, expected", [
    ("マイナス5度まで下がった", ["-5度"]),
    ("−5℃だった", ["-5度"]),
    ("-5°Cだった", ["-5度"]),
    ("零下3度の朝", ["-3度"]),
    ("5度まで上がった", ["5度"]),
])
def test_the_sign_and_the_degree_are_kept(text: str, expected: list[str]) -> None:
    assert numbers(text) == expected
    assert not extract_names(text).coined  # ℃ is the counter 度, not a coined "c"


@pytest.mark.parametrize("text, expected", [
    ("売上は3分の1になった", ["1/3"]),
    ("三分の一が残った", ["1/3"]),
    ("2〜3人が来た", ["2〜3人"]),
    ("2~3人が来た", ["2〜3人"]),
    ("数百万円かかった", ["数百万円"]),
    ("十数人が来た", ["十数人"]),
])
def test_fractions_ranges_and_approximate_numbers(text: str, expected: list[str]) -> None:
    assert numbers(text) == expected


@pytest.mark.parametrize("texts, expected", [
    (("二十歳になった", "20歳になった", "はたちになった"), ["20歳"]),
    (("1ヶ月たった", "1か月たった", "一カ月たった", "1ケ月たった", "一箇月たった"), ["1か月"]),
    (("一人で行った", "ひとりで行った", "1人で行った"), ["1人"]),
    (("二人で行った", "ふたりで行った", "2人で行った"), ["2人"]),
])
def test_spellings_of_one_counter_give_one_item(texts: tuple[str, ...],
                                                expected: list[str]) -> None:
    for text in texts:
        assert numbers(text) == expected, text


def test_an_era_year_keeps_its_era() -> None:
    reiwa = extract_names("令和8年に引っ越した")
    assert sorted(reiwa.numbers) == ["令和8年"] and not reiwa.names
    assert numbers("平成8年に引っ越した") == ["平成8年"]
    assert numbers("令和元年に引っ越した") == ["令和1年"]


_KANJI = "〇一二三四五六七八九"


def kanji(n: int) -> str:
    """``n`` (1..9999) in kanji with 十 百 千 (一 omitted before them, as written)."""
    out = ""
    for value, mark in ((1000, "千"), (100, "百"), (10, "十")):
        digit, n = divmod(n, value)
        if digit:
            out += ("" if digit == 1 else _KANJI[digit]) + mark
    return out + (_KANJI[n] if n else "")


FULL = str.maketrans("0123456789", "０１２３４５６７８９")
COUNTERS = {"人": "人", "円": "円", "度": "度", "年": "年", "か月": "か月", "ヶ月": "か月",
            "カ月": "か月", "%": "%"}


@settings(max_examples=60, deadline=None)
@given(n=st.integers(min_value=1, max_value=9999), negative=st.booleans(),
       counter=st.sampled_from(sorted(COUNTERS)), form=st.sampled_from(["arabic", "full",
                                                                        "kanji"]))
def test_one_value_whatever_the_digits(n: int, negative: bool, counter: str, form: str
                                       ) -> None:
    """Property: a number written in Arabic, full-width or kanji digits, with or without
    マイナス, followed by a counter, is one item: the sign, the value and the counter's
    one spelling (``-12か月``)."""
    assume(not (n == 1 and counter == "度" and form == "kanji"))  # 一度 is "once"
    digits = {"arabic": str(n), "full": str(n).translate(FULL), "kanji": kanji(n)}[form]
    text = f"記録は{'マイナス' if negative else ''}{digits}{counter}だった。"
    assert numbers(text) == [f"{'-' if negative else ''}{n}{COUNTERS[counter]}"]


@pytest.mark.parametrize("hypothesis", ["みさきと会った", "ミサキと会った"])
def test_names_written_differently_but_read_the_same_match(hypothesis: str) -> None:
    from pytest_dictbench.methods.keypoints.names import compare_names

    scores = compare_names("美咲と会った", hypothesis)
    assert (scores.tp, scores.fp, scores.fn) == (1, 0, 0)


def test_names_read_differently_do_not_match() -> None:
    from pytest_dictbench.methods.keypoints.names import compare_names

    scores = compare_names("田中さんと会った", "中田さんと会った")  # タナカ vs ナカタ
    assert (scores.tp, scores.fp, scores.fn) == (0, 1, 1)


def test_a_sign_before_a_one_token_count_is_kept() -> None:
    """Found by the property in CI: ``1人`` is one dictionary word (一人), read apart from
    the numeral path, and lost its ``マイナス``."""
    from pytest_dictbench.methods.keypoints.names import extract_names

    assert extract_names("記録はマイナス1人だった。").numbers == frozenset({"-1人"})
    assert extract_names("記録は1人だった。").numbers == frozenset({"1人"})


@pytest.mark.parametrize("text, expected", [
    ("記録は481度だった。", ["481度"]),  # sudachipy: 48 | 1度 ("once")
    ("記録はマイナス381度だった。", ["-381度"]),
    ("記録は81度だった。", ["81度"]),
    ("記録は八百三十四%だった。", ["834%"]),  # 八百三: read as a surname
    ("記録は八千三百三円だった。", ["8303円"]),  # 八千: read as a place
    ("記録は千三十人だった。", ["1030人"]),  # 千三 | 十人
    ("記録は八千二人だった。", ["8002人"]),  # 八千 | 二人
])
def test_digits_split_from_a_one_token_count_are_joined(text: str, expected: list[str]
                                                        ) -> None:
    assert numbers(text) == expected
