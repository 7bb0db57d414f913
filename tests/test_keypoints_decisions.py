"""Decisions naming a key point the case does not have are warned about with file:line;
a bad decision's message shows a valid line (J40)."""

from __future__ import annotations

import json

import pytest
from judge_server import MessagesServer
from test_keypoints_plugin import _cases, project, responder, run  # noqa: F401

from pytest_dictbench.errors import JudgeError
from pytest_dictbench.judge.adjudications import load_decisions


def test_a_decision_for_an_unknown_key_point_is_warned_about(
        project: pytest.Pytester) -> None:  # noqa: F811
    case = _cases(1)[0]
    decision = {"suite": "ja-journal", "case": case["id"], "product": "p",
                "output_hash": "0" * 64, "rule": "k9", "score": 2, "reason": "r",
                "decided_by": "t"}
    (project.path / "judges").mkdir(exist_ok=True)
    (project.path / "judges/adjudications.jsonl").write_text(json.dumps(decision) + "\n")
    with MessagesServer(responder) as server:
        result = run(project, server, "--judge=replay")
    result.stdout.fnmatch_lines(["*adjudications.jsonl:1: decision for rule 'k9' of case "
                                 f"'{case['id']}'*has no such rule*"])


def test_a_bad_decision_shows_a_valid_line(tmp_path) -> None:
    path = tmp_path / "adjudications.jsonl"
    path.write_text(json.dumps({"suite": "s", "case": "c", "product": "p",
                                "output_hash": "0" * 64, "rule": "k3", "verdict": "present",
                                "reason": "r", "decided_by": "t"}) + "\n")
    with pytest.raises(JudgeError, match=r'adjudications.jsonl:1.*score.*e\.g\. \{"rule": '
                                         r'"k3", "score": 0'):
        load_decisions(path)
