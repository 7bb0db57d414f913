"""A private journal suite judged by two judges: every report is built, nothing private
is in any of them (J1, J2)."""

from __future__ import annotations

import json
from importlib.metadata import version

import pytest
from judge_server import MessagesServer, Recorded, Reply, message_body
from test_keypoints_plugin import KEY, _cases, key_point_ids, project, run  # noqa: F401

from pytest_dictbench.methods.keypoints.names import extract_names

INSERTED = ["雨が降っていた", "猫が鳴いた", "電話が鳴った", "窓が割れた"]


def four_insertions(request: Recorded) -> Reply:
    verdicts = {k: {"verdict": "present", "reason": "kept"} for k in key_point_ids(request.body)}
    return Reply(body=message_body({"key_points": verdicts, "insertions": INSERTED}))


def _make_private(project: pytest.Pytester) -> None:  # noqa: F811
    manifest = project.path / "cases/jj/suite.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("repetitions = 1\n", "repetitions = 1\nprivate = true\n",
                                     1), encoding="utf-8")


def _secrets() -> list[str]:
    """References, key point texts and every extracted name/number of the references."""
    found: set[str] = set()
    for case in _cases(3):
        found.add(case["reference"])
        found.update(p["text"] for p in case["key_points"])
        found.update(s for s in case["reference"].split("。") if len(s) >= 6)
        found.update(i for i in extract_names(case["reference"]).items if len(i) >= 2)
        found.add(case["id"])
    found.update(INSERTED)
    return sorted(found)


def test_private_journal_suite_builds_every_report_with_nothing_private(
        project: pytest.Pytester) -> None:  # noqa: F811
    _make_private(project)
    with MessagesServer(four_insertions) as server:
        result = run(project, server, "--judge=live", "--junitxml=junit.xml")
    printed = result.stdout.str() + result.stderr.str()
    assert "building the reports failed" not in printed, printed
    reports = project.path / "reports"
    for name in ("dictbench.json", "dictbench.md", "dictbench.html", "items.jsonl"):
        assert (reports / name).is_file(), name
    report = json.loads((reports / "dictbench.json").read_text(encoding="utf-8"))
    product = report["suites"][0]["products"][0]
    agree = product["judging"]["agreement"]
    assert agree["counts"]["insertions"] == {"n": 3, "exact": 3, "share": 1.0,
                                             "mean_abs_diff": 0.0}
    analyser = product["tables"]["analyser"]
    assert analyser["dictionary"] == "sudachidict_core" and analyser["split_mode"] == "B"
    assert analyser["dictionary_version"] == version("sudachidict_core")
    assert analyser["analyser_version"] == version("sudachipy")
    rows = product["tables"]["items"]
    assert len(rows) == 3 and all(r["case_id"].startswith("p-") for r in rows)
    assert all("names_reference" not in r and r["names_reference_count"] >= 0 for r in rows)
    assert product["tables"]["summary"]["insertions"] == 12
    written = [p for p in reports.rglob("*") if p.is_file()] + [project.path / "junit.xml"]
    secrets = _secrets()
    for path in written:
        content = path.read_text(encoding="utf-8")
        for secret in secrets:
            assert secret not in content, (path.name, secret)
    for secret in secrets:
        assert secret not in printed, secret
