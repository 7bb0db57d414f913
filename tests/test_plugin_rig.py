"""Rig packages through real pytest runs: import, statuses, reports, export, live gate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyloudnorm  # noqa: F401
import pytest
import scipy.optimize  # noqa: F401
import soxr  # noqa: F401  (the canonical audio's true peak, measured on every import)
from rig_support import csv_text, row, write_package

REPO = Path(__file__).resolve().parent.parent
BUNDLED = REPO / "cases" / "mac-rig"


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """An in-process run. The calibration and speaker modules' C-extension dependencies
    are imported above, before pytester's module snapshot: importing them again inside a
    second in-process run fails."""
    return pytester.runpytest(*args, "-p", "no:cacheprovider")


def reports(folder: Path) -> dict[str, bytes]:
    return {n: (folder / n).read_bytes()
            for n in ("dictbench.json", "items.jsonl", "dictbench.md", "dictbench.html")}


@pytest.fixture
def bundled(pytester: pytest.Pytester) -> Path:
    target = pytester.path / "cases" / "mac-rig"
    shutil.copytree(BUNDLED, target)
    return target


def test_bundled_example_imports_scores_and_reports(pytester: pytest.Pytester,
                                                    bundled: Path) -> None:
    result = run(pytester, "cases/mac-rig", "--dictbench-results",
                 "cases/mac-rig/example-results.csv", "--junitxml=j.xml",
                 "--dictbench-results-out", "export.csv")
    # 105 rows + 3 cells without a row: failed -> failure, near-miss correction -> failure,
    # invalid -> error, not_tested / unsupported / blank -> skipped; echoline's 7 complete
    # rows of block 3 ran in an attempt whose calibration failed: invalid_rig, errors
    result.assert_outcomes(passed=88, failed=2, errors=8, skipped=10)
    result.stdout.fnmatch_lines([
        "mac-rig: one ranking per metric table, no overall ranking*",
        "  dictation, profile default: wer (lower is better): 1. murmurdesk *, 1. quillnote *",
        "mac-rig/(run): calibration block_3: invalid_rig: onset +25.0 ms*"])
    result.stdout.fnmatch_lines([
        "invalid run: dictation-en-us-general from echoline (row 83): EXAMPLE DATA*",
        "score 0.00: final transcript is not the exact target (remaining edit distance 1)",
        "run failed: file-en-us-interview from parlo (row 54): EXAMPLE DATA*"])
    folder = pytester.path / "reports"
    items = [json.loads(line) for line in (folder / "items.jsonl").read_text().splitlines()]
    assert {i["output_status"] for i in items} == {"complete", "not_tested", "unsupported",
                                                   "failed", "invalid", "blank"}
    report = json.loads((folder / "dictbench.json").read_text())
    [suite] = report["suites"]
    assert suite["leaderboard"] == [] and all(p["rank"] is None for p in suite["products"])
    wer = next(t for t in suite["rig"]["tables"] if t["metric"] == "wer"
               and t["workflow"] == "dictation" and t["locale"] is None)
    assert [(e["rank"], e["app_id"]) for c in wer["cohorts"] for e in c["entries"]] == [
        (1, "murmurdesk"), (1, "quillnote")]
    assert {p["product"]: p["output_statuses"] for p in suite["products"]}["parlo"] == {
        "complete": 19, "failed": 1, "not_tested": 1}
    junit = (pytester.path / "j.xml").read_text()
    for status in ("complete", "not_tested", "unsupported", "failed", "invalid", "blank"):
        assert f'name="dictbench.output_status" value="{status}"' in junit
    for name in ("dictbench.md", "dictbench.html"):
        text = (folder / name).read_text()
        assert "dictation, profile default: wer (lower is better)" in text
        assert "not ranked" in text and "no overall ranking" in text
        assert "Descriptive metadata of complete rows (never part of a score)" in text
    assert "<h3>Leaderboard</h3>" not in (folder / "dictbench.html").read_text()
    # rig validity (issue 12): the failed block calibration, the run-order violation and
    # the labelled meeting transcript with a merged turn, each with its reason
    invalid = [i for i in items if i["product"] == "echoline" and i["repetition"] == 3
               and i["output_status"] == "invalid"]
    assert len(invalid) == 7 and all("invalid_rig: block_3 calibration failed: onset +25.0 ms"
                                     in i["message"] for i in invalid)
    validity = suite["rig"]["validity"]
    assert [(b["block"], b["accepted"]) for b in validity["calibration"]] == [
        ("block_1", True), ("block_2", True), ("block_3", False), ("block_3#2", True)]
    assert {(v["app_id"], v["kind"]) for v in validity["schedule"]} == {
        ("murmurdesk", "block_order"), ("parlo", "block_order"), ("quillnote", "block_order"),
        ("echoline", "network")}  # block_3's first attempt lacks its end measurement
    [speakers] = validity["speakers"]
    assert speakers["app_id"] == "quillnote" and speakers["operator_disagrees"]
    assert "the labelled transcript gives 5 of 6" in speakers["note"]
    markdown = (folder / "dictbench.md").read_text()
    assert "invalid\\_rig: onset +25.0 ms from the stimulus" in markdown
    assert "block\\_1: started before quillnote, murmurdesk" in markdown
    # the exported CSV re-imports to byte-identical reports
    first = reports(folder)
    again = run(pytester, "cases/mac-rig", "--dictbench-results", "export.csv",
                "--dictbench-results-out", "export2.csv")
    again.assert_outcomes(passed=88, failed=2, errors=8, skipped=10)
    assert reports(folder) == first
    assert (pytester.path / "export.csv").read_bytes() == (
        pytester.path / "export2.csv").read_bytes()


def test_k_selects_an_app(pytester: pytest.Pytester, bundled: Path) -> None:
    result = run(pytester, "cases/mac-rig", "--dictbench-results",
                 "cases/mac-rig/example-results.csv", "-k", "quillnote", "--co", "-q")
    assert result.ret == 0
    ids = [line for line in result.outlines if "::" in line]
    assert len(ids) == 21 and all("[quillnote-r" in line for line in ids)


def test_statuses_map_to_pytest_outcomes(pytester: pytest.Pytester) -> None:
    write_package(pytester.path / "pkg")
    rows = [row(), row(rep=2, status="failed", notes="app hung"),
            row(rep=3, status="invalid", notes="invalid_rig"),
            row("app2", status="unsupported"), row("app2", rep=2, status="not_tested")]
    (pytester.path / "r.csv").write_text(csv_text(rows))
    result = run(pytester, "pkg", "--dictbench-results", "r.csv", "-rA")
    # app1: 1 passed, 1 failed, 1 error, + 6 blank cells; app2: 2 skipped + 7 blank cells
    result.assert_outcomes(passed=1, failed=1, errors=1, skipped=15)
    result.stdout.fnmatch_lines([
        "invalid run: dict-en from app1 (row 4): invalid_rig",
        "run failed: dict-en from app1 (row 3): app hung",
        "*unsupported: dict-en from app2 (row 5)*",
        "*not_tested: dict-en from app2 (row 6)*",
        "*blank: fix from app2 (no row in the results CSV)*"])


def test_a_refusal_names_the_row_and_column(pytester: pytest.Pytester) -> None:
    write_package(pytester.path / "pkg")
    (pytester.path / "r.csv").write_text(csv_text([row(), row(rep=5)]))
    result = run(pytester, "pkg", "--dictbench-results", "r.csv")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*r.csv: row 3, column repetition: '5' is outside 1..3*"])
    assert not (pytester.path / "reports" / "dictbench.json").exists()


def test_blank_template_with_closed_gate_gives_no_ranks(pytester: pytest.Pytester) -> None:
    """A faithful miniature of the public package as published: gate closed, header-only
    template, references only."""
    write_package(pytester.path / "pkg", ready=False)
    result = run(pytester, "pkg", "--dictbench-results", "pkg/results-template.csv")
    result.assert_outcomes(skipped=18)
    rig = json.loads((pytester.path / "reports" / "dictbench.json").read_text())[
        "suites"][0]["rig"]
    assert all(t["cohorts"] == [] for t in rig["tables"])
    first = rig["tables"][0]
    assert [n["app_id"] for n in first["not_ranked"]] == ["app1", "app2"]
    assert first["not_ranked"][0]["reasons"] == [
        "execution gate closed: no ranks are published (blocking: Record the audio.; Hash it.)",
        "dict-en: needs 3 complete repetitions; found 0 (r1 blank, r2 blank, r3 blank)"]
    verify = run(pytester, "pkg", "--dictbench-verify")
    verify.stdout.fnmatch_lines(["*benchmark-manifest-v1.json: execution gate is closed; "
                                 "blocking items: Record the audio., Hash it.*"])


def test_every_adapter_output_keeps_the_six_statuses(mini: pytest.Pytester,
                                                     write_product) -> None:
    write_product(outputs=[
        {"case_id": "c1", "text": "Hello Maria, see you at noon."},
        {"case_id": "c2", "status": "failed", "error": "timed out"},
        {"case_id": "c3", "status": "invalid", "error": "wrong audio route"},
        {"case_id": "c4", "status": "blank"},
    ])
    write_product("p2", outputs=[{"case_id": "c1", "status": "unsupported"},
                                 {"case_id": "c2", "status": "not_tested"}])
    result = mini.runpytest("--product=p1", "--product=p2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1, errors=1, skipped=5)
    result.stdout.fnmatch_lines(["*output error: product 'p1' case 'c2': failed: timed out*"])
    items = [json.loads(line) for line in
             (mini.path / "reports" / "items.jsonl").read_text().splitlines()]
    assert [(i["product"], i["case_id"], i["status"], i["output_status"]) for i in items] == [
        ("p1", "c1", "passed", "complete"), ("p1", "c2", "error", "failed"),
        ("p1", "c3", "error", "invalid"), ("p1", "c4", "not_tested", "blank"),
        ("p2", "c1", "not_tested", "unsupported"), ("p2", "c2", "not_tested", "not_tested"),
        ("p2", "c3", "not_tested", "not_tested"), ("p2", "c4", "not_tested", "not_tested")]
    report = json.loads((mini.path / "reports" / "dictbench.json").read_text())
    assert report["suites"][0]["products"][0]["output_statuses"] == {
        "blank": 1, "complete": 1, "failed": 1, "invalid": 1}


def test_rig_report_fits_the_report_schema(pytester: pytest.Pytester) -> None:
    from pytest_dictbench.schemas import validation_error

    write_package(pytester.path / "pkg")
    (pytester.path / "r.csv").write_text(csv_text([row(), row("app2")]))
    run(pytester, "pkg", "--dictbench-results", "r.csv")
    folder = pytester.path / "reports"
    assert validation_error(json.loads((folder / "dictbench.json").read_text()),
                            "report.schema.json") is None
    for line in (folder / "items.jsonl").read_text().splitlines():
        assert validation_error(json.loads(line), "item-record.schema.json") is None
