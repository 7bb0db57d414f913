"""The ``verbatim`` method: item scores, verdicts, rules, metrics and corpus tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.methods.base import Method
from pytest_dictbench.methods.verbatim import Verbatim, case_problems
from pytest_dictbench.model import Case, ItemResult, Output, ScoreContext, Suite

WORKED = Case("worked", {"id": "worked", "canary": "C",
                         "verbatim": "So we, we [uh] went to the th- the [laughter] shop.",
                         "intended": "So we went to the shop."})
FLUENT = Case("fluent", {"id": "fluent", "canary": "C",
                         "verbatim": "I really appreciate it.",
                         "intended": "I really appreciate it."})
METHOD = Verbatim()


def suite(**params: Any) -> Suite:
    return Suite(id="t", version="1", title="t", method="verbatim", locale="en-US",
                 canary="C", root=Path("."), cases=(WORKED, FLUENT), params=params)


def score(case: Case, text: str, threshold: float = 0.25, **meta: Any) -> ItemResult:
    ctx = ScoreContext(suite=suite(vwer_threshold=threshold))
    return METHOD.score(case, Output(case_id=case.id, text=text, meta=meta), ctx)


def test_protocol_and_attributes() -> None:
    assert isinstance(METHOD, Method)
    assert (METHOD.name, METHOD.case_schema) == ("verbatim", "case-verbatim.schema.json")
    assert (METHOD.headline, METHOD.higher_is_better) == ("disfluency_f1", True)


def test_hand_scored_item() -> None:
    # gold: so we(Rep) we [uh](Fil) went to the(Rep) th*(Cut) the [laughter](Snd) shop
    # output: so we we [um] went to the the shop
    # -> Filler TP ([um] for [uh]), 2 Repetition TP, Cutoff FN, Sound FN
    # Disfluency F1 = 2*3 / (2*3 + 0 + 2) = 0.75 -> score 75
    result = score(WORKED, "so we we um went to the the shop")
    assert result.score == pytest.approx(75.0)
    m = result.metrics
    assert (m["filler_tp"], m["repetition_tp"], m["cutoff_fn"], m["sound_fn"]) == (1, 2, 1, 1)
    assert (m["disfluency_tp"], m["disfluency_fp"], m["disfluency_fn"]) == (3, 0, 2)
    # vWER: [uh]->[um], th* deleted, [laughter] deleted = 3 edits over 11 words
    assert (m["vwer_edits"], m["vwer_ref_words"]) == (3, 11)
    # vCER: 39 reference chars; one substitution (h->m) + 13 deletions
    # ("th*the[laughter]shop" -> "theshop") = 14
    assert (m["vcer_edits"], m["vcer_ref_chars"]) == (14, 39)
    # iWER: intended "so we went to the shop" (6 words); the output adds we, [um], the
    assert (m["iwer_edits"], m["iwer_ref_words"]) == (3, 6)
    # iCER: 17 intended chars, output 26 chars holding them in order: 9 insertions
    assert (m["icer_edits"], m["icer_ref_chars"]) == (9, 17)
    assert m["intended_text_given"] == 0
    assert not result.passed  # two misses, and vWER 0.273 > 0.25
    rules = {r.rule: r for r in result.rules}
    assert (rules["missed"].score, rules["invented"].score, rules["vwer"].score) == (1, 2, 0)
    assert "cutoff 'th*' (gold word 8)" in rules["missed"].evidence
    assert "sound '[laughter]' (gold word 10)" in rules["missed"].evidence
    assert rules["vwer"].evidence.startswith("vWER 0.273 > 0.25 (3 edits over 11")
    assert "missed" in result.message and "vWER" in result.message


def test_separate_intended_prediction_is_used_for_iwer() -> None:
    result = score(WORKED, "so we we um went to the the shop",
                   intended_text="So we went to the shop.")
    assert (result.metrics["iwer_edits"], result.metrics["icer_edits"]) == (0, 0)
    assert result.metrics["vwer_edits"] == 3
    assert result.metrics["intended_text_given"] == 1


def test_perfect_output_passes() -> None:
    result = score(WORKED, WORKED.data["verbatim"])
    assert (result.passed, result.score, result.message) == (True, 100.0, "")
    assert all(r.score == 2 for r in result.rules)


def test_no_gold_and_no_predicted_disfluency_scores_100() -> None:
    result = score(FLUENT, "I really appreciate it")
    assert (result.passed, result.score) == (True, 100.0)


def test_invented_filler_on_a_fluent_item() -> None:
    # tp 0, fp 1, fn 0 -> F1 0; one word inserted over 4 -> vWER 0.25 (still within)
    result = score(FLUENT, "I [um] really appreciate it")
    assert (result.passed, result.score) == (False, 0.0)
    rules = {r.rule: r for r in result.rules}
    assert rules["invented"].score == 0
    assert rules["invented"].evidence == "1 invented: filler '[um]' (output word 2)"
    assert rules["vwer"].score == 2


def test_empty_output() -> None:
    result = score(WORKED, "")
    assert (result.passed, result.score) == (False, 0.0)
    assert (result.metrics["vwer_edits"], result.metrics["vwer_ref_words"]) == (11, 11)
    assert result.metrics["disfluency_fn"] == 5
    assert {r.rule: r.score for r in result.rules} == {"missed": 0, "invented": 2, "vwer": 0}


def test_clean_output_misses_all_disfluencies() -> None:
    result = score(WORKED, "So we went to the shop.")
    assert result.score == 0.0
    assert (result.metrics["disfluency_fp"], result.metrics["disfluency_fn"]) == (0, 5)
    assert (result.metrics["vwer_edits"], result.metrics["iwer_edits"]) == (5, 0)


def test_vwer_threshold_parameter() -> None:
    case = Case("c", {"id": "c", "canary": "C", "verbatim": "So [uh] we left early.",
                      "intended": "So we left early."})
    # one deleted word over five: vWER 0.2
    assert score(case, "so uh we left", threshold=0.25).passed
    assert not score(case, "so uh we left", threshold=0.1).passed


def test_metrics_are_flat_numbers() -> None:
    metrics = score(WORKED, "so we went").metrics
    assert all(isinstance(v, int | float) for v in metrics.values())
    for name in ("filler", "sound", "cutoff", "repetition", "other", "cutoff_strict",
                 "cutoff_marker", "disfluency"):
        assert {f"{name}_tp", f"{name}_fp", f"{name}_fn"} <= metrics.keys()


def record(result: ItemResult, status: str | None = None) -> dict[str, Any]:
    status = status or ("passed" if result.passed else "failed")
    return {"status": status, "score": result.score, "metrics": dict(result.metrics)}


def test_aggregate_pools_counts() -> None:
    first = score(WORKED, "so we we um went to the the shop")  # tp 3 (fil 1, rep 2), fn 2
    second = score(WORKED, "So we went to the shop.")  # fn 5 (fil, snd, cut, rep 2)
    broken = {"status": "error", "score": None, "metrics": {}}
    tables = METHOD.aggregate([record(first), record(second), broken], suite())
    summary, types = tables["summary"], tables["types"]
    # disfluency: tp 3, fp 0, fn 7 -> P 1, R 0.3, F1 6/13
    assert summary["disfluency_f1"] == pytest.approx(6 / 13)
    assert (summary["disfluency_precision"], summary["disfluency_recall"]) == (1.0, 0.3)
    # filler tp 1 fn 1 -> F1 2/3; repetition tp 2 fn 2 -> 2/3; cutoff, sound 0
    assert summary["filler_f1"] == pytest.approx(2 / 3)
    assert summary["repetition_f1"] == pytest.approx(2 / 3)
    assert (summary["cutoff_f1"], summary["sound_f1"], summary["cutoff_recall"]) == (0, 0, 0)
    assert summary["other_f1"] == 1.0  # no Other in gold or output
    # vWER (3 + 5) / 22; iWER (3 + 0) / 12; vCER (14 + 22) / 78 (second: 39 - 17 chars)
    assert summary["vwer"] == pytest.approx(8 / 22)
    assert summary["iwer"] == pytest.approx(3 / 12)
    assert summary["vcer"] == pytest.approx((14 + 22) / 78)
    assert (summary["items"], summary["gold_disfluencies"]) == (2, 10)
    assert types["repetition"] == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3),
                                   "tp": 2, "fp": 0, "fn": 2}
    assert {"cutoff_strict", "cutoff_marker", "disfluency"} <= types.keys()


def test_aggregate_without_scored_records() -> None:
    summary = METHOD.aggregate([], suite())["summary"]
    assert summary["items"] == 0
    assert summary["vwer"] is None


def test_case_problems_lists_only_broken_cases() -> None:
    broken = Case("b", {"id": "b", "canary": "C", "verbatim": "we left",
                        "intended": "we all left"})
    assert case_problems([WORKED, FLUENT, broken]) == {
        "b": ["intended word 2 'all' is not in the verbatim transcript "
              "(intended must come from deletions only)"]}
