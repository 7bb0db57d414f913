"""Cache keys, the verdict store on disk, and the shape checks of a judge's answer."""

from __future__ import annotations

import dataclasses
import json

import pytest
from judge_support import JUDGE_A, make_request

from pytest_dictbench.judge import (
    JudgeCacheWarning,
    RuleVerdict,
    TokenUsage,
    Verdict,
    VerdictCache,
    cache_key,
    guide,
)
from pytest_dictbench.judge.records import canonical_json, content_hash
from pytest_dictbench.judge.request import REASON_MAX_CHARS, parse_verdicts, verdict_schema

RULE_IDS = ("A1", "A6")


def _verdict(chash: str = "h1", score: int = 2) -> Verdict:
    return Verdict("judge-a", "model-a", chash,
                   {"A1": RuleVerdict(score, "kept"), "A6": RuleVerdict(2, "日本語も可")},
                   TokenUsage(120, 30))


# -- cache key -------------------------------------------------------------------------

def test_content_hash_is_sha256_of_canonical_json() -> None:
    # Independent check: key order and spacing do not matter, the digest is plain sha256.
    import hashlib

    assert canonical_json({"b": 1, "a": [1, "é"]}) == '{"a":[1,"é"],"b":1}'
    assert content_hash({"b": 1, "a": [1, "é"]}) == hashlib.sha256(
        '{"a":[1,"é"],"b":1}'.encode()).hexdigest()


def test_cache_key_changes_with_what_the_judge_sees() -> None:
    base = make_request()
    key = cache_key(base, JUDGE_A)
    changed = {
        "model": cache_key(base, dataclasses.replace(JUDGE_A, model="model-z")),
        "max_tokens": cache_key(base, dataclasses.replace(JUDGE_A, max_tokens=2048)),
        "temperature": cache_key(base, dataclasses.replace(JUDGE_A, temperature=0.5)),
        "judge name": cache_key(base, dataclasses.replace(JUDGE_A, name="judge-z")),
        "output": cache_key(dataclasses.replace(base, output_text="Other text."), JUDGE_A),
        "rubric": cache_key(dataclasses.replace(base, rubric_version="r2"), JUDGE_A),
        "rules": cache_key(dataclasses.replace(base, rules=(("A1", "x"),)), JUDGE_A),
        "auto": cache_key(dataclasses.replace(base, auto_results={}), JUDGE_A),
        "case": cache_key(make_request(script="another script"), JUDGE_A),
    }
    for what, other in changed.items():
        assert other != key, what
    assert len(set(changed.values())) == len(changed)


def test_cache_key_changes_with_the_guide_version(monkeypatch: pytest.MonkeyPatch) -> None:
    before = cache_key(make_request(), JUDGE_A)
    monkeypatch.setattr(guide, "GUIDE_VERSION", "9.9.9")
    assert cache_key(make_request(), JUDGE_A) != before


def test_cache_key_ignores_product_repetition_ids_and_prices() -> None:
    key = cache_key(make_request(), JUDGE_A)
    assert cache_key(make_request(product="other", repetition=3), JUDGE_A) == key
    assert cache_key(make_request(case_id="renamed"), JUDGE_A) == key  # id is hidden
    assert cache_key(make_request(), dataclasses.replace(JUDGE_A, price_in_per_mtok=99)) == key


# -- the store on disk -----------------------------------------------------------------

def test_round_trip_through_the_file(tmp_path) -> None:
    path = tmp_path / "sub" / "verdicts.jsonl"
    with VerdictCache(path) as cache:
        cache.put(_verdict("h1"))
        cache.put(_verdict("h2", score=0))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["hash"] == "h1"
    reopened = VerdictCache(path)
    assert len(reopened) == 2
    assert reopened.get("h1") == _verdict("h1") and reopened.get("h2") == _verdict("h2", 0)
    assert reopened.get("nope") is None


def test_torn_last_line_is_skipped_with_a_warning(tmp_path) -> None:
    path = tmp_path / "verdicts.jsonl"
    good = canonical_json(_verdict("h1").to_json())
    path.write_text(good + "\n" + good[:40], encoding="utf-8")  # crash mid-write
    with pytest.warns(JudgeCacheWarning, match=r"verdicts.jsonl:2"):
        cache = VerdictCache(path)
    assert len(cache) == 1 and "h1" in cache
    cache.put(_verdict("h3"))
    cache.close()
    # The new record starts on its own line instead of being glued to the fragment.
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[1] == good[:40] and json.loads(lines[2])["hash"] == "h3"
    with pytest.warns(JudgeCacheWarning):
        assert sorted(v.content_hash for v in VerdictCache(path)) == ["h1", "h3"]


def test_line_missing_fields_is_skipped(tmp_path) -> None:
    path = tmp_path / "verdicts.jsonl"
    path.write_text('{"hash": "h9"}\n' + canonical_json(_verdict().to_json()) + "\n")
    with pytest.warns(JudgeCacheWarning, match=":1"):
        assert list(VerdictCache(path)) == [_verdict()]


def test_memory_cache_writes_nothing(tmp_path) -> None:
    cache = VerdictCache(None)
    cache.put(_verdict())
    cache.close()
    assert "h1" in cache and list(tmp_path.iterdir()) == []


# -- validating the tool input ----------------------------------------------------------

def _input(**entries: object) -> dict[str, object]:
    return {"verdicts": entries}


def test_valid_answer_parses() -> None:
    parsed = parse_verdicts(
        _input(A1={"score": 0, "reason": "dropped 'cache'"}, A6={"score": 2, "reason": "ok"}),
        RULE_IDS)
    assert parsed == {"A1": RuleVerdict(0, "dropped 'cache'"), "A6": RuleVerdict(2, "ok")}


@pytest.mark.parametrize(
    ("tool_input", "flaw"),
    [
        (_input(A1={"score": 2, "reason": "ok"}), "'A6' is a required property"),
        (_input(A1={"score": 2, "reason": "ok"}, A6={"score": 3, "reason": "x"}), "3 is not one"),
        (_input(A1={"score": "2", "reason": "ok"}, A6={"score": 2, "reason": "x"}), "not of type"),
        (_input(A1={"score": True, "reason": "ok"}, A6={"score": 2, "reason": "x"}),
         "not of type"),
        (_input(A1={"score": 1}, A6={"score": 2, "reason": "x"}), "'reason' is a required"),
        (_input(A1={"score": 2, "reason": "ok"}, A6={"score": 2, "reason": "x"},
                Z9={"score": 2, "reason": "x"}), "Additional properties"),
        (_input(A1={"score": 2, "reason": "x" * (REASON_MAX_CHARS + 1)},
                A6={"score": 2, "reason": "x"}), "is too long"),
        ({"A1": {"score": 2, "reason": "ok"}}, "'verdicts' is a required property"),
        (None, "not of type 'object'"),
    ],
)
def test_invalid_answers_are_rejected(tool_input: object, flaw: str) -> None:
    with pytest.raises(ValueError, match="tool input invalid") as info:
        parse_verdicts(tool_input, RULE_IDS)
    assert flaw in str(info.value)


def test_schema_lists_every_rule_as_required() -> None:
    schema = verdict_schema(["A1", "B2"])
    assert schema["properties"]["verdicts"]["required"] == ["A1", "B2"]
    entry = schema["properties"]["verdicts"]["properties"]["B2"]
    assert entry["properties"]["score"]["enum"] == [0, 1, 2]
