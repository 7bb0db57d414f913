"""The CI recipes of docs/ci.md, run as written in a scratch project."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import MINI_CASES

DOC = Path(__file__).resolve().parents[1] / "docs" / "ci.md"
INSTALL = "python -m pip install"


def recipes() -> dict[str, Any]:
    """The YAML blocks of docs/ci.md by section: ``github`` and ``gitlab``."""
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"^## (.+?)$.*?^```yaml\n(.*?)^```", text, re.M | re.S)
    found = {title.split()[0].lower(): yaml.safe_load(body) for title, body in blocks}
    assert set(found) == {"github", "gitlab"}
    return found


def run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # GitHub's `shell: bash` runs `bash --noprofile --norc -eo pipefail`; GitLab's runner
    # runs each line in one bash session with errexit: both are this, line by line
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture
def project(pytester: pytest.Pytester, write_suite, write_product) -> pytest.Pytester:
    """A vendor's project: ini, one suite, product ``acme`` and an accepted baseline."""
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite()
    write_product("acme")
    result = pytester.runpytest("--product=acme", "--dictbench-report=dictbench-baseline")
    result.assert_outcomes(passed=4)
    return pytester


@pytest.fixture
def env(project: pytest.Pytester) -> dict[str, str]:
    summary = project.path / "step-summary.md"
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
            f"{os.environ['PATH']}", "GITHUB_STEP_SUMMARY": str(summary)}


def break_acme(write_product) -> None:
    outputs = [{"case_id": c["id"], "text": "something else entirely"} for c in MINI_CASES]
    write_product("acme", outputs=outputs)


def junit_gate(folder: Path) -> ET.Element:
    cases = ET.parse(folder / "reports/junit.xml").getroot().iter("testcase")
    return next(c for c in cases if c.get("name") == "dictbench-gate[acme]")


def github(project: pytest.Pytester, env: dict[str, str]) -> list[int | None]:
    """Each ``run`` step of the workflow, in order, skipped after a failure unless it has
    ``if: always()``; returns the exit status of each (None: skipped or not a run)."""
    steps = recipes()["github"]["jobs"]["gate"]["steps"]
    failed, codes = False, []
    for step in steps:
        command = step.get("run")
        if command is None or command.startswith(INSTALL) or (
                failed and step.get("if") != "always()"):
            codes.append(None)
            continue
        result = run(command, project.path, env)
        codes.append(result.returncode)
        failed |= result.returncode != 0
    return codes


@pytest.mark.parametrize("broken", [False, True])
def test_github_actions_recipe(project: pytest.Pytester, env: dict[str, str], write_product,
                               broken: bool) -> None:
    steps = recipes()["github"]["jobs"]["gate"]["steps"]
    names = [s.get("name") for s in steps]
    cache = steps[names.index("Restore cached captures")]["with"]["path"]
    assert (project.path / cache / "mini.jsonl").is_file()  # the captures live there
    if broken:
        break_acme(write_product)
    codes = github(project, env)
    gate, summary_step = names.index("Gate"), names.index("Report in the job summary")
    assert codes[gate] == (1 if broken else 0)
    assert codes[summary_step] == 0
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert summary.startswith("# Dictation benchmark report")
    assert ("CI gate: FAILED" if broken else "CI gate: passed") in summary
    junit = junit_gate(project.path)
    assert (junit.find("failure") is not None) == broken


def test_gitlab_ci_recipe(project: pytest.Pytester, env: dict[str, str], write_product
                          ) -> None:
    job = recipes()["gitlab"]["dictbench"]
    assert job["cache"]["paths"] == ["products/acme/"]
    assert job["artifacts"]["reports"]["junit"] == "reports/junit.xml"
    break_acme(write_product)
    codes = [run(line, project.path, env) for line in job["script"]
             if not line.startswith(INSTALL)]
    assert [c.returncode for c in codes] == [1]  # the gate fails the job
    assert "dictbench gate FAILED: mini/acme: suite score" in codes[0].stdout
    after = [run(line, project.path, env) for line in job["after_script"]]
    assert [c.returncode for c in after] == [0]
    assert "CI gate: FAILED" in after[0].stdout
    assert junit_gate(project.path).find("failure") is not None
    assert (project.path / job["artifacts"]["paths"][0] / "dictbench.html").is_file()


def test_install_lines_install_this_package() -> None:
    found = recipes()
    github_install = [s["run"] for s in found["github"]["jobs"]["gate"]["steps"]
                      if str(s.get("run", "")).startswith(INSTALL)]
    gitlab_install = [line for line in found["gitlab"]["dictbench"]["script"]
                      if line.startswith(INSTALL)]
    assert github_install == gitlab_install == [f'{INSTALL} "pytest-dictbench"']
