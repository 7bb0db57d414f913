"""The rubric case schema, the case consistency lint, and both applied to the bundled
``cases/ja-dictation`` suite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.methods.rubric import lint_case
from pytest_dictbench.methods.rubric.casedata import RubricCase
from pytest_dictbench.methods.rubric.checks import run_checks
from pytest_dictbench.model import Case
from pytest_dictbench.schemas import schema, validation_error

SCHEMA = "case-rubric.schema.json"
SUITE_CASES = Path(__file__).resolve().parent.parent / "cases" / "ja-dictation" / "cases.jsonl"

GOOD: dict[str, Any] = {
    "id": "ok-1",
    "canary": "X",
    "tags": ["homophone"],
    "audio": "audio/ok-1.wav",
    "genre": "notes",
    "short": False,
    "source": "unit",
    "script": "えっと、要旨は、あ、違った、要綱はスラックで来週回します。",
    "expected": ["要綱はSlackで来週回します。"],
    "alternatives": [{"text": "要綱は、Slackで来週回します。", "rules": {"D11": 1}}],
    "must": [["要綱", "ようこう"]],
    "proper_nouns": [],
    "forbid": [{"text": "要旨", "rule": "B2", "note": "retracted"}],
    "homophones": [{"correct": "要綱", "wrong": ["要項"]}],
    "terms": [{"text": "Slack", "kind": "exact", "variants": [], "wrong": ["スラック"]}],
    "numbers": [{"notations": ["来週"], "variants": [], "rule": "D3"}],
    "enumeration": {"items": [["要綱"], "来週"], "as_list": False},
    "rules": ["B2", "D1", "D2", "D11"],
    "context": "前のやりとり",
}


def test_schema_is_draft_2020_12_and_closed():
    document = schema(SCHEMA)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert document["additionalProperties"] is False
    assert validation_error(GOOD, SCHEMA) is None


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"surprise": 1}, "Additional properties"),
        ({"genre": "blog"}, "blog"),
        ({"short": "yes"}, "boolean"),
        ({"expected": []}, "expected"),
        ({"rules": ["E1"]}, "E1"),
        ({"alternatives": [{"text": "x", "rules": {"A1": 2}}]}, "2"),
        ({"alternatives": [{"text": "x", "rules": {"Z9": 0}}]}, "Z9"),
        ({"must": [[]]}, "must/0"),
        ({"forbid": [{"text": "x"}]}, "rule"),
        ({"terms": [{"text": "x", "kind": "loose"}]}, "loose"),
        ({"numbers": [{"notations": ["1"], "rule": "D5"}]}, "D5"),
        ({"enumeration": {"items": ["a"]}}, "enumeration/items"),
        ({"id": "-bad"}, "id"),
    ],
)
def test_schema_rejects_malformed_cases(change, fragment):
    problem = validation_error({**GOOD, **change}, SCHEMA)
    assert problem is not None and fragment in problem


def test_schema_requires_the_core_fields():
    for field in ("id", "canary", "genre", "short", "source", "script", "expected"):
        incomplete = {k: v for k, v in GOOD.items() if k != field}
        assert field in (validation_error(incomplete, SCHEMA) or ""), field


def test_optional_fields_default_sensibly():
    minimal = {k: GOOD[k] for k in ("id", "canary", "genre", "short", "source", "script")}
    case = RubricCase.from_mapping({**minimal, "expected": ["承知しました。"]})
    assert validation_error({**minimal, "expected": ["承知しました。"]}, SCHEMA) is None
    assert case.must == () and case.enumeration is None and case.rules == ()
    assert len(case.scored_rules) == 22
    full = RubricCase.from_mapping(GOOD)
    assert full.numbers[0].rule == "D3" and full.enumeration is not None
    assert full.enumeration.items == (("要綱",), ("来週",)) and not full.enumeration.as_list


# --- lint ----------------------------------------------------------------------------------


def test_a_consistent_case_lints_clean():
    assert lint_case(GOOD) == []
    assert lint_case(Case("ok-1", GOOD)) == []


def test_lint_reports_an_expected_output_that_fails_its_own_checks():
    broken = {**GOOD, "must": ["議事録"]}  # the expected output lacks it
    assert lint_case(broken) == [
        "ok-1: expected output 1 scores A1=0: missing content word(s): 議事録",
        "ok-1: alternative 1 scores A1=0 but lists 2: missing content word(s): 議事録",
    ]


def test_lint_reports_a_homophone_that_is_also_a_must_keep_word():
    # a 要綱 -> 要項 slip would fail A1 (the gate) instead of D1 alone
    broken = {**GOOD, "must": ["要綱"]}
    assert lint_case(broken) == [
        "ok-1: homophone 要綱 is also required by must-keep '要綱': a slip to 要項 would be "
        "an A1 meaning error; homophones are scored under D1 only"]
    # a compound needing the right kanji counts too; listing the slip's spelling fixes it
    assert "homophone 要綱 is also required by must-keep '要綱案'" in lint_case(
        {**GOOD, "must": ["要綱案"]})[0]
    assert lint_case({**GOOD, "must": [["要綱", "要項"]]}) == []


def test_lint_reports_case_data_feeding_rules_that_are_not_scored():
    broken = {**GOOD, "rules": ["B2"]}
    assert lint_case(broken) == [
        "ok-1: homophones are given but D1 is not in rules",
        "ok-1: terms are given but D2 is not in rules",
        "ok-1: alternative 1 lists D11, which is not scored",
    ]
    unscored_forbid = {**GOOD, "forbid": [{"text": "要旨", "rule": "B5"}]}
    assert lint_case(unscored_forbid) == ["ok-1: forbid '要旨' feeds B5, which is not scored"]


def test_lint_reports_an_alternative_the_checks_score_lower_than_listed():
    alternative = {"text": "えっと、要綱はSlackで来週回します。", "rules": {"D11": 1}}
    broken = {**GOOD, "alternatives": [alternative]}
    assert lint_case(broken) == [
        "ok-1: alternative 1 scores B1=0 but lists 2: filler left in: えっと"
    ]


# --- the bundled suite ------------------------------------------------------------------------


def _suite_cases() -> list[dict[str, Any]]:
    if not SUITE_CASES.is_file():
        return []
    return [json.loads(line) for line in SUITE_CASES.read_text(encoding="utf-8").splitlines()]


@pytest.mark.skipif(not SUITE_CASES.is_file(), reason="cases/ja-dictation is not in this tree")
def test_bundled_suite_validates_and_lints_clean():
    cases = _suite_cases()
    assert cases
    problems = [f"{c['id']}: {validation_error(c, SCHEMA)}" for c in cases]
    problems = [p for p in problems if not p.endswith(": None")]
    for case in cases:
        problems += lint_case(case)
    assert problems == []


@pytest.mark.skipif(not SUITE_CASES.is_file(), reason="cases/ja-dictation is not in this tree")
def test_bundled_suite_expected_outputs_pass_every_automated_rule():
    for data in _suite_cases():
        case = RubricCase.from_mapping(data)
        for text in case.expected:
            assert all(score == 2 for score, _ in run_checks(case, text).values()), data["id"]
