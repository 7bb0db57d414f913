"""Figures of one complete rig run (one results row) against its fixture. Pure.

Transcript workflows (dictation, file transcription, meeting) get WER, CER and strict
edit distance of the raw transcript plus its elapsed seconds; a meeting adds capture
completion and speaker-turn accuracy (correct / total reference turns: computed from a
speaker-labelled transcript by :mod:`pytest_dictbench.rig.speakers` when the row
has one, with cpWER and a flag where the operator's count differs; otherwise the
operator's count); a correction
run gets the exact-match gate on its final transcript, the edit distance left (near
misses keep it), its correction seconds and edit actions. Error rates are not rounded
here as the scorer does: each run's rates (WER, CER, speaker-turn accuracy) are rounded
to 6 places, halves away from zero, before any median or mean.

A meeting's WER and CER count speaker labels as words, as the scorer does (it scores the
raw transcript); when the transcript is speaker-labelled, ``wer_label_free`` and
``cer_label_free`` are the same figures with the labels left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ...rig.speakers import labelled_turns, plain_text, speaker_metrics
from ...stats import round_half_away
from ...text.rig import edit_distance, normalize, words_of

__all__ = ["RATE_DECIMALS", "TRANSCRIPT_WORKFLOWS", "run_metrics"]

#: Places each run's rates are rounded to before medians and means (as the scorer).
RATE_DECIMALS = 6

#: Workflows whose raw transcript is scored against the reference.
TRANSCRIPT_WORKFLOWS = ("dictation", "file_transcription", "meeting")


def _tokens(text: str, locale: str) -> tuple[list[str], str]:
    """Words and characters (no whitespace) of ``text`` after rig-v1."""
    normalized = normalize(text, locale)
    return words_of(normalized, locale), normalized.replace(" ", "")


#: References repeat over every run of a fixture: tokenised once.
_reference_tokens = lru_cache(maxsize=256)(_tokens)


def _transcript(reference: str, hypothesis: str, locale: str) -> dict[str, float]:
    ref_words, ref_chars = _reference_tokens(reference, locale)
    hyp_words, hyp_chars = _tokens(hypothesis, locale)
    if not ref_words or not ref_chars:
        raise ValueError("the reference is empty after rig-v1 normalisation")
    words = edit_distance(ref_words, hyp_words)
    chars = edit_distance(ref_chars, hyp_chars)
    return {
        "wer": round_half_away(words / len(ref_words), RATE_DECIMALS),
        "cer": round_half_away(chars / len(ref_chars), RATE_DECIMALS),
        "word_edits": float(words), "reference_words": float(len(ref_words)),
        "char_edits": float(chars), "reference_chars": float(len(ref_chars)),
        "strict_edit_distance": float(edit_distance(reference, hypothesis)),
    }


def run_metrics(fixture: Mapping[str, Any], row: Mapping[str, Any],
                notes: list[str] | None = None) -> dict[str, float]:
    """The figures of one complete run.

    :param fixture: the fixture's data (``workflow``, ``locale``, ``reference`` text and,
        for a correction, ``seed`` text).
    :param row: the run's parsed values: ``raw_transcript``/``final_transcript`` texts
        (or None) and the numbers ``elapsed_seconds``, ``correction_seconds``,
        ``edit_actions``, ``capture_complete`` (bool), ``speaker_turns_correct``,
        ``speaker_turns_total`` (each None when blank).
    :param notes: if given, receives what a number cannot say (the speaker mapping).
    """
    workflow, reference = fixture["workflow"], fixture["reference"]
    metrics: dict[str, float] = {}
    if workflow == "correction":
        final = row.get("final_transcript") or ""
        start = row.get("raw_transcript")
        initial = start if start is not None else fixture.get("seed", "")
        remaining = edit_distance(reference, final)
        metrics.update({
            "correction_exact": 1.0 if final == reference else 0.0,
            "initial_strict_edit_distance": float(edit_distance(reference, initial)),
            "final_strict_edit_distance": float(remaining),
        })
        for name in ("correction_seconds", "edit_actions"):
            if row.get(name) is not None:
                metrics[name] = float(row[name])
        return metrics
    raw = row.get("raw_transcript") or ""
    turns = labelled_turns(raw, fixture.get("turns") or ()) if workflow == "meeting" \
        else None
    metrics.update(_transcript(reference, raw, fixture["locale"]))  # labels count
    if turns is not None:
        free = _transcript(reference, plain_text(turns), fixture["locale"])
        metrics.update(wer_label_free=free["wer"], cer_label_free=free["cer"])
    if row.get("elapsed_seconds") is not None:
        metrics["elapsed_seconds"] = float(row["elapsed_seconds"])
    if workflow == "meeting":
        if row.get("capture_complete") is not None:
            metrics["capture_complete"] = 1.0 if row["capture_complete"] else 0.0
        correct, total = row.get("speaker_turns_correct"), row.get("speaker_turns_total")
        if correct is not None and total:
            metrics["speaker_turn_accuracy"] = round_half_away(correct / total,
                                                               RATE_DECIMALS)
        if turns is not None and fixture.get("turns"):
            metrics.update(speaker_metrics(fixture, turns, correct, total, notes))
    return metrics
