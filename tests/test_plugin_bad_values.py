"""Values no report can hold: an unpaired surrogate, an over-long text, a method score
outside 0-100. Each is refused where it enters, naming file, line and case; only the
item concerned is an error, and every other item is still reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import MINI_CASES, jsonl

from pytest_dictbench import suites
from pytest_dictbench.errors import SuiteError


def items(pytester: pytest.Pytester) -> dict[tuple[str, str], dict]:
    lines = (pytester.path / "reports" / "items.jsonl").read_text().splitlines()
    return {(r["product"], r["case_id"]): r for r in map(json.loads, lines)}


def right_outputs() -> list[dict]:
    return [{"case_id": c["id"], "text": c["reference"]} for c in MINI_CASES]


def test_an_unpaired_surrogate_in_an_output_is_that_items_error(
        pytester: pytest.Pytester, write_suite, write_product) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite()
    text = jsonl(right_outputs()).splitlines()
    text[0] = '{"case_id":"c1","text":"ok \\ud800 bad"}'
    write_product(outputs_text="\n".join(text) + "\n")
    result = pytester.runpytest("--product=p1")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.no_fnmatch_line("*Traceback*")
    found = items(pytester)
    assert len(found) == 4
    assert found[("p1", "c1")]["status"] == "error"
    assert "mini.jsonl:1: case 'c1': text holds an unpaired surrogate (U+D800 at character 4)" \
        in found[("p1", "c1")]["message"]


def test_an_unpaired_surrogate_in_a_reference_is_refused(
        pytester: pytest.Pytester, write_suite, write_product) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    root = write_suite()
    lines = (root / "cases.jsonl").read_text().splitlines()
    lines[1] = lines[1].replace("Please", "x\\udfff")
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n")
    write_product()
    result = pytester.runpytest("--product=p1")
    result.stdout.fnmatch_lines(["*cases.jsonl:2: *reference holds an unpaired surrogate*"])
    result.stdout.no_fnmatch_line("*Traceback*")


def test_an_over_long_output_is_that_items_error_and_other_products_keep_their_results(
        pytester: pytest.Pytester, write_suite, write_product) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite()
    outputs = right_outputs()
    outputs[1]["text"] = "a" * 1001
    write_product("p1", outputs=outputs)
    write_product("ok", outputs=right_outputs())
    result = pytester.runpytest("--product=p1", "--product=ok",
                                "--dictbench-max-text-chars=1000")
    result.assert_outcomes(passed=7, errors=1)
    found = items(pytester)
    assert len(found) == 8
    assert "mini.jsonl:2: case 'c2': text has 1,001 characters, more than the limit of 1,000" \
        in found[("p1", "c2")]["message"]
    assert (pytester.path / "reports" / "dictbench.json").is_file()


CONFTEST = '''
from pytest_dictbench.model import ItemResult

SCORES = {"c1": 150.0, "c2": float("nan"), "c3": -1.0, "c4": 100.0}

class BadMethod:
    name = "badm"
    case_schema = None
    def score(self, case, output, ctx):
        return ItemResult(passed=True, score=SCORES[case.id], metrics={"x": SCORES[case.id]})
    def aggregate(self, records, suite):
        return {}

def pytest_dictbench_methods():
    return [BadMethod()]
'''


def test_a_method_score_outside_0_to_100_is_an_item_error_naming_the_method(
        pytester: pytest.Pytester, write_suite, write_product) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    pytester.makeconftest(CONFTEST)
    write_suite(method="badm", params="")
    write_product()
    result = pytester.runpytest("--product=p1")
    result.assert_outcomes(passed=1, failed=3)
    found = items(pytester)
    assert len(found) == 4
    for case, shown in (("c1", "150.0"), ("c2", "nan"), ("c3", "-1.0")):
        record = found[("p1", case)]
        assert record["status"] == "error" and record["score"] is None
        assert f"method 'badm' gave score {shown} for this item" in record["message"]
    assert found[("p1", "c4")]["score"] == 100.0


def test_items_and_junit_list_rules_in_rubric_order(pytester: pytest.Pytester) -> None:
    from pytest_dictbench.plugin.junit import junit_properties
    from pytest_dictbench.plugin.session import record_line

    record = {"status": "passed", "score": 50.0,
              "rules": {r: {"score": 2} for r in ("A10", "A2", "A1", "B12", "B3")}}
    assert list(json.loads(record_line(record))["rules"]) == ["A1", "A2", "A10", "B3", "B12"]
    names = [name for name, _ in junit_properties(record) if name.startswith("dictbench.rule")]
    assert names == [f"dictbench.rule.{r}" for r in ("A1", "A2", "A10", "B3", "B12")]


_TEXTS = st.one_of(st.text(max_size=12), st.sampled_from(["\ud800", "a\udfffb", "x" * 9]))
_VALUES = st.one_of(st.none(), st.integers(), st.floats(allow_nan=False), _TEXTS,
                    st.lists(_TEXTS, max_size=3))


@given(st.one_of(_TEXTS, st.dictionaries(st.text(max_size=4), _VALUES, max_size=5)))
def test_the_quick_text_check_agrees_with_the_full_walk(value: object) -> None:
    """``check_text_sizes`` takes a short cut for flat ASCII values (``suites._plain``):
    it refuses exactly what the full walk refuses (limit 8 characters here)."""
    found = suites._text_problem(value, 8)
    try:
        suites.check_text_sizes(value, 8, SuiteError, path=Path("cases.jsonl"), line=1,
                                what="case c1: ")
    except SuiteError as exc:
        assert found is not None and found[1] in str(exc)
    else:
        assert found is None
