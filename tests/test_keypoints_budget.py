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


def _with_budget(pytester: pytest.Pytester, budget: str) -> None:
    manifest = pytester.path / "cases/jj/suite.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("[judge]\n", f"[judge]\nbudget_usd = {budget}\n", 1),
                        encoding="utf-8")


def _budget_field(pytester: pytest.Pytester) -> dict:
    import json

    report = json.loads((pytester.path / "reports/dictbench.json").read_text("utf-8"))
    return report["suites"][0]["judge_budget"]


def test_the_budget_spent_is_a_field_of_the_report(project: pytest.Pytester  # noqa: F811
                                                   ) -> None:
    """J12: dictbench.json says the budget, what was spent, what was not sent, and the
    worst case held for the requests sent beside their actual cost; the same figures
    with and without xdist."""
    _with_budget(project, "1.0")
    with MessagesServer(responder) as server:
        # jr-01's judges disagree on a key point: provisional, skipped until a person decides
        run(project, server, "--judge=live").assert_outcomes(passed=2, skipped=1)
        serial = _budget_field(project)
        # 3 items x (judge-a 2000 x $3 + 200 x $15, judge-b 2000 x $1 + 200 x $5) per Mtok
        assert serial["budget_usd"] == 1.0 and serial["requests_not_sent"] == 0
        assert serial["spent_usd"] == pytest.approx(3 * 0.009 + 3 * 0.003)
        assert serial["worst_case_usd"] >= serial["spent_usd"]
        (project.path / "judges/verdicts.jsonl").unlink()
        run(project, server, "--judge=live", "-n", "2").assert_outcomes(passed=2, skipped=1)
        assert _budget_field(project) == serial


def test_a_budget_that_stops_everything_says_so(project: pytest.Pytester  # noqa: F811
                                               ) -> None:
    _with_budget(project, "0.0001")
    with MessagesServer(responder) as server:
        run(project, server, "--judge=live")
        assert server.requests == []
    assert _budget_field(project) == {"budget_usd": 0.0001, "spent_usd": 0.0,
                                      "requests_not_sent": 6, "worst_case_usd": 0.0}
