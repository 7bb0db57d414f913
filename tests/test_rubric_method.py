"""The rubric method end to end on one hand-made case: perfect outputs, one violation at a
time (each moving exactly its own rules), known answers, the gate and judge verdicts.

Scored rules on this case: the 22 common rules plus B2, B3, D1, D2 (26). Without a judge,
an output that is not a known answer has these automated rules per layer:
A: A1 A2 A3 (A4-A12 unjudged) - B: B1 B2 B3 B4 - C: C4 C8 - D: D1 D2 D3 D4
(C1: no enumeration, D6, D13, D14 unjudged). Score = 50·A/2 + 25·B/2 + 10·C/2 + 15·D/2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_dictbench.methods.base import Method
from pytest_dictbench.methods.rubric import RubricMethod
from pytest_dictbench.model import Case, ItemResult, Output, RuleScore, ScoreContext, Suite

SECOND = "資料は7件あって、PDFでまとめてあります。"
EXPECTED_1 = "来週の定例で村井さんに校正をお願いしたいです。" + SECOND
EXPECTED_2 = (
    "来週の定例で、村井さんに校正をお願いしたいです。資料は7件あり、PDFでまとめてあります。"
)
#: Not a known answer (an extra comma), but breaks no automated check.
BASELINE = "来週の定例で村井さんに、校正をお願いしたいです。" + SECOND
ALT_PLAIN = "来週の定例で村井さんに校正をお願いしたい。資料は7件あって、PDFでまとめてあります。"

CASE_DATA = {
    "id": "mtg-01",
    "canary": "CANARY-TEST",
    "genre": "chat",
    "short": True,
    "source": "unit",
    "script": "えっと、来週の定例で、あの、村井さんに校正をお願いしたいです。"
    "資料は六件、あ、違った、七件あって、PDFでまとめてあります。",
    "expected": [EXPECTED_1, EXPECTED_2],
    "alternatives": [{"text": ALT_PLAIN, "rules": {"D13": 1}}],
    "must": ["定例", ["資料", "書類"]],
    "proper_nouns": ["村井"],
    "homophones": [{"correct": "校正", "wrong": ["構成"]}],
    "terms": [{"text": "PDF", "kind": "exact", "wrong": ["ピーディーエフ"]}],
    "numbers": [{"notations": ["7件"], "variants": ["七件"]}],
    "forbid": [
        {"text": "6件", "rule": "B2", "note": "before the correction"},
        {"text": "六件", "rule": "B2"},
        {"text": "あ、違った", "rule": "B3"},
    ],
    "rules": ["B2", "B3", "D1", "D2"],
}
CASE = Case("mtg-01", CASE_DATA)
SUITE = Suite(
    id="ja-test",
    version="1.0.0",
    title="t",
    method="rubric",
    locale="ja-JP",
    canary="CANARY-TEST",
    root=Path("."),
    cases=(CASE,),
)
METHOD = RubricMethod()
AUTOMATED_HERE = {"A1", "A2", "A3", "B1", "B2", "B3", "B4", "C4", "C8"}
AUTOMATED_HERE |= {"D1", "D2", "D3", "D4"}
#: Rules left to judgement on an output that is not a known answer.
UNJUDGED_HERE = {f"A{i}" for i in range(4, 13)} | {"C1", "D6", "D13", "D14"}


def run(text: str, judged: dict[str, RuleScore] | None = None) -> ItemResult:
    return METHOD.score(CASE, Output("mtg-01", text), ScoreContext(SUITE, judged or {}))


def lowered(result: ItemResult) -> dict[str, int]:
    return {r.rule: r.score for r in result.rules if r.score is not None and r.score < 2}


def by_rule(result: ItemResult) -> dict[str, RuleScore]:
    return {r.rule: r for r in result.rules}


def test_method_attributes_and_protocol():
    assert isinstance(METHOD, Method)
    assert (METHOD.name, METHOD.case_schema) == ("rubric", "case-rubric.schema.json")
    assert METHOD.headline == "score" and METHOD.higher_is_better is True


@pytest.mark.parametrize("text", [EXPECTED_1, EXPECTED_2])
def test_each_expected_output_scores_100_with_every_rule_2(text):
    result = run(text)
    assert result.passed and result.score == 100.0 and result.message == ""
    assert len(result.rules) == 26
    assert all(r.score == 2 and r.source == "auto" for r in result.rules)
    assert result.metrics["meaning_error"] == 0.0


def test_width_and_spacing_of_an_expected_output_still_make_it_that_output():
    spaced = (
        " 来週の定例で村井さんに校正をお願いしたいです。\n"
        + "資料は７件あって、ＰＤＦでまとめてあります。"
    )
    result = run(spaced)
    assert result.score == 100.0
    rules = by_rule(result)
    assert rules["A6"].evidence == "output equals expected output 1 up to whitespace"
    # a match that ignores whitespace decides no layout or spacing rule
    assert {r for r, v in rules.items() if v.source == "unjudged"} == {"C1", "D14"}
    assert rules["C4"].evidence == rules["C8"].evidence == ""
    # with the expected layout (only width differs) every rule is decided
    exact = run(EXPECTED_1.replace("7", "７"))
    assert exact.provisional == 0 and by_rule(exact)["D14"].evidence == (
        "output equals expected output 1")


def test_a_line_break_inside_a_word_is_not_the_known_answer_for_c2():
    case = Case("mtg-01", {**CASE_DATA, "rules": [*CASE_DATA["rules"], "C2", "C3", "C11"]})
    broken = EXPECTED_1.replace("校正", "校\n正")
    result = METHOD.score(case, Output("mtg-01", broken), ScoreContext(SUITE))
    rules = by_rule(result)
    # old code: C2 = 2 from "output equals expected output 1"
    for rule in ("C2", "C3", "C11", "D14", "C1"):
        assert (rules[rule].score, rules[rule].source) == (None, "unjudged"), rule
    # meaning rules are still decided by the match
    assert (rules["A6"].score, rules["A6"].source) == (2, "auto")


def test_an_unknown_clean_output_scores_100_on_its_automated_rules_and_lists_the_rest():
    result = run(BASELINE)
    assert result.passed and result.score == 100.0
    assert {r.rule for r in result.rules if r.score == 2} == AUTOMATED_HERE
    unjudged = {r.rule for r in result.rules if r.source == "unjudged"}
    assert unjudged == UNJUDGED_HERE and result.provisional == 13
    assert all(r.score is None for r in result.rules if r.source == "unjudged")
    metrics = result.metrics
    assert (metrics["auto_A"], metrics["unjudged_A"], metrics["judge_A"]) == (3, 9, 0)
    assert (metrics["auto_D"], metrics["unjudged_D"]) == (4, 3)
    assert (metrics["auto_B"], metrics["auto_C"], metrics["unjudged_C"]) == (4, 2, 1)


# Each row: output, the only rules that drop (and to what), the hand-computed score.
VIOLATIONS = [
    # filler at the start: B1=0 -> B = (0+2+2+2)/4 = 1.5 -> 100 - 25·(1 - 1.5/2) = 93.75
    ("えっと、" + BASELINE, {"B1": 0}, 93.75),
    # demonstrative あの used as a filler, with or without a comma before it
    (BASELINE.replace("定例で", "定例であの、"), {"B1": 0}, 93.75),
    (BASELINE.replace("定例で", "定例で、あの、"), {"B1": 0}, 93.75),
    # a filler turned into the letter E by recognition
    (BASELINE.replace("定例で", "定例で、E、"), {"B1": 0}, 93.75),
    # pre-correction word kept: B2=0 -> 93.75
    (BASELINE.replace("7件", "6件、7件"), {"B2": 0}, 93.75),
    # pre-correction word and the marker: B = (2+0+0+2)/4 = 1 -> 100 - 25·0.5 = 87.5
    (BASELINE.replace("7件", "6件、あ、違った、7件"), {"B2": 0, "B3": 0}, 87.5),
    # a word said twice: B4=0 -> 93.75
    (BASELINE.replace("定例で", "定例で、定例で"), {"B4": 0}, 93.75),
    # wrong homophone: D = (0+2+2+2)/4 = 1.5 -> 100 - 15·(1 - 0.75) = 96.25
    (BASELINE.replace("校正", "構成"), {"D1": 0}, 96.25),
    # exact term in the wrong letter case: D = 7/4 -> 100 - 15·(1/8) = 98.125
    (BASELINE.replace("PDF", "pdf"), {"D2": 1}, 98.125),
    # number in a meaning-preserving but off-standard form: D3=0 -> 96.25
    (BASELINE.replace("7件", "七件"), {"D3": 0}, 96.25),
    # one-item list in a short item: C = (2+1)/2 -> 100 - 10·(1 - 3/4) = 97.5
    ("- " + BASELINE, {"C8": 1}, 97.5),
    # heading added to a short item
    ("## 定例の件\n" + BASELINE, {"C8": 1}, 97.5),
    # accepted variant of a must word, spaces around Latin letters, full-width: no change
    (BASELINE.replace("資料", "書類"), {}, 100.0),
    (BASELINE.replace("PDF", " PDF "), {}, 100.0),
    (BASELINE.replace("PDF", "ＰＤＦ").replace("7件", "７件"), {}, 100.0),
    # meaning errors: the gate sets the score to 0
    (BASELINE.replace("定例", "例会"), {"A1": 0}, 0.0),
    (BASELINE.replace("村井", "村田"), {"A2": 0}, 0.0),
    (BASELINE.replace("7件", "いくつか"), {"A3": 0}, 0.0),
    # katakana for an exact term: the term is gone (A1) and its notation is wrong (D2)
    (BASELINE.replace("PDF", "ピーディーエフ"), {"A1": 0, "D2": 0}, 0.0),
]


@pytest.mark.parametrize(("text", "drops", "score"), VIOLATIONS)
def test_each_violation_moves_exactly_its_rules(text, drops, score):
    result = run(text)
    assert lowered(result) == drops
    assert result.score == pytest.approx(score, abs=1e-9)
    assert result.passed is (score > 0)
    assert {r.rule for r in result.rules if r.source == "unjudged"} == UNJUDGED_HERE


def test_failed_item_metrics_keep_layer_scores_before_the_gate():
    result = run(BASELINE.replace("PDF", "ピーディーエフ"))
    # A = (0+2+2)/3, D = (2+0+2+2)/4
    assert result.metrics["layer_A"] == pytest.approx(4 / 3)
    assert result.metrics["layer_D"] == pytest.approx(1.5)
    assert result.metrics["layer_B"] == result.metrics["layer_C"] == 2.0
    assert result.metrics["meaning_error"] == 1.0
    assert result.score == 0.0 and not result.passed


def test_failure_message_names_rules_evidence_and_a_diff():
    result = run(BASELINE.replace("定例", "例会").replace("校正", "構成"))
    assert result.message.startswith("meaning error: A1=0 missing content word(s): 定例")
    assert "D1=0 wrong homophone: 構成 (コウセイ) written for 校正 (コウセイ)" in result.message
    # closest expected output is EXPECTED_1 (distance 5: 定例->例会 2, +、 1, 校正->構成 2);
    # the backtrace joins the inserted 、 to the replacement (an equally minimal alignment)
    assert "| diff: 来週の[-定例-]{+例会+}で村井さんに[-校正-]{+、構成+}をお願いした…" in (
        result.message
    )


def test_passing_item_with_lowered_rules_has_no_message():
    assert run("えっと、" + BASELINE).message == ""


def test_alternative_applies_its_listed_scores_and_decides_every_other_rule():
    result = run(ALT_PLAIN)
    # D has 7 rules all decided: (6·2 + 1)/7 = 13/7 -> 100 - 15·(1 - 13/14) = 98.9285714...
    assert lowered(result) == {"D13": 1}
    assert result.score == pytest.approx(100 - 15 / 14, abs=1e-9)
    assert by_rule(result)["D13"].evidence == "output equals alternative 1 (D13 = 1 listed)"
    assert not any(r.source == "unjudged" for r in result.rules)


def test_alternative_score_is_the_minimum_with_the_checks():
    alternative = {"text": "えっと、" + BASELINE, "rules": {"B1": 1}}
    case = Case("mtg-01", {**CASE_DATA, "alternatives": [alternative]})
    result = METHOD.score(case, Output("mtg-01", "えっと、" + BASELINE), ScoreContext(SUITE))
    # the check finds the filler (0), lower than the listed 1
    assert by_rule(result)["B1"].score == 0
    assert by_rule(result)["B1"].evidence == "filler left in: えっと"


# --- judge verdicts ----------------------------------------------------------------


def test_a_judged_meaning_rule_below_2_fails_the_gate():
    judged = {"A6": RuleScore("A6", 1, "hedge turned into a claim", "judge")}
    result = run(BASELINE, judged)
    a6 = by_rule(result)["A6"]
    assert (a6.score, a6.source, a6.evidence) == (1, "judge", "hedge turned into a claim")
    assert not result.passed and result.score == 0.0
    assert "A6=1 (judge) hedge turned into a claim" in result.message
    assert result.metrics["judge_A"] == 1 and result.metrics["unjudged_A"] == 8


def test_judged_scores_override_automated_ones_and_keep_their_evidence():
    judged = {
        "B1": RuleScore("B1", 2, "judge saw no filler", "judge"),  # overturns auto 0
        "B4": RuleScore("B4", 0, "judge saw a repetition", "judge"),  # lowers auto 2
        "C1": RuleScore("C1", 2, "fine", "judge"),  # agrees with auto
        "D6": RuleScore("D6", 1, "formal ending added", "human"),  # no auto score
        "D13": RuleScore("D13", None, "", "judge"),  # no verdict
    }
    result = run("えっと、" + BASELINE, judged)
    rules = by_rule(result)
    assert (rules["B1"].score, rules["B1"].source) == (2, "judge")
    assert rules["B1"].auto is not None and rules["B1"].auto[0] == 0
    assert (rules["B4"].score, rules["B4"].source, rules["B4"].auto) == (0, "judge", (2, ""))
    assert (rules["C1"].score, rules["C1"].source) == (2, "judge")
    assert (rules["D6"].score, rules["D6"].source, rules["D6"].auto) == (1, "human", None)
    assert (rules["D13"].score, rules["D13"].source) == (None, "unjudged")
    # B = (2+2+2+0)/4 = 1.5 -> 18.75; D = (2+2+2+1+2)/5 = 9/5 -> 15·9/10 = 13.5
    # (D13 and D14 unjudged); 50 + 18.75 + 10 + 13.5 = 92.25
    assert result.score == pytest.approx(92.25, abs=1e-9)
    assert result.metrics["judge_B"] == 2 and result.metrics["auto_B"] == 2
    assert result.metrics["judge_D"] == 1 and result.metrics["unjudged_D"] == 2
    assert result.provisional == sum(1 for r in result.rules if r.source == "unjudged")


def test_fully_judged_item_hand_computed():
    # every judgement rule judged 2 except D6 = 1: D = 13/7 -> 100 - 15/14 = 98.928571...
    judged = {f"A{i}": RuleScore(f"A{i}", 2, "", "judge") for i in range(4, 13)}
    judged["D6"] = RuleScore("D6", 1, "formal ending not spoken", "judge")
    judged["D13"] = RuleScore("D13", 2, "", "judge")
    judged["D14"] = RuleScore("D14", 2, "", "judge")
    judged["C1"] = RuleScore("C1", 2, "", "judge")
    result = run(BASELINE, judged)
    assert result.score == pytest.approx(98.92857142857143, abs=1e-9)
    assert result.metrics["unjudged_A"] == 0 and result.metrics["judge_A"] == 9
    assert result.provisional == 0


def test_verdicts_for_rules_not_scored_on_the_item_are_ignored():
    result = run(BASELINE, {"B5": RuleScore("B5", 0, "abandoned clause", "judge")})
    assert "B5" not in by_rule(result) and result.score == 100.0
