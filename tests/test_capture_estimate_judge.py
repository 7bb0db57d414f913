"""``--capture-estimate`` also counts the judge calls a selection needs (issue 46:
estimates include everything a run pays for), with the ``--judge-estimate`` code."""

from __future__ import annotations

import pytest
from judge_server import MessagesServer
from test_keypoints_plugin import project, responder, run  # noqa: F401


def test_the_capture_estimate_counts_judge_requests_and_sends_nothing(
        project: pytest.Pytester) -> None:  # noqa: F811
    with MessagesServer(responder) as server:
        result = run(project, server, "--capture-estimate")
        assert server.requests == []
    assert result.ret == pytest.ExitCode.OK
    assert not (project.path / "reports").exists()
    result.stdout.fnmatch_lines([
        "*dictbench capture estimate*",
        "*judge estimate (input tokens estimated locally; nothing was sent, no item ran)",
        "*judge-a (model-a): 3 uncached requests*",
        "*judge-b (model-b): 3 uncached requests*",
        "*total: 6 uncached requests; live $0.0*",
    ])
    # the judge estimate once, with --judge-estimate too
    both = run(project, server, "--capture-estimate", "--judge-estimate")
    assert both.stdout.str().count("total: 6 uncached requests") == 1
