"""Speaker attribution counted by hand, in every transcript format."""

from __future__ import annotations

import sys

import pytest

from pytest_dictbench.errors import DictbenchError
from pytest_dictbench.rig.speakers import Turn, attribute_turns, parse_turns, plain_text

REFERENCE = [Turn("speaker_a", "Hi there."), Turn("speaker_b", "Fine, thanks."),
             Turn("speaker_a", "Good.")]


def test_perfect_labels_with_other_names() -> None:
    hyp = [Turn("Ann", "hi there"), Turn("Bob", "fine thanks"), Turn("Ann", "good")]
    result = attribute_turns(REFERENCE, hyp)
    assert (result.correct, result.total) == (3, 3)
    assert result.mapping == {"Ann": "speaker_a", "Bob": "speaker_b"}
    assert result.cpwer == 0.0


def test_a_merged_turn_costs_one() -> None:
    hyp = [Turn("S1", "hi there fine thanks"), Turn("S2", "good")]
    result = attribute_turns(REFERENCE, hyp)
    # dominant labels S1, S1, S2; S1 -> speaker_b and S2 -> speaker_a make 2 correct.
    assert (result.correct, result.total) == (2, 3)
    assert result.mapping == {"S1": "speaker_b", "S2": "speaker_a"}
    assert [t["correct"] for t in result.turns] == [False, True, True]
    # cpWER by hand: a = "hi there good", b = "fine thanks"; either pairing costs 4 of 5.
    assert result.cpwer == pytest.approx(0.8)


def test_missing_unlabelled_and_tied_turns_are_incorrect() -> None:
    hyp = [Turn("S1", "hi there"), Turn(None, "fine thanks")]
    result = attribute_turns(REFERENCE, hyp)
    assert result.correct == 1  # turn 2 unlabelled, turn 3 missing
    assert [t["dominant_label"] for t in result.turns] == ["S1", None, None]
    tied = attribute_turns([Turn("speaker_a", "one two")],
                           [Turn("X", "one"), Turn("Y", "two")])
    assert tied.correct == 0 and tied.turns[0]["dominant_label"] is None


def test_one_label_maps_to_one_speaker_only() -> None:
    hyp = [Turn("S1", "hi there fine thanks good")]
    result = attribute_turns(REFERENCE, hyp)
    assert result.correct == 2 and result.mapping == {"S1": "speaker_a"}


def test_recognition_errors_keep_their_alignment() -> None:
    hyp = [Turn("S1", "high there"), Turn("S2", "fine tanks"), Turn("S1", "good")]
    assert attribute_turns(REFERENCE, hyp).correct == 3


def test_formats() -> None:
    vtt = ("WEBVTT\n\n00:00.000 --> 00:01.000\n<v Ann>Hi there.</v>\n\n"
           "00:01.000 --> 00:02.000\n<v Bob>Fine,\n\n00:02.000 --> 00:02.500\n"
           "<v Bob>thanks.</v>\n\n00:03.000 --> 00:04.000\nAnn: Good.\n")
    srt = ("1\n00:00:00,000 --> 00:00:01,000\nAnn: Hi there.\n\n"
           "2\n00:00:01,000 --> 00:00:02,000\nBob: Fine, thanks.\n\n"
           "3\n00:00:03,000 --> 00:00:04,000\nAnn: Good.\n")
    lines = "Ann: Hi there.\nBob: Fine,\nthanks.\nAnn: Good.\n"
    json_turns = ('[{"speaker": "Ann", "text": "Hi there."}, '
                  '{"speaker": "Bob", "text": "Fine, thanks."}, '
                  '{"speaker": null, "text": "Good."}]')
    expected = [Turn("Ann", "Hi there."), Turn("Bob", "Fine, thanks."), Turn("Ann", "Good.")]
    assert parse_turns(vtt) == expected
    assert parse_turns(srt) == expected
    assert parse_turns(lines) == expected
    assert parse_turns(json_turns)[2] == Turn(None, "Good.")
    assert plain_text(expected) == "Hi there. Fine, thanks. Good."


def test_bad_json_turns_are_refused_with_the_turn_number() -> None:
    with pytest.raises(ValueError, match="turn 2"):
        parse_turns('[{"speaker": "a", "text": "x"}, {"speaker": 3, "text": "y"}]')


@pytest.mark.parametrize(("module", "purpose", "package"), [
    ("scipy.optimize", "speaker attribution (the label-to-speaker assignment)", "scipy")])
def test_a_missing_optional_package_is_one_line_naming_the_extra(
        monkeypatch: pytest.MonkeyPatch, module: str, purpose: str, package: str) -> None:
    # S40: a missing package was a ~740-line traceback ending in ModuleNotFoundError
    monkeypatch.setitem(sys.modules, module, None)  # Python's own way to block an import
    hyp = [Turn("Ann", "hi there"), Turn("Bob", "fine thanks"), Turn("Ann", "good")]
    with pytest.raises(DictbenchError) as caught:
        attribute_turns(REFERENCE, hyp)
    assert str(caught.value) == (f"{purpose} needs the optional package '{package}': "
                                 "pip install 'pytest-dictbench[rig]'")
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
