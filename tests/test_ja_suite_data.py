"""Data checks for the bundled ``cases/ja-dictation`` suite and its two example products.

The tests read the files directly (no plugin, no rubric code) so that a broken data edit
is caught even while the loader and the rubric method are being written. Word matching
here is plain substring search, independent of the rubric's token-aware matcher.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.schemas import validation_error

REPO_ROOT = Path(__file__).resolve().parent.parent
SUITE_DIR = REPO_ROOT / "cases" / "ja-dictation"
CASES_PATH = SUITE_DIR / "cases.jsonl"
MANIFEST_PATH = SUITE_DIR / "suite.toml"
SCHEMA_NAME = "case-rubric.schema.json"
SCHEMA_PATH = REPO_ROOT / "pytest_dictbench" / "schemas" / SCHEMA_NAME
STRONG_PATH = REPO_ROOT / "products" / "example" / "ja-dictation.jsonl"
WEAK_PATH = REPO_ROOT / "products" / "example-weak" / "ja-dictation.jsonl"
WEAK_TOML = REPO_ROOT / "products" / "example-weak.toml"

CANARY = "DICTBENCH-CANARY ja-dictation 2b8e5f4a-7c1d-4e9b-a3f6-5d0c8e2b7a19"
REQUIRED_KEYS = {
    "id", "canary", "genre", "short", "source", "script", "expected", "must",
    "proper_nouns", "forbid", "homophones", "terms", "numbers", "rules",
}  # fmt: skip
OPTIONAL_KEYS = {"alternatives", "enumeration", "context", "tags", "audio"}
MIN_PER_GENRE = {"chat": 28, "notes": 18, "email": 9, "ai_instruction": 9}
SOURCES = {"core", "format", "extra"}
RULE_IDS = (
    {f"A{n}" for n in range(1, 13)} | {f"B{n}" for n in range(1, 9)}
    | {f"C{n}" for n in range(1, 12)} | {f"D{n}" for n in range(1, 16)}
)  # fmt: skip
#: Rules with an automated check; each must be exercised by at least three items.
AUTOMATED = ("A1", "A2", "A3", "B1", "B2", "B3", "B4", "C1", "C4", "C8",
             "D1", "D2:exact", "D2:flexible", "D3", "D4", "D14")  # fmt: skip
#: A bullet or numbered list line in an expected output (house style: "- ").
LIST_LINE = re.compile(r"^(?:- |・|\d+\. )\S")
OUTPUT_KEYS = {"case_id", "text", "latency_ms", "status", "error"}
#: Tag -> what in the case data it must agree with.
TAG_RULES = {"contrast": "A9", "question": "A10", "hedge": "A6", "negation": "A4"}


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _variants(entry: str | list[str]) -> list[str]:
    return [entry] if isinstance(entry, str) else list(entry)


def _has_any(text: str, variants: list[str]) -> bool:
    return any(v in text for v in variants)


def _list_lines(text: str) -> list[int]:
    return [i for i, line in enumerate(text.split("\n")) if LIST_LINE.match(line)]


def _forbidden_hits(case: dict[str, Any], text: str, allowed: set[str]) -> list[str]:
    """Forbidden spellings found in ``text``, except those of a rule in ``allowed``."""
    hits = [f["text"] for f in case["forbid"] if f["rule"] not in allowed and f["text"] in text]
    if "D2" not in allowed:
        hits += [w for t in case["terms"] for w in t["wrong"] if w in text]
    hits += [
        v for n in case["numbers"] if n["rule"] not in allowed for v in n["variants"] if v in text
    ]
    if "D1" not in allowed:
        hits += [w for h in case["homophones"] for w in h["wrong"] if w in text]
    return hits


def _missing(case: dict[str, Any], text: str, allowed: set[str] = frozenset()) -> list[str]:
    """Must words, names, terms, numbers and homophones absent from ``text`` (those whose
    rule is in ``allowed``, as listed for an error example, may be absent)."""
    entries = [_variants(e) for e in case["must"]] if "A1" not in allowed else []
    entries += [_variants(e) for e in case["proper_nouns"]] if "A2" not in allowed else []
    if not {"A1", "D2"} & allowed:
        entries += [[t["text"], *t["variants"]] for t in case["terms"]]
    entries += [n["notations"] for n in case["numbers"] if n["rule"] not in allowed]
    if "D1" not in allowed:
        entries += [[h["correct"]] for h in case["homophones"]]
    return [e[0] for e in entries if not _has_any(text, e)]


def exercised_rules(case: dict[str, Any]) -> set[str]:
    """Automated rules for which the case holds data that the checks use."""
    found: set[str] = {f["rule"] for f in case["forbid"]}
    found |= {"A1"} if case["must"] else set()
    found |= {"A2"} if case["proper_nouns"] else set()
    found |= {"A3"} | {n["rule"] for n in case["numbers"]} if case["numbers"] else set()
    found |= {"D1"} if case["homophones"] else set()
    found |= {f"D2:{t['kind']}" for t in case["terms"]}
    if case.get("enumeration"):
        found |= {"C1", "C4"} if case["enumeration"]["as_list"] else {"C8"}
    found |= {"C8"} if case["short"] and "C8" in case["rules"] else set()
    found |= {"D14"} if re.search(r"[A-Za-z]", case["expected"][0]) else set()
    return found & set(AUTOMATED)


@pytest.fixture(scope="module")
def cases() -> list[dict[str, Any]]:
    return _read_jsonl(CASES_PATH)


@pytest.fixture(scope="module")
def by_id(cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {case["id"]: case for case in cases}


def _passing_texts(case: dict[str, Any]) -> Iterator[tuple[str, str, set[str]]]:
    """(label, text, rules the text is allowed to miss) for every expected and alternative."""
    for i, text in enumerate(case["expected"]):
        yield f"{case['id']} expected[{i}]", text, set()
    for i, alt in enumerate(case.get("alternatives", [])):
        yield f"{case['id']} alternatives[{i}]", alt["text"], set(alt["rules"])


# ---------------------------------------------------------------- manifest and file


def test_manifest_declares_the_rubric_suite() -> None:
    manifest = tomllib.loads(MANIFEST_PATH.read_text(encoding="utf-8"))
    assert validation_error(manifest, "suite.schema.json") is None
    assert (manifest["id"], manifest["version"], manifest["method"]) == (
        "ja-dictation",
        "1.0.0",
        "rubric",
    )
    assert manifest["locale"] == "ja-JP" and manifest["canary"] == CANARY
    assert manifest["repetitions"] == 1 and manifest["title"].strip()
    assert manifest["params"] == {"weights": {"A": 50, "B": 25, "C": 10, "D": 15}, "gate": "A"}
    listed = {entry["path"]: entry["sha256"] for entry in manifest["files"]}
    assert list(listed) == ["cases.jsonl"] + [f"audio/ja-{i:03d}.flac" for i in range(1, 68)]
    assert listed["cases.jsonl"] == hashlib.sha256(CASES_PATH.read_bytes()).hexdigest(), (
        "re-hash cases.jsonl after editing it"
    )


def test_cases_file_is_plain_utf8_jsonl_with_the_case_keys() -> None:
    raw = CASES_PATH.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf") and b"\r" not in raw and b"\\u" not in raw
    for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        record = json.loads(line)
        assert isinstance(record, dict), f"line {number}"
        keys = set(record)
        assert REQUIRED_KEYS <= keys <= REQUIRED_KEYS | OPTIONAL_KEYS, f"line {number}: {keys}"


def test_ids_are_unique_and_sequential_and_canary_is_on_every_line(
    cases: list[dict[str, Any]],
) -> None:
    ids = [case["id"] for case in cases]
    assert ids == [f"ja-{n:03d}" for n in range(1, len(ids) + 1)]
    assert len(set(ids)) == len(ids) >= 64
    assert all(case["canary"] == CANARY for case in cases)
    assert CASES_PATH.read_text(encoding="utf-8").count(CANARY) == len(cases)


def test_every_case_validates_against_the_rubric_schema(cases: list[dict[str, Any]]) -> None:
    # Deliberately not a skip: the suite is unusable until the rubric schema exists.
    assert SCHEMA_PATH.is_file(), f"{SCHEMA_PATH} is missing"
    problems = {c["id"]: validation_error(c, SCHEMA_NAME) for c in cases}
    assert {k: v for k, v in problems.items() if v} == {}


# ---------------------------------------------------------------- field values


def test_field_values_are_well_formed(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        cid = case["id"]
        assert case["genre"] in MIN_PER_GENRE and case["source"] in SOURCES, cid
        assert isinstance(case["short"], bool), cid
        assert 1 <= len(case["expected"]) <= 3, cid
        assert len(set(case["expected"])) == len(case["expected"]), cid
        assert all(isinstance(t, str) and t.strip() == t and t for t in case["expected"]), cid
        assert set(case["rules"]) <= RULE_IDS and case["rules"], cid
        assert {f["rule"] for f in case["forbid"]} <= RULE_IDS, cid
        assert all(f["text"] and f["note"] for f in case["forbid"]), cid
        assert all(n["rule"] in {"D3", "D4"} and n["notations"] for n in case["numbers"]), cid
        assert all(t["kind"] in {"exact", "flexible"} for t in case["terms"]), cid
        for alt in case.get("alternatives", []):
            assert alt["rules"] and set(alt["rules"]) <= RULE_IDS, cid
            assert set(alt["rules"].values()) <= {0, 1}, cid
            assert alt["text"] not in case["expected"], cid
        tags = case.get("tags", [])
        assert len(tags) == len(set(tags)), cid
        assert all(re.fullmatch(r"[a-z][a-z0-9_]*", tag) for tag in tags), cid


def test_counts_per_genre_and_source(cases: list[dict[str, Any]]) -> None:
    genres = Counter(case["genre"] for case in cases)
    assert all(genres[g] >= n for g, n in MIN_PER_GENRE.items()), genres
    assert set(Counter(case["source"] for case in cases)) == SOURCES


def test_scripts_are_spoken_forms(cases: list[dict[str, Any]]) -> None:
    """English terms in katakana, numbers in kanji or kana: no Latin letters, no digits."""
    for case in cases:
        assert case["script"].strip(), case["id"]
        assert not re.search(r"[A-Za-z0-9Ａ-Ｚａ-ｚ０-９%％]", case["script"]), case["id"]


def test_tags_agree_with_the_case_data(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        tags, cid = set(case.get("tags", [])), case["id"]
        rules_of_forbid = {f["rule"] for f in case["forbid"]}
        assert ("self_correction" in tags) == ("B2" in rules_of_forbid), cid
        assert ("filler" in tags) == ("B1" in rules_of_forbid), cid
        assert ("repetition" in tags) == ("B4" in rules_of_forbid), cid
        assert ("enumeration" in tags) == case.get("enumeration", {}).get("as_list", False), cid
        assert ("homophone" in tags) == bool(case["homophones"]), cid
        assert ("english_term" in tags) == bool(case["terms"]), cid
        assert ("numbers" in tags) == bool(case["numbers"]), cid
        assert ("context" in tags) == ("context" in case), cid
        assert not ("long" in tags and case["short"]), cid
        for tag, rule in TAG_RULES.items():
            assert tag not in tags or rule in case["rules"], (cid, tag)


# ---------------------------------------------------------------- expected outputs


def test_expected_and_alternatives_keep_every_required_form(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        for label, text, allowed in _passing_texts(case):
            assert _missing(case, text, allowed) == [], label


def test_expected_and_alternatives_contain_nothing_forbidden(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        for label, text, allowed in _passing_texts(case):
            assert _forbidden_hits(case, text, allowed) == [], label


def test_a_third_of_the_items_carry_an_alternative_or_an_error_example(
    cases: list[dict[str, Any]],
) -> None:
    with_alternatives = [c for c in cases if c.get("alternatives")]
    assert 3 * len(with_alternatives) >= len(cases)  # 24 of 67
    errors = [c for c in with_alternatives if any(0 in a["rules"].values()
                                                  for a in c["alternatives"])]
    assert len(errors) >= 10
    # a digit-grouping variant is a light D3 slip (1), not an error (0)
    grouping = [a for c in cases for a in c.get("alternatives", ()) if "12,000,000円" in a["text"]]
    assert [a["rules"] for a in grouping] == [{"D3": 1}]


def test_no_homophone_is_also_a_must_keep_word(cases: list[dict[str, Any]]) -> None:
    # 5 of 14 homophone pairs were also must-keep words, gating a D1 slip as A1
    from pytest_dictbench.methods.rubric.lint import lint_case

    assert [p for case in cases for p in lint_case(case) if "homophone" in p] == []
    ja015 = next(c for c in cases if c["id"] == "ja-015")
    assert ["異動", "移動"] in ja015["must"]


def test_forbidden_disfluencies_come_from_the_script(cases: list[dict[str, Any]]) -> None:
    """Each filler, correction marker and repetition to remove is really spoken."""
    for case in cases:
        script = case["script"]
        for entry in case["forbid"]:
            kana_filler = entry["rule"] == "B1" and re.fullmatch(r"[ぁ-んー]+", entry["text"])
            spoken_repeat = entry["rule"] == "B4" and "、" in entry["text"]
            if kana_filler or spoken_repeat or entry["rule"] == "B3":
                assert entry["text"] in script, (case["id"], entry)
        # a corrected word may be forbidden in several spellings; one of them was spoken
        corrected = [f["text"] for f in case["forbid"] if f["rule"] == "B2"]
        assert not corrected or _has_any(script, corrected), case["id"]


def test_short_items_are_one_paragraph(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        if case["short"]:
            assert all("\n" not in text for text in case["expected"]), case["id"]
    assert sum(not case["short"] for case in cases) >= 10


def test_enumerations_are_laid_out_in_house_style(cases: list[dict[str, Any]]) -> None:
    """Lead line ending in 。 or a colon, blank line, then one line per item."""
    listed = [case for case in cases if case.get("enumeration")]
    as_list = [case for case in listed if case["enumeration"]["as_list"]]
    assert sum(len(case["enumeration"]["items"]) >= 3 for case in as_list) >= 6
    for case in listed:
        items = case["enumeration"]["items"]
        for label, text, allowed in _passing_texts(case):
            assert all(_has_any(text, item) for item in items), label
            lines, rows = text.split("\n"), _list_lines(text)
            if "C1" in allowed or not case["enumeration"]["as_list"]:
                assert rows == [], label
                continue
            assert len(rows) == len(items) and rows == list(range(rows[0], rows[-1] + 1)), label
            blank_before = rows[0] >= 2 and lines[rows[0] - 1] == ""
            assert blank_before != ("C4" in allowed), label
            lead = lines[rows[0] - 2] if blank_before else lines[rows[0] - 1]
            assert lead.endswith(("。", ":", ":")), label


def test_every_automated_rule_is_exercised_by_three_items(cases: list[dict[str, Any]]) -> None:
    counts = Counter(rule for case in cases for rule in exercised_rules(case))
    assert {rule: counts[rule] for rule in AUTOMATED if counts[rule] < 3} == {}


def test_phenomena_are_covered(cases: list[dict[str, Any]]) -> None:
    def tagged(tag: str) -> list[dict[str, Any]]:
        return [case for case in cases if tag in case.get("tags", [])]

    corrections, contrasts = tagged("self_correction"), tagged("contrast")
    assert sum("じゃなくて" in case["script"] for case in corrections) >= 3
    assert len(contrasts) >= 3 and all("じゃなくて" in case["script"] for case in contrasts)
    for case in tagged("question"):
        assert all(re.search(r"[?？]|か[。、]", t) for t in case["expected"]), case["id"]
    hedges = " ".join(case["expected"][0] for case in tagged("hedge"))
    assert all(form in hedges for form in ("かも", "と思", "はず", "に違いない"))
    assert len([c for c in cases if c["homophones"]]) >= 6
    for kind in ("exact", "flexible"):
        assert len([c for c in cases if any(t["kind"] == kind for t in c["terms"])]) >= 6
    assert len([c for c in cases if c["numbers"]]) >= 10
    assert len([c for c in cases if c.get("context")]) >= 4
    assert len([c for c in cases if c["script"].startswith(("えー", "えっと", "あの"))]) >= 3


# ---------------------------------------------------------------- example products


def _outputs(path: Path) -> list[dict[str, Any]]:
    raw = path.read_text(encoding="utf-8")
    assert "DICTBENCH-CANARY" not in raw and CANARY not in raw
    outputs = _read_jsonl(path)
    for output in outputs:
        assert set(output) <= OUTPUT_KEYS and "case_id" in output, output
        assert validation_error(output, "output.schema.json") is None, output
        assert isinstance(output["latency_ms"], int) and output["latency_ms"] > 0, output
    return outputs


def _differs(case: dict[str, Any], text: str) -> bool:
    """Not one of the expected outputs (a lower-scored alternative counts as a mistake)."""
    return text not in case["expected"]


#: The labelled mistakes of the strong example product, by kind.
STRONG_MISTAKES = {
    "ja-003": "filler", "ja-037": "pre_correction", "ja-024": "homophone",
    "ja-053": "katakana_term", "ja-002": "kanji_number", "ja-060": "question_lost",
    "ja-052": "run_on_list", "ja-031": "dropped_word",
}  # fmt: skip


def _shows(kind: str, case: dict[str, Any], text: str) -> bool:
    """Whether ``text`` shows a mistake of ``kind``, judged from the case data alone."""
    forbid = {f["text"]: f["rule"] for f in case["forbid"]}
    checks = {
        "filler": lambda: any(t in text for t, r in forbid.items() if r == "B1"),
        "pre_correction": lambda: any(t in text for t, r in forbid.items() if r == "B2"),
        "homophone": lambda: any(w in text for h in case["homophones"] for w in h["wrong"]),
        "katakana_term": lambda: any(
            w in text for t in case["terms"] if t["kind"] == "exact" for w in t["wrong"]
        ),
        "kanji_number": lambda: any(
            not _has_any(text, n["notations"]) and _has_any(text, n["variants"])
            for n in case["numbers"]
        ),
        "question_lost": lambda: (
            text == re.sub(r"[?？]$", "。", case["expected"][0]) and text != case["expected"][0]
        ),
        "run_on_list": lambda: _list_lines(text) == [] and _missing(case, text) == [],
        "dropped_word": lambda: _missing(case, text) != [],
    }
    return checks[kind]()


def test_strong_example_has_its_labelled_mistakes_an_error_and_a_gap(
    by_id: dict[str, dict[str, Any]],
) -> None:
    outputs = _outputs(STRONG_PATH)
    answered = [o["case_id"] for o in outputs]
    assert len(answered) == len(set(answered)) and set(answered) <= set(by_id)
    assert len(set(by_id) - set(answered)) == 1
    errors = [o for o in outputs if o.get("status") == "error"]
    assert len(errors) == 1 and errors[0]["error"] == "capture timeout"
    assert "text" not in errors[0]
    scored = [o for o in outputs if o.get("status", "complete") == "complete"]
    wrong = {o["case_id"] for o in scored if _differs(by_id[o["case_id"]], o["text"])}
    assert wrong == set(STRONG_MISTAKES)
    for cid, kind in STRONG_MISTAKES.items():
        text = next(o["text"] for o in scored if o["case_id"] == cid)
        assert _shows(kind, by_id[cid], text), (cid, kind)


def test_weak_example_answers_every_case_with_many_mistakes(
    by_id: dict[str, dict[str, Any]],
) -> None:
    outputs = _outputs(WEAK_PATH)
    assert sorted(o["case_id"] for o in outputs) == sorted(by_id)
    assert all(o.get("status", "complete") == "complete" and o["text"] for o in outputs)
    wrong = [o for o in outputs if _differs(by_id[o["case_id"]], o["text"])]
    assert 20 <= len(wrong) <= 30
    lost_content = [o for o in wrong if _missing(by_id[o["case_id"]], o["text"])]
    assert len(lost_content) >= 5


def test_weak_example_product_file() -> None:
    product = tomllib.loads(WEAK_TOML.read_text(encoding="utf-8"))
    assert validation_error(product, "product.schema.json") is None
    assert (product["name"], product["adapter"]) == ("example-weak", "cache")
    assert product["description"].startswith("EXAMPLE DATA")
    assert product["environment"] == {"hardware": "example", "os": "example"}


def test_mistake_detector_notices_each_kind(by_id: dict[str, dict[str, Any]]) -> None:
    # Guard for the labelled-mistake test: the correct text shows none of the mistakes.
    for cid, kind in STRONG_MISTAKES.items():
        assert not _shows(kind, by_id[cid], by_id[cid]["expected"][0]), (cid, kind)
