"""Environment cohorts beside every rank: ``pytest cases/en-verbatim`` with the four bundled
products ranks two products first, one in each cohort, and every report says so."""

from __future__ import annotations

import functools
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from pytest_dictbench.report.cohorts import cohort_labels, cohort_legend
from pytest_dictbench.workbench.publish import publish

ROOT = Path(__file__).resolve().parents[1]
PRODUCTS = ("example", "example-weak", "whisper-base-recorded", "whisper-tiny-recorded")
EXAMPLE = "hardware=example, os=example"
RECORDED = "hardware=AMD EPYC, 2 vCPU (shared), x86_64, os=Debian GNU/Linux 12 (bookworm), " \
           "Linux 6.18"

ESCAPED_UNDERSCORE = r"\_"  # Markdown escapes what it would read as emphasis


@functools.cache
def verbatim_run() -> dict[str, Any]:
    """The terminal output and the report files of one real run (once per process)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    out = Path(tempfile.mkdtemp(prefix="dictbench-cohorts-"))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "cases/en-verbatim", "-q", "-p", "no:cacheprovider",
         *(f"--product={p}" for p in PRODUCTS), "--dictbench-item-failures=report",
         f"--dictbench-report={out}", "--dictbench-resamples=300"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert (out / "dictbench.json").is_file(), run.stdout + run.stderr
    published = out / "published"
    publish(out, published)
    found = {"stdout": run.stdout,
             "md": (out / "dictbench.md").read_text(encoding="utf-8"),
             "html": (out / "dictbench.html").read_text(encoding="utf-8"),
             "summary_md": (published / "summary.md").read_text(encoding="utf-8"),
             "summary": json.loads((published / "summary.json").read_text(encoding="utf-8"))}
    shutil.rmtree(out)
    return found


def _row(lines: list[str], *cells: str) -> list[str]:
    """The first line whose whitespace-separated cells start with ``cells``."""
    for line in lines:
        if line.split()[:len(cells)] == list(cells):
            return line.split()
    raise AssertionError(f"no line starting {cells}")


def test_labels_follow_the_suites_product_order() -> None:
    products = [{"product": "a", "cohort": {"os": "y"}}, {"product": "b", "cohort": {"os": "x"}},
                {"product": "c", "cohort": {"os": "y"}}, {"product": "d", "cohort": {}}]
    assert cohort_labels(products) == {"a": "A", "b": "B", "c": "A"}
    assert cohort_legend(products) == [("A", "os=y", ["a", "c"]), ("B", "os=x", ["b"])]


def test_the_terminal_shows_each_ranks_cohort() -> None:
    lines = verbatim_run()["stdout"].splitlines()
    # overview: suite product items passed failed errors not_tested empty score CI rank cohort
    assert _row(lines, "en-verbatim", "example")[-2:] == ["1", "A"]
    assert _row(lines, "en-verbatim", "whisper-base-recorded")[-2:] == ["1", "B"]
    assert _row(lines, "en-verbatim", "example-weak")[-2:] == ["2", "A"]
    # leaderboard: product rank cohort ...
    board = lines[next(i for i, line in enumerate(lines) if "leaderboard sorted by" in line):]
    assert _row(board, "whisper-tiny-recorded")[1:3] == ["2", "B"]
    legend = ("en-verbatim: ranked within environment cohorts (same hardware, os): "
              f"A = {EXAMPLE} (example, example-weak); B = {RECORDED} "
              "(whisper-base-recorded, whisper-tiny-recorded)")
    assert legend in lines


def test_markdown_and_html_leaderboards_show_the_cohort() -> None:
    run = verbatim_run()
    assert "| Rank | Cohort | Product |" in run["md"]
    assert "| 1 | A | **example** |" in run["md"]
    assert "| 1 | B | **whisper-base-recorded** |" in run["md"]
    assert (f"Ranks count within an environment cohort (cohort A: {EXAMPLE}; cohort B: "
            f"{RECORDED.replace('_', ESCAPED_UNDERSCORE)}).") in run["md"]
    assert f'<span class="cohort">cohort A: {EXAMPLE}</span>' in run["html"]
    assert f'<span class="cohort">cohort B: {RECORDED}</span>' in run["html"]


def test_publish_shows_the_cohort_beside_the_rank() -> None:
    run = verbatim_run()
    assert "| rank | cohort |" in run["summary_md"]
    lines = run["summary_md"].splitlines()
    example = next(line for line in lines if line.startswith("| example |"))
    assert example.rstrip(" |").endswith("| 1 | A")
    assert f"Ranks count within an environment cohort: A = {EXAMPLE}; B = {RECORDED}." in lines
    products = {p["product"]: p for p in run["summary"]["suites"][0]["products"]}
    assert products["whisper-tiny-recorded"]["cohort"] == {
        "hardware": "AMD EPYC, 2 vCPU (shared), x86_64",
        "os": "Debian GNU/Linux 12 (bookworm), Linux 6.18"}


def test_the_leaderboard_says_which_figure_is_pooled_and_which_ranks() -> None:
    # en-verbatim's score is the mean of item F1 (example: 68.0); its headline
    # disfluency_f1 is pooled (0.789) and is what ranks: every report says so
    run = verbatim_run()
    note = ("score = the mean of the item scores (every case weighs alike), with its 95% "
            "bootstrap interval and the paired comparisons; disfluency_f1 = the method's "
            "corpus figure, pooled over all items (an item weighs by its size); ranks use "
            "disfluency_f1")
    assert f"en-verbatim: {note}" in run["stdout"].splitlines()
    assert "Score = the mean of the item scores" in run["md"]
    assert f'<p class="note">{html.escape("S" + note[1:])}.</p>' in run["html"]
