"""The terminal says how much of the budget was spent and how many requests it stopped
(J12, terminal part)."""

from __future__ import annotations

import pytest
from judge_server import MessagesServer
from test_keypoints_plugin import project, responder, run  # noqa: F401


def test_the_budget_line(project: pytest.Pytester) -> None:  # noqa: F811
    manifest = project.path / "cases/jj/suite.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("[judge]\n", "[judge]\nbudget_usd = 0.03\n", 1),
                        encoding="utf-8")
    with MessagesServer(responder) as server:
        result = run(project, server, "--judge=live")
    result.stdout.fnmatch_lines(["*[[]judge[]] ja-journal: budget_usd 0.03: spent $0.0*, "
                                 "* request(s) not sent*"])


def test_a_case_whose_answer_cannot_fit_max_tokens_is_named(
        project: pytest.Pytester) -> None:  # noqa: F811
    """J33: the expected answer (20 + 30 x rules tokens) beyond a judge's max_tokens."""
    manifest = project.path / "cases/jj/suite.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace('model = "model-a"\n', 'model = "model-a"\nmax_tokens = 100\n',
                                     1), encoding="utf-8")
    with MessagesServer(responder) as server:
        result = run(project, server, "--judge=replay")
    result.stdout.fnmatch_lines(["*case 'jr-01' needs about * output tokens*judge 'judge-a'"
                                 "*max_tokens 100*"])
