"""Reports: schemas, contents, JUnit properties, and byte-identical output with xdist."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from pytest_dictbench.schemas import validation_error


def read_reports(pytester: pytest.Pytester) -> tuple[dict, list[dict]]:
    reports = pytester.path / "reports"
    report = json.loads((reports / "dictbench.json").read_text(encoding="utf-8"))
    items = [json.loads(x) for x in (reports / "items.jsonl").read_text().splitlines()]
    return report, items


def test_reports_follow_their_schemas(mini: pytest.Pytester) -> None:
    mini.runpytest("--product=p1")
    report, items = read_reports(mini)
    assert validation_error(report, "report.schema.json") is None
    for item in items:
        assert validation_error(item, "item-record.schema.json") is None
    assert validation_error({"schema_version": 2, "suites": []}, "report.schema.json")


def test_report_contents(mini: pytest.Pytester) -> None:
    mini.runpytest("--product=p1")
    report, items = read_reports(mini)
    entry = report["suites"][0]["products"][0]
    assert {k: entry[k] for k in ("items", "passed", "failed", "errors", "not_tested", "empty")} \
        == {"items": 4, "passed": 2, "failed": 1, "errors": 0, "not_tested": 1, "empty": 0}
    # c1 exact (100), c2 exact after normalisation (100), c3: 2 errors / 6 words.
    assert entry["score"] == pytest.approx((100 + 100 + 100 * (1 - 2 / 6)) / 3, abs=1e-6)
    summary = entry["tables"]["summary"]
    # pooled: (0 + 0 + 2) errors over (6 + 6 + 6) reference words
    assert summary["wer"] == pytest.approx(round(2 / 18, 6))
    assert entry["tables"]["words"] == {"ref": 18, "sub": 1, "del": 0, "ins": 1}
    assert [(i["case_id"], i["status"], i["score"]) for i in items] == [
        ("c1", "passed", 100.0), ("c2", "passed", 100.0), ("c3", "failed", 200 / 3),
        ("c4", "not_tested", None)]
    assert items[2]["rules"]["WER"]["score"] == 0
    assert items[1]["latency_ms"] == 120
    info = json.loads((mini.path / "reports/run-info.json").read_text())
    assert "finished_utc" in info and "finished_utc" not in json.dumps(report)


def test_report_folder_option(mini: pytest.Pytester) -> None:
    mini.runpytest("--product=p1", "--dictbench-report=out/here")
    assert (mini.path / "out/here/dictbench.json").is_file()
    assert not (mini.path / "reports").exists()


def junit_props(pytester: pytest.Pytester) -> dict[str, dict[str, str]]:
    tree = ET.parse(pytester.path / "junit.xml")
    return {case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
            for case in tree.iter("testcase")}


def test_junit_properties(mini: pytest.Pytester) -> None:
    result = mini.runpytest("--product=p1", "--junitxml=junit.xml")
    result.stdout.no_fnmatch_line("*record_property*")
    props = junit_props(mini)
    assert props["c3[p1]"] == {"dictbench.status": "failed", "dictbench.verdict": "fail",
                               "dictbench.output_status": "complete",
                               "dictbench.score": "66.6667", "dictbench.rule.WER": "0"}
    assert props["c4[p1]"] == {"dictbench.status": "not_tested",
                               "dictbench.verdict": "not_tested",
                               "dictbench.output_status": "not_tested"}
    assert "dictbench.record" not in (mini.path / "junit.xml").read_text()


def test_junit_properties_can_be_turned_off(mini: pytest.Pytester) -> None:
    mini.makeini("[pytest]\ndictbench_suites = cases/mini\ndictbench_junit_properties = false\n")
    mini.runpytest("--product=p1", "--junitxml=junit.xml")
    assert all(p == {} for p in junit_props(mini).values())
    assert "<properties" not in (mini.path / "junit.xml").read_text()


def test_reports_identical_across_runs_and_with_xdist(mini: pytest.Pytester, write_product
                                                     ) -> None:
    write_product("p2", outputs=[{"case_id": "c1", "text": "Hello Mario, see you at new."},
                                 {"case_id": "c4", "text": "Buy milk eggs and bred"}])

    def run(*args: str) -> tuple[bytes, ...]:
        result = mini.runpytest_subprocess("--product=p1", "--product=p2", *args)
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        reports = mini.path / "reports"
        names = ("dictbench.json", "items.jsonl", "dictbench.md", "dictbench.html")
        return tuple((reports / name).read_bytes() for name in names)

    serial = run("-p", "no:xdist")
    assert run("-n", "0") == serial
    assert run("-n", "2") == serial
