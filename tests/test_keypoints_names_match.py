"""``[params] names_match``: names compared by their reading (the default) or as
written (issue 24, "Names by reading"). Real sudachipy, core dictionary."""

from __future__ import annotations

import pytest

from pytest_dictbench.errors import SuiteError
from pytest_dictbench.methods.keypoints.names import compare_names
from pytest_dictbench.methods.keypoints.params import KeypointsParams


def counts(reference: str, hypothesis: str, match: str) -> tuple[int, int, int]:
    scores = compare_names(reference, hypothesis, match=match)
    return (scores.tp, scores.fp, scores.fn)


@pytest.mark.parametrize("hypothesis", ["美咲と会った", "みさきと会った", "ミサキと会った"])
def test_one_name_in_three_scripts_matches_by_reading(hypothesis: str) -> None:
    assert counts("美咲と会った", hypothesis, "reading") == (1, 0, 0)


@pytest.mark.parametrize("hypothesis", ["みさきと会った", "ミサキと会った"])
def test_as_written_only_the_same_spelling_matches(hypothesis: str) -> None:
    assert counts("美咲と会った", hypothesis, "surface") == (0, 1, 1)
    assert counts("美咲と会った", "美咲と会った", "surface") == (1, 0, 0)


@pytest.mark.parametrize("match", ["reading", "surface"])
def test_names_read_differently_stay_different(match: str) -> None:
    assert counts("田中さんと会った", "中田さんと会った", match) == (0, 1, 1)  # タナカ / ナカタ


def test_homophones_become_equal_by_reading_only() -> None:
    assert counts("中田さんと会った", "仲田さんと会った", "reading") == (1, 0, 0)
    assert counts("中田さんと会った", "仲田さんと会った", "surface") == (0, 1, 1)


def test_the_param_defaults_to_reading_and_refuses_other_values() -> None:
    assert KeypointsParams.from_mapping({}).names_match == "reading"
    assert KeypointsParams.from_mapping({"names_match": "surface"}).names_match == "surface"
    with pytest.raises(SuiteError, match=r"params\.names_match must be .reading. or "
                                         "'surface', got 'kana'"):
        KeypointsParams.from_mapping({"names_match": "kana"})
