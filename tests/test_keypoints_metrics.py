"""Proposition metrics, overall score, empty and provisional items: hand-worked values."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_dictbench.errors import SuiteError
from pytest_dictbench.methods.keypoints import Keypoints, PropositionCounts, f_beta
from pytest_dictbench.methods.keypoints.metrics import proposition_counts
from pytest_dictbench.methods.keypoints.params import KeypointsParams
from pytest_dictbench.model import Case, Output, RuleScore, ScoreContext, Suite

# k1 critical present, k2 minor present, k3 minor present, k4 critical missing,
# k5 minor contradicted; 2 insertions.
VERDICTS = {"k1": "present", "k2": "present", "k3": "present", "k4": "missing",
            "k5": "contradicted"}
SEVERITY = {"k1": "critical", "k2": "minor", "k3": "minor", "k4": "critical", "k5": "minor"}
SCORES = {"present": 2, "missing": 1, "contradicted": 0}


def test_recall_precision_fbeta_by_hand() -> None:
    counts = proposition_counts(VERDICTS, insertions=2)
    assert (counts.present, counts.missing, counts.contradicted) == (3, 1, 1)
    assert counts.recall == pytest.approx(3 / 5)          # present / key points
    assert counts.precision == pytest.approx(3 / 6)       # 3 / (3 + 1 contradicted + 2)
    # F1 = 2PR/(P+R) = 2 * 0.3 / 1.1 = 6/11
    assert counts.f_beta(1.0) == pytest.approx(6 / 11)
    # F2 = 5PR/(4P+R) = 1.5 / 2.6 = 15/26: recall counts more
    assert counts.f_beta(2.0) == pytest.approx(15 / 26)


def test_fbeta_edges() -> None:
    assert f_beta(0.0, 0.0) == 0.0
    assert f_beta(1.0, 1.0, 2.0) == pytest.approx(1.0)
    assert f_beta(0.5, 1.0, 0.5) == pytest.approx(1.25 * 0.5 / (0.25 * 0.5 + 1.0))
    # nothing asserted: precision is 0, not undefined
    assert PropositionCounts(missing=3).precision == 0.0


def test_severity_weighting_by_hand() -> None:
    counts = proposition_counts(VERDICTS, 2, SEVERITY, {"critical": 2.0, "minor": 1.0})
    # present 2 + 1 + 1 = 4, missing 2, contradicted 1, insertions 2 x minor weight 1
    assert (counts.present, counts.missing, counts.contradicted, counts.insertions) == (
        4, 2, 1, 2)
    assert counts.recall == pytest.approx(4 / 7)
    assert counts.precision == pytest.approx(4 / 7)
    assert counts.f_beta() == pytest.approx(4 / 7)


def _suite(params: dict | None = None) -> Suite:
    return Suite(id="s", version="1", title="t", method="keypoints", locale="ja-JP",
                 canary="C", root=Path("."), cases=(),
                 params=params if params is not None else {})


REFERENCE = "佐藤さんと三時に会った。"  # names {佐藤}, numbers {3時}


def _case() -> Case:
    return Case("c1", {"id": "c1", "reference": REFERENCE, "key_points": [
        {"id": k, "text": k, "severity": SEVERITY[k]} for k in VERDICTS]})


def _judged(verdicts: dict[str, str], insertions: int, source: str = "human"
            ) -> dict[str, RuleScore]:
    judged = {k: RuleScore(k, SCORES[v], "because", source) for k, v in verdicts.items()}
    judged["insertions"] = RuleScore("insertions", insertions, "x | y", source)
    return judged


def _score(text: str, judged: dict[str, RuleScore], params: dict | None = None):
    return Keypoints().score(_case(), Output("c1", text), ScoreContext(_suite(params),
                                                                       judged=judged))


def test_overall_weights_names_and_fbeta() -> None:
    # hypothesis names: {佐藤, 3時} vs {佐藤, 4時}: tp 1, fp 1, fn 1 -> F1 = 0.5
    result = _score("佐藤さんと四時に会った。", _judged(VERDICTS, 2))
    assert result.metrics["names_f1"] == pytest.approx(0.5)
    assert result.metrics["fbeta"] == pytest.approx(6 / 11)
    assert result.metrics["overall"] == pytest.approx(0.3 * 0.5 + 0.7 * 6 / 11)
    assert result.score == pytest.approx(100 * (0.15 + 0.7 * 6 / 11))
    # k4 is a critical key point and missing: the item fails, and says so
    assert not result.passed and result.message == "critical key point k4 missing"
    assert result.metrics["critical_missing"] == 1
    assert result.metrics["critical_contradicted"] == 0
    weighted = _score("佐藤さんと四時に会った。", _judged(VERDICTS, 2),
                      {"severity_weights": {"critical": 2, "minor": 1}})
    assert weighted.metrics["weighted_fbeta"] == pytest.approx(4 / 7)
    assert weighted.score == pytest.approx(result.score)  # weighting is reported beside


def test_overall_weights_and_beta_from_params() -> None:
    result = _score("佐藤さんと四時に会った。", _judged(VERDICTS, 2),
                    {"beta": 2, "overall_weights": {"names": 0.5, "propositions": 0.5}})
    assert result.metrics["overall"] == pytest.approx(0.5 * 0.5 + 0.5 * 15 / 26)


def test_overall_is_fbeta_alone_when_neither_side_has_names() -> None:
    case = Case("c1", {"id": "c1", "reference": "きょうはいいてんきだった。", "key_points": [
        {"id": "k1", "text": "天気が良かった", "severity": "minor"}]})
    judged = {"k1": RuleScore("k1", 2, "ok", "judge"),
              "insertions": RuleScore("insertions", 1, "extra", "judge")}
    result = Keypoints().score(case, Output("c1", "きょうはいいてんきでした。"),
                               ScoreContext(_suite(), judged=judged))
    assert result.metrics["names_applies"] == 0
    # recall 1, precision 1/2 -> F1 = 2/3, the whole overall
    assert result.metrics["overall"] == pytest.approx(2 / 3)
    assert result.score == pytest.approx(200 / 3)


def test_empty_transcript_scores_zero_without_a_judge() -> None:
    result = _score("  \n", {})
    assert result.score == 0.0 and not result.passed
    assert result.message == "empty transcript"
    assert result.metrics["overall"] == 0.0 and result.metrics["provisional"] == 0
    assert result.metrics["missing"] == 5 and result.metrics["critical_missing"] == 2


def test_without_verdicts_the_item_is_provisional() -> None:
    result = _score("佐藤さんと三時に会った。", {})
    assert result.score is None and result.passed
    # one vocabulary: the metric counts the missing verdicts, as the record does
    assert result.metrics["provisional"] == result.provisional == len(result.rules)
    assert result.metrics["names_f1"] == 1.0  # names are shown
    assert "fbeta" not in result.metrics and "overall" not in result.metrics
    assert all(r.source == "unjudged" for r in result.rules)
    # one key point still pending is enough to keep it provisional
    judged = _judged(VERDICTS, 0)
    judged["k3"] = RuleScore("k3", None, "pending adjudication (a=2, b=1)", "unjudged")
    partial = _score("佐藤さんと三時に会った。", judged)
    assert partial.score is None and "k3" in partial.message


@pytest.mark.parametrize("params, message", [
    ({"beta": 0}, "params.beta must be a number > 0"),
    ({"overall_weights": {"names": 0.5}}, "params.overall_weights must be a table"),
    ({"overall_weights": {"names": 0.5, "propositions": 0.6}}, "must add up to 1"),
    ({"severity_weights": {"critical": -1, "minor": 1}}, "severity_weights.critical"),
    ({"gate": "A"}, "unknown params ['gate']"),
])
def test_bad_params_are_refused(params: dict, message: str) -> None:
    with pytest.raises(SuiteError, match=message.replace("[", r"\[").replace("]", r"\]")):
        KeypointsParams.from_mapping(params)
