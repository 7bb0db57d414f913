"""The keypoints judge protocol through the shared request builder and parser."""

from __future__ import annotations

import dataclasses
import re

import pytest

from pytest_dictbench.judge.protocol_task import ProtocolTask
from pytest_dictbench.judge.records import JudgeConfig, JudgeRequest
from pytest_dictbench.judge.request import build_params, cache_key, task_of
from pytest_dictbench.methods.keypoints import KEYPOINTS_PROTOCOL, Keypoints
from pytest_dictbench.methods.keypoints.guide import KeypointsProtocol
from pytest_dictbench.model import Case

CASE = {"id": "j1", "canary": "C", "audio": "audio/j1.flac",
        "reference": "佐藤さんと三時に会った。",
        "context": "人物: 佐藤", "key_points": [
            {"id": "k1", "text": "佐藤さんと会った", "severity": "critical"},
            {"id": "k2", "text": "三時に会った", "severity": "minor"}]}
JUDGE = JudgeConfig("judge-a", "model-a")


def _request(**changes: object) -> JudgeRequest:
    rules = Keypoints().judge_rules(Case("j1", CASE))
    request = JudgeRequest(suite="s", product="acme-secret-name", repetition=1, case=CASE,
                           output_text="佐藤さんと四時に会った。", rules=rules,
                           rubric_version="keypoints-1.0",
                           task=ProtocolTask(KEYPOINTS_PROTOCOL))
    return dataclasses.replace(request, **changes)


def test_request_holds_reference_key_points_and_hypothesis_not_the_product() -> None:
    params = build_params(_request(), JUDGE)
    text = params["messages"][0]["content"]
    assert "佐藤さんと三時に会った。" in text and "<hypothesis>\n佐藤さんと四時に会った。" in text
    assert '"severity": "critical"' in text
    assert "acme" not in str(params) and "audio/j1.flac" not in str(params)
    assert params["tool_choice"] == {"type": "tool", "name": "record_verdicts"}
    schema = params["tools"][0]["input_schema"]
    assert schema["properties"]["key_points"]["required"] == ["k1", "k2"]
    # the guide is the cacheable system block
    assert params["system"][0]["text"].endswith("(key point guide keypoints-1.0.0)")


def test_answer_becomes_rule_scores_with_the_insertion_count() -> None:
    answer = {"key_points": {"k1": {"verdict": "present", "reason": "kept"},
                             "k2": {"verdict": "contradicted", "reason": "四時 for 三時"}},
              "insertions": ["雨だった", "二人で"]}
    request = _request()
    verdicts, _ = task_of(request).parse(answer, request)
    assert {r: v.score for r, v in verdicts.items()} == {"k1": 2, "k2": 0, "insertions": 2}
    assert verdicts["insertions"].reason == "雨だった | 二人で"


@pytest.mark.parametrize("answer, where", [
    ({"key_points": {"k1": {"verdict": "present", "reason": "x"}}, "insertions": []},
     "key_points"),
    ({"key_points": {"k1": {"verdict": "kept", "reason": "x"},
                     "k2": {"verdict": "present", "reason": "x"}}, "insertions": []},
     "key_points/k1/verdict"),
    ({"key_points": {"k1": {"verdict": "present", "reason": "x"},
                     "k2": {"verdict": "present", "reason": "x"}}}, "(top)"),
])
def test_invalid_answers_are_refused(answer: dict, where: str) -> None:
    with pytest.raises(ValueError, match=f"tool input invalid at {re.escape(where)}"):
        request = _request()
        task_of(request).parse(answer, request)


def test_cache_key_follows_guide_version_and_content_not_product() -> None:
    base = cache_key(_request(), JUDGE)
    assert cache_key(_request(product="other", repetition=2), JUDGE) == base
    assert cache_key(_request(output_text="佐藤さんと三時に会った。"), JUDGE) != base
    newer = KeypointsProtocol()
    newer.version = "keypoints-9.9.9"
    assert cache_key(_request(task=ProtocolTask(newer)), JUDGE) != base
    assert cache_key(_request(task=None), JUDGE) != base  # the rubric guide
