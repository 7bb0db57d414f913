"""Scoring of the rubric: params, combining sources, layer means, the gate, the score."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_dictbench.errors import JudgeError, SuiteError
from pytest_dictbench.methods.rubric.rules import (
    AUTOMATED_RULES,
    COMMON_RULES,
    LAYERS,
    RULES,
    layer_of,
    sorted_rules,
)
from pytest_dictbench.methods.rubric.scoring import (
    RubricParams,
    build_result,
    combine,
    layer_scores,
    source_counts,
    weighted_score,
)
from pytest_dictbench.model import RuleScore

DEFAULT = RubricParams.from_mapping({})


def auto(rule: str, score: int) -> RuleScore:
    return RuleScore(rule, score, "", "auto")


# --- the rules table -----------------------------------------------------------------------


def test_there_are_46_rules_in_four_layers():
    per_layer = {layer: [r for r in RULES if r.startswith(layer)] for layer in LAYERS}
    assert {k: len(v) for k, v in per_layer.items()} == {"A": 12, "B": 8, "C": 11, "D": 15}
    assert all(rule.meaning.endswith(".") for rule in RULES.values())


def test_common_and_automated_rules():
    common = {f"A{i}" for i in range(1, 13)}
    common |= {"B1", "B4", "C1", "C4", "C8", "D3", "D4", "D6", "D13", "D14"}
    assert common == COMMON_RULES and len(COMMON_RULES) == 22
    automated = {"A1", "A2", "A3", "B1", "B2", "B3", "B4", "C1", "C4", "C8"}
    # D14 needs judgement (it was scored 2 automatically before)
    automated |= {"D1", "D2", "D3", "D4"}
    assert automated == AUTOMATED_RULES


def test_rule_order_and_layers():
    assert sorted_rules(["A10", "D1", "A2", "A2", "C11"]) == ("A2", "A10", "C11", "D1")
    assert layer_of("C11") == "C"
    with pytest.raises(KeyError, match="unknown rubric rule 'E1'"):
        layer_of("E1")


# --- params ---------------------------------------------------------------------------------


def test_default_params():
    assert dict(DEFAULT.weights) == {"A": 50, "B": 25, "C": 10, "D": 15}
    assert DEFAULT.gate == {"A"}


def test_params_read_weights_and_gate_forms():
    params = RubricParams.from_mapping({"weights": {"A": 1, "B": 1, "C": 1, "D": 1}, "gate": []})
    assert params.gate == frozenset()
    assert RubricParams.from_mapping({"gate": ["A", "B"]}).gate == {"A", "B"}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"weights": {"A": 50, "B": 50}}, "must give all of A, B, C, D"),
        ({"weights": {"A": -1, "B": 1, "C": 1, "D": 1}}, "weight of layer A"),
        ({"weights": {"A": True, "B": 1, "C": 1, "D": 1}}, "weight of layer A"),
        ({"weights": {"A": 0, "B": 0, "C": 0, "D": 0}}, "add up to 0"),
        ({"gate": "E"}, "gate must name layers"),
    ],
)
def test_bad_params_are_suite_errors(params, message):
    with pytest.raises(SuiteError, match=message):
        RubricParams.from_mapping(params)


# --- combining automated and judged scores ---------------------------------------------------


def test_combine_order_is_human_then_agreed_judges_then_automated():
    # the old rule took the lower score, so a judge could never clear an automated 0
    judged = RuleScore("B1", 2, "えっと is a demonstrative here", "judge")
    assert combine("B1", (0, "えっと"), judged) == RuleScore(
        "B1", 2, "えっと is a demonstrative here", "judge", auto=(0, "えっと"))
    # judges may also lower an automated 2
    lower = RuleScore("B1", 1, "one filler", "judge")
    assert combine("B1", (2, ""), lower) == RuleScore("B1", 1, "one filler", "judge",
                                                      auto=(2, ""))
    # a person's decision is final, whatever the check said
    human = RuleScore("A1", 2, "alternative spelling of the same word", "human")
    final = combine("A1", (0, "missing content word(s): 稟議"), human)
    assert (final.score, final.source) == (2, "human")
    assert final.to_json()["auto"] == {"score": 0, "evidence": "missing content word(s): 稟議"}
    # no verdict: the automated score stands, with no "auto" copy in the record
    assert combine("B1", (1, "auto says"), None).to_json() == {
        "score": 1, "evidence": "auto says", "source": "auto"}


def test_combine_without_any_score_is_unjudged_and_never_2():
    unjudged = combine("A6", None, None)
    assert (unjudged.score, unjudged.source) == (None, "unjudged")
    assert combine("A6", None, RuleScore("A6", None, "", "judge")).source == "unjudged"


def test_judges_disagreeing_on_an_automated_rule_leave_it_waiting_for_a_person():
    # finding S28: the automated 0 stood while the rule waited for a person
    pending = RuleScore("D1", None, "pending adjudication (judge-a=2, judge-b=1)", "unjudged")
    final = combine("D1", (0, "会議 written for 解議"), pending)
    assert (final.score, final.source) == (None, "unjudged")
    assert final.evidence == "pending adjudication (judge-a=2, judge-b=1)"
    assert final.auto == (0, "会議 written for 解議")
    # a rule nobody could judge (no cached verdict) keeps its automated score
    missing = RuleScore("D1", None, "not judged (judge-a: not run)", "unjudged")
    assert combine("D1", (0, "x"), missing) == RuleScore("D1", 0, "x", "auto")


def test_combine_keeps_a_human_source_and_rejects_out_of_range_verdicts():
    assert combine("A6", None, RuleScore("A6", 2, "ok", "human")).source == "human"
    with pytest.raises(JudgeError, match="must be 0, 1 or 2"):
        combine("A6", None, RuleScore("A6", 3, "", "judge"))


# --- layers, weights, gate -----------------------------------------------------------------


def test_layer_scores_average_scored_rules_only():
    scores = [auto("A1", 2), auto("A2", 0), RuleScore("A6", None, "", "unjudged"), auto("B1", 1)]
    # A = (2+0)/2 = 1; B = 1; no C or D rule
    assert layer_scores(scores) == {"A": 1.0, "B": 1.0}


def test_weighted_score_hand_values():
    full = {"A": 2.0, "B": 2.0, "C": 2.0, "D": 2.0}
    assert weighted_score(full, DEFAULT.weights) == 100.0
    # 50·2/2 + 25·1/2 + 10·2/2 + 15·1.5/2 = 50 + 12.5 + 10 + 11.25 = 83.75
    layers = {"A": 2.0, "B": 1.0, "C": 2.0, "D": 1.5}
    assert weighted_score(layers, DEFAULT.weights) == pytest.approx(83.75)
    # weights 1,1,1,1 (sum 4): 100·(1 + 0.5 + 1 + 0.75)/4 = 81.25
    assert weighted_score(layers, {k: 1.0 for k in LAYERS}) == pytest.approx(81.25)
    # a layer without scored rules drops out with its weight: A, C only -> 100·(50+10)/60
    assert weighted_score({"A": 2.0, "C": 1.0}, DEFAULT.weights) == pytest.approx(
        100 * (50 + 5) / 60
    )


def test_source_counts_per_layer():
    scores = [
        auto("A1", 2),
        RuleScore("A6", 1, "", "judge"),
        RuleScore("A7", 2, "", "human"),
        RuleScore("A8", None, "", "unjudged"),
        auto("D3", 2),
    ]
    counts = source_counts(scores)
    assert (counts["auto_A"], counts["judge_A"], counts["unjudged_A"]) == (1, 2, 1)
    assert counts["auto_D"] == 1 and counts["auto_B"] == 0
    assert len(counts) == 12


def test_gate_zeroes_the_score_but_metrics_keep_layers():
    scores = [auto("A1", 0), auto("A2", 2), auto("B1", 2), auto("C1", 2), auto("D3", 2)]
    result = build_result(scores, DEFAULT, diff="[-x-]{+y+}")
    assert not result.passed and result.score == 0.0
    assert result.metrics["layer_A"] == 1.0 and result.metrics["meaning_error"] == 1.0
    assert result.message == "meaning error: A1=0 | diff: [-x-]{+y+}"


def test_an_unjudged_gate_rule_does_not_fail_the_item():
    scores = [auto("A1", 2), RuleScore("A6", None, "", "unjudged"), auto("B1", 0)]
    result = build_result(scores, DEFAULT)
    # A = 2, B = 0 -> 100·(50·1 + 25·0)/75 (C and D have no scored rule) = 66.66...
    assert result.passed and result.score == pytest.approx(200 / 3)


def test_gate_layers_come_from_params():
    scores = [auto("A1", 0), auto("B1", 0), auto("C1", 2), auto("D3", 2)]
    no_gate = build_result(scores, RubricParams.from_mapping({"gate": []}))
    # A = 0, B = 0, C = 2, D = 2 -> 10 + 15 = 25
    assert no_gate.passed and no_gate.score == pytest.approx(25.0)
    b_gate = build_result([auto("A1", 2), auto("B1", 1)], RubricParams.from_mapping({"gate": "B"}))
    assert not b_gate.passed and b_gate.score == 0.0


def test_score_is_normalised_by_weights_not_summing_to_100():
    params = RubricParams.from_mapping({"weights": {"A": 2, "B": 1, "C": 1, "D": 0}})
    scores = [auto("A1", 2), auto("B1", 0), auto("C1", 1), auto("D3", 0)]
    # 100·(2·1 + 1·0 + 1·0.5 + 0·0)/4 = 62.5
    assert build_result(scores, params).score == pytest.approx(62.5)


def test_docs_list_every_rule_with_the_same_meaning():
    doc = (Path(__file__).resolve().parent.parent / "docs" / "rubric.md").read_text("utf-8")
    for rule in RULES.values():
        scored = "common" if rule.common else "case"
        decided = "auto" if rule.automated else "judge"
        assert f"| {rule.id} | {scored} | {decided} | {rule.meaning} |" in doc, rule.id
