"""``--judge-estimate`` and the project-wide judge table serve keypoints suites (J4, J5)."""

from __future__ import annotations

import pytest
from judge_server import MessagesServer
from judge_support import JUDGES_TOML
from test_keypoints_plugin import project, responder, run  # noqa: F401


def test_the_estimate_counts_keypoints_requests(project: pytest.Pytester) -> None:  # noqa: F811
    with MessagesServer(responder) as server:
        result = run(project, server, "--judge-estimate")
        assert server.requests == []
    result.stdout.fnmatch_lines([
        "*judge-a (model-a): 3 uncached requests*",
        "*judge-b (model-b): 3 uncached requests*",
        "*total: 6 uncached requests; live $0.0*",
    ])
    assert "live $0.0000," not in result.stdout.str().split("total:")[1]


def test_the_ini_judge_table_serves_a_keypoints_suite(project: pytest.Pytester  # noqa: F811
                                                      ) -> None:
    manifest = project.path / "cases/jj/suite.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").split("[judge]")[0],
                        encoding="utf-8")
    (project.path / "judges.toml").write_text(JUDGES_TOML, encoding="utf-8")
    project.makeini("[pytest]\ndictbench_suites = cases/jj\n"
                    "dictbench_judge_config = judges.toml\n")
    with MessagesServer(responder) as server:
        run(project, server, "--judge=live")
        assert len(server.requests) == 6  # 3 items x 2 judges
