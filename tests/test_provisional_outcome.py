"""One provisional outcome for every method: a score still waiting for a verdict is
skipped in pytest's results and JUnit (with the reason), counted as no pass, and left out
of paired comparisons (findings J38, J39; issue 24)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from judge_support import write_ja_project

JOURNAL = Path(__file__).parents[1] / "cases" / "ja-journal"


def junit_cases(path: Path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    return {case.get("name", ""): case for case in root.iter("testcase")}


def props(case: ET.Element) -> dict[str, str]:
    return {p.get("name", ""): p.get("value", "") for p in case.iter("property")}


def summary(root: Path) -> dict[str, Any]:
    report = json.loads((root / "reports" / "dictbench.json").read_text(encoding="utf-8"))
    return report["suites"][0]


def test_a_journal_item_without_verdicts_is_skipped_as_provisional(
        pytester: pytest.Pytester) -> None:
    lines = (JOURNAL / "cases.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    cases = [json.loads(line) for line in lines]
    suite = pytester.path / "cases" / "jj"
    suite.mkdir(parents=True)
    (suite / "cases.jsonl").write_text("".join(
        json.dumps({k: v for k, v in c.items() if k != "audio"}, ensure_ascii=False) + "\n"
        for c in cases), encoding="utf-8")
    manifest = (JOURNAL / "suite.toml").read_text(encoding="utf-8").split("[judge]")[0]
    (suite / "suite.toml").write_text(manifest.split("[[files]]")[0], encoding="utf-8")
    (pytester.path / "products" / "p").mkdir(parents=True)
    (pytester.path / "products" / "p.toml").write_text(
        'name = "p"\nversion = "1"\nadapter = "cache"\n')
    (pytester.path / "products" / "p" / "ja-journal.jsonl").write_text("".join(
        json.dumps({"case_id": c["id"], "text": c["reference"]}, ensure_ascii=False) + "\n"
        for c in cases), encoding="utf-8")
    pytester.makeini("[pytest]\ndictbench_suites = cases/jj\n")
    result = pytester.runpytest("--product=p", "--judge=off", "-rs", "--junitxml=j.xml")
    # the old outcome: "2 passed", so a CI without judges saw green
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(
        ["*provisional: 5 unjudged (k1, k2, k3, k4, insertions): no verdict*"])
    junit = junit_cases(pytester.path / "j.xml")
    first = junit[f"{cases[0]['id']}[p]"]
    skipped = first.find("skipped")
    assert skipped is not None and "provisional: 5 unjudged" in skipped.get("message", "")
    assert props(first)["dictbench.verdict"] == "provisional"
    assert props(first)["dictbench.provisional"] == "5"
    record = json.loads((pytester.path / "reports" / "items.jsonl").read_text(
        encoding="utf-8").splitlines()[0])
    # one vocabulary: the record's count and the metric agree
    assert record["provisional"] == record["metrics"]["provisional"] == 5
    entry = summary(pytester.path)["products"][0]
    assert entry["passed"] == 0 and entry["provisional"] == {"unjudged": 11, "items": 2}


def test_rubric_provisional_items_are_skipped_and_left_out_of_comparisons(
        pytester: pytest.Pytester) -> None:
    cases = write_ja_project(pytester.path, judges="")
    # q gives every known answer (final scores); p gives ja-002's too, the rest without 。
    # (unjudged rules: provisional)
    known = {c["id"]: c["expected"][0] for c in cases}
    (pytester.path / "products" / "q").mkdir()
    (pytester.path / "products" / "q.toml").write_text(
        'name = "q"\nversion = "1"\nadapter = "cache"\n')
    (pytester.path / "products" / "q" / "ja-dictation.jsonl").write_text("".join(
        json.dumps({"case_id": k, "text": v}, ensure_ascii=False) + "\n"
        for k, v in known.items()), encoding="utf-8")
    outputs = pytester.path / "products" / "p" / "ja-dictation.jsonl"
    lines = [json.loads(line) for line in outputs.read_text(encoding="utf-8").splitlines()]
    lines[1]["text"] = known["ja-002"]
    outputs.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines),
                       encoding="utf-8")
    pytester.makeini("[pytest]\ndictbench_suites = cases/ja\n")
    result = pytester.runpytest("--product=p", "--product=q", "--judge=off", "-rs",
                                "--dictbench-item-failures=report")
    waiting = [json.loads(line) for line in (pytester.path / "reports" / "items.jsonl")
               .read_text(encoding="utf-8").splitlines()]
    provisional = {(r["product"], r["case_id"]) for r in waiting if r["provisional"]}
    assert provisional and all(p == "p" for p, _ in provisional)
    passed = sum(1 for r in waiting if r["status"] == "passed" and not r["provisional"])
    result.assert_outcomes(skipped=len(provisional), passed=passed,
                           failed=sum(r["status"] == "failed" for r in waiting))
    result.stdout.fnmatch_lines(["*provisional: * unjudged (*): needs judgement; no verdict*"])
    (comparison,) = summary(pytester.path)["comparisons"]
    # only the cases final on both sides are compared; the others are counted
    final_p = 3 - len(provisional)
    assert (comparison["n"], comparison["cases_a"], comparison["cases_b"]) == (final_p,
                                                                                final_p, 3)
    assert (comparison["provisional_a"], comparison["provisional_b"]) == (len(provisional), 0)
    result.stdout.fnmatch_lines([f"*provisional, left out: p {len(provisional)}, q 0*"])
