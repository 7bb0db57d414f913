"""Keypoints inputs that gave wrong numbers: blank key points, zero weights, blank and
repeated insertions, the record's provisional count, weighted means (J31, J32, J34, J36,
J43, J15)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_keypoints_metrics import VERDICTS, _judged, _score

from pytest_dictbench.errors import SuiteError
from pytest_dictbench.methods.keypoints.casedata import case_problem
from pytest_dictbench.methods.keypoints.guide import KEYPOINTS_PROTOCOL
from pytest_dictbench.methods.keypoints.params import KeypointsParams
from pytest_dictbench.model import Case


def _case(**changes: object) -> Case:
    data = {"id": "c", "reference": "r", "key_points": [
        {"id": "k1", "text": "a", "severity": "minor"}], **changes}
    return Case("c", data)


@pytest.mark.parametrize("text", ["   ", "\u200b", "\u3000", " \u200b\u3000\n"])
def test_a_blank_key_point_is_refused(text: str) -> None:
    case = _case(key_points=[{"id": "k1", "text": "a", "severity": "minor"},
                             {"id": "k2", "text": text, "severity": "minor"}])
    assert case_problem(case) == "case 'c': key point 'k2' has no text"


def test_a_duration_beyond_a_day_is_refused() -> None:
    assert "duration_s" in (case_problem(_case(duration_s=1e9)) or "")
    assert case_problem(_case(duration_s=86400)) is None


def test_severity_weights_summing_to_zero_are_refused() -> None:
    with pytest.raises(SuiteError, match=r"params\.severity_weights must not all be 0"):
        KeypointsParams.from_mapping({"severity_weights": {"critical": 0, "minor": 0}})


def _answer(insertions: list[str]) -> dict:
    return {"key_points": {"k1": {"verdict": "present", "reason": "ok"}},
            "insertions": insertions}


@pytest.mark.parametrize("insertions, count", [
    (["  "], 0), (["x", "x"], 1), (["x", " x ", "y"], 2), (["\u3000", "a"], 1)])
def test_blank_and_repeated_insertions(insertions: list[str], count: int) -> None:
    scores = KEYPOINTS_PROTOCOL.parse(_answer(insertions), ["k1", "insertions"])
    assert scores["insertions"][0] == count


@given(st.lists(st.text(max_size=8), max_size=12))
def test_insertion_count_property(insertions: list[str]) -> None:
    """Property: the count is the number of distinct insertions that are not blank
    after stripping, whatever their order or repetition."""
    expected = len({s.strip() for s in insertions if s.strip()})
    scores = KEYPOINTS_PROTOCOL.parse(_answer(insertions), ["k1", "insertions"])
    assert scores["insertions"][0] == expected
    again = KEYPOINTS_PROTOCOL.parse(_answer(list(reversed(insertions)) * 2),
                                     ["k1", "insertions"])
    assert again["insertions"][0] == expected


def test_a_provisional_item_counts_its_missing_verdicts() -> None:
    result = _score("佐藤さんと三時に会った。", {})
    assert result.provisional == 6  # five key points and the insertions
    judged = _judged(VERDICTS, 0)
    del judged["k3"]
    assert _score("佐藤さんと三時に会った。", judged).provisional == 1
    assert _score("佐藤さんと三時に会った。", _judged(VERDICTS, 0)).provisional == 0


def test_an_empty_transcript_counts_zero_in_the_weighted_figures_too() -> None:
    params = {"severity_weights": {"critical": 2.0, "minor": 1.0}}
    result = _score("  ", {}, params)
    assert result.metrics["weighted_fbeta"] == 0.0
    assert result.metrics["weighted_recall"] == 0.0


def test_an_unjudged_product_says_provisional_and_has_no_counts(pytester) -> None:
    """J37: nothing judged gives null counts and a provisional reason."""
    from judge_server import MessagesServer
    from test_keypoints_plugin import KEY, entry, project, run  # noqa: F401

    proj = project.__wrapped__(pytester)
    with MessagesServer() as server:
        run(proj, server, "--judge=off")
    product = entry(proj)
    summary = product["tables"]["summary"]
    assert summary["present"] is None and summary["insertions"] is None
    assert product["reason"].startswith("provisional score: 16 unjudged judgement(s) on 3")
