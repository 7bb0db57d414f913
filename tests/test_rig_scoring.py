"""Per-run figures as the methodology's scorer computes them (issue 26), hand-worked."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_dictbench.methods.rig.scoring import run_metrics
from pytest_dictbench.methods.rig.tables import rig_tables
from pytest_dictbench.rig.speakers import labelled_turns

TURNS = [{"speaker": "speaker_a", "text": "Shall we start?"},
         {"speaker": "speaker_b", "text": "Yes, the agenda is short."}]
MEETING = {"workflow": "meeting", "locale": "en-US", "turns": TURNS,
           "reference": "Shall we start?\nYes, the agenda is short."}


def test_meeting_wer_counts_speaker_labels_as_the_scorer_does() -> None:
    # R29: 8 reference words; "Speaker 1:" and "Speaker 2:" add 4 inserted words
    raw = "Speaker 1: Shall we start?\nSpeaker 2: Yes, the agenda is short."
    m = run_metrics(MEETING, {"raw_transcript": raw, "speaker_turns_correct": 2,
                              "speaker_turns_total": 2})
    assert m["wer"] == 0.5 and m["word_edits"] == 4.0
    assert m["wer_label_free"] == 0.0 and m["cer_label_free"] == 0.0
    # CER: 31 reference characters, "speaker1" + "speaker2" = 16 inserted: 0.516129...
    assert m["cer"] == 0.516129
    # R30: strict distance over the raw text: 22 label characters
    assert m["strict_edit_distance"] == 22.0


def test_a_plain_transcript_has_no_label_free_figures() -> None:
    m = run_metrics(MEETING, {"raw_transcript": "Shall we start? Yes, the agenda is short."})
    assert m["wer"] == 0.0 and "wer_label_free" not in m


@pytest.mark.parametrize("text", [
    "Summary: shall we start? Yes, the agenda is short.",
    "Note: shall we start?\nYes, the agenda is short.",
    "Great: shall we start?\nOK: yes, the agenda is short.",
    "Thank you. Please note: the agenda is short.",
])
def test_a_colon_is_not_a_speaker_label_unless_labels_recur(text: str) -> None:
    # R31: one 'Summary:' or 'Note:' used to be read as a speaker
    assert labelled_turns(text) is None


def test_summary_in_front_is_an_inserted_word() -> None:
    m = run_metrics(MEETING, {"raw_transcript": "Summary: Shall we start? Yes, the agenda "
                              "is short.", "speaker_turns_correct": 2,
                              "speaker_turns_total": 2})
    assert m["wer"] == 1 / 8 and m["speaker_turn_accuracy"] == 1.0
    assert "speaker_turns_correct_computed" not in m


def test_titles_and_initials_are_labels() -> None:
    # R32
    turns = labelled_turns("Dr. Chen: Shall we start?\nJ. R. Smith: Yes, the agenda is "
                           "short.\nDr. Chen: Good.")
    assert turns is not None
    assert [t.speaker for t in turns] == ["Dr. Chen", "J. R. Smith", "Dr. Chen"]


def test_the_operators_count_is_the_published_accuracy() -> None:
    # R33: the scorer publishes the CSV's count; the computed one stands beside it
    raw = "A: Shall we start?\nA: Yes, the agenda is short.\nB: Fine."
    m = run_metrics(MEETING, {"raw_transcript": raw, "speaker_turns_correct": 2,
                              "speaker_turns_total": 2})
    assert m["speaker_turn_accuracy"] == 1.0
    assert m["speaker_turn_accuracy_computed"] == 0.5
    assert m["speaker_turns_operator_disagrees"] == 1.0


def test_rates_are_rounded_per_run_to_six_places() -> None:
    m = run_metrics({"workflow": "dictation", "locale": "en-US",
                     "reference": "one two three four five six seven"},
                    {"raw_transcript": "one two three four five six"})
    assert m["wer"] == 0.142857  # 1/7 = 0.142857142...


def _run(app: str, fixture: str, rep: int, wer: float) -> dict[str, Any]:
    return {"product": app, "case_id": fixture, "repetition": rep, "status": "passed",
            "metrics": {"wer": wer, "cer": wer},
            "rig": {"status": "complete", "test_profile": "default", "hardware": "h",
                    "macos_version": "15", "locale": "en-US"}}


def test_table_values_are_means_of_medians_of_rounded_runs() -> None:
    # R34: 1/59 -> 0.016949, 1/58 -> 0.017241, 1/12 -> 0.083333; mean 0.039174333...
    # (unrounded runs give 0.0391746..., published 0.039175)
    fixtures = [{"id": f"f{i}", "workflow": "dictation", "locale": "en-US",
                 "required_repetitions": 3} for i in range(3)]
    package = {"products": ["a", "b"], "execution_gate": {"ready": True, "blocking_items": []},
               "protocol": {"required_repetitions": 3, "default_profile": "default"},
               "ranking": {"minimum_apps": 2, "overall_score": False}, "fixtures": fixtures}
    records = [_run(app, f"f{i}", rep, 1 / d) for app in ("a", "b")
               for i, d in enumerate((59, 58, 12)) for rep in (1, 2, 3)]
    report = rig_tables(records, package)
    [wer] = [t for t in report["tables"] if t["metric"] == "wer" and t["locale"] is None]
    assert [e["value"] for c in wer["cohorts"] for e in c["entries"]] == [0.039174, 0.039174]


def test_one_label_on_every_line_is_a_label() -> None:
    # R46: every line labelled S1 recurs, so it is a label (one speaker for all turns)
    turns = labelled_turns("S1: Shall we start?\nS1: Yes, the agenda is short.")
    assert turns is not None and {t.speaker for t in turns} == {"S1"}
    m = run_metrics(MEETING, {"raw_transcript": "S1: Shall we start?\nS1: Yes, the agenda "
                              "is short."})
    assert m["speaker_turn_accuracy_computed"] == 0.5  # S1 maps to speaker_a only
