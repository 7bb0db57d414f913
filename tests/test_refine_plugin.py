"""Pipelines in real pytest runs: item records with raw and refined text, failure
semantics, capture once, sweeps whose second run sends nothing, and the dev/test split."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from adapter_support import suite_with_audio
from judge_server import MessagesServer
from refine_support import (
    REFINE_KEY,
    TEMPLATE,
    refine_requests,
    refine_responder,
    step_toml,
    write_pipeline,
)
from support import MINI_CASES, jsonl

#: What the recogniser heard: a filler in c1 and c2.
RAW = {"c1": "um Hello Maria, see you at noon.", "c2": "Please send um the invoice by Friday.",
       "c3": "The meeting moved to room four.", "c4": "Buy milk, eggs and bread."}


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer(refine_responder()) as running:
        yield running


@pytest.fixture
def project(pytester: pytest.Pytester, write_suite: Callable[..., Path],
            monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Suite ``mini`` and recogniser ``asr`` (cache) with :data:`RAW` outputs."""
    monkeypatch.setenv("REFINE_KEY", REFINE_KEY)
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite()
    write_recogniser(pytester.path / "products", "asr", RAW)
    return pytester


def write_recogniser(folder: Path, name: str, texts: dict[str, str]) -> None:
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.toml").write_text(f'name = "{name}"\nversion = "1"\nadapter = "cache"\n')
    (folder / name / "mini.jsonl").write_text(jsonl(
        {"case_id": cid, "text": text, "latency_ms": 40.0} for cid, text in texts.items()))


def records(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    path = pytester.path / "reports" / "items.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def report(pytester: pytest.Pytester) -> dict[str, Any]:
    return json.loads((pytester.path / "reports" / "dictbench.json").read_text())


def test_items_record_raw_and_refined_and_score_raw_by_default(
        project: pytest.Pytester, server: MessagesServer) -> None:
    write_pipeline(project.path / "products", "pipe", "asr", step_toml("fixer", server.url))
    result = project.runpytest("--product=pipe", "--dictbench-item-failures=report")
    result.assert_outcomes(passed=4)
    by_case = {r["case_id"]: r for r in records(project)}
    c1 = by_case["c1"]
    assert c1["text"] == RAW["c1"] and c1["pipeline"]["raw"] == RAW["c1"]
    assert c1["pipeline"]["refined"] == MINI_CASES[0]["reference"]
    assert c1["metrics"]["word_ins"] == 1  # the filler, in the raw text
    assert c1["pipeline"]["steps"][0]["cost_usd"] == pytest.approx(0.0006)
    [entry] = report(project)["suites"][0]["products"]
    step = entry["pipeline"]["steps"]["refine1"]
    assert (step["items"], step["calls"], step["cached"], step["errors"]) == (4, 4, 0, 0)
    assert step["cost_usd"] == pytest.approx(4 * 0.0006) == step["spent_usd"]
    assert step["latency"]["n"] == 4
    assert entry["pipeline"]["asr"] == ["asr"] and entry["pipeline"]["scored"] == ["raw"]
    assert all(REFINE_KEY not in p.read_text() for p in (project.path / "reports").iterdir())
    markdown = (project.path / "reports" / "dictbench.md").read_text()
    assert "**Refine pipelines**" in markdown and "**Refine steps**" in markdown
    # 4 rewrites at 100 tokens in x $3 + 20 out x $15 per million: $0.0024 in all
    # the recogniser has no price: its cost and the total are unknown ("-"); c3 and c4
    # have no filler, so the fixer returns them unchanged
    assert "| pipe | asr | raw |" in markdown
    assert "| 0 | 2 | - | $0.002400 | - | $0.002400 |" in markdown
    assert "| pipe | refine1 | fixer | 4 | 4 | 0 | 0 | 0 | 2 |" in markdown
    page = (project.path / "reports" / "dictbench.html").read_text()
    assert "<h3>Refine pipelines</h3>" in page and "<h3>Refine steps</h3>" in page


def test_score_text_refined_scores_the_rewrite(project: pytest.Pytester,
                                              server: MessagesServer,
                                              write_suite: Callable[..., Path]) -> None:
    write_suite(extra='score_text = "refined"')
    write_pipeline(project.path / "products", "pipe", "asr", step_toml("fixer", server.url))
    project.runpytest("--product=pipe").assert_outcomes(passed=4)
    assert {r["metrics"]["word_ins"] for r in records(project)} == {0}
    assert {r["score"] for r in records(project)} == {100.0}


def test_a_failing_step_is_an_error_item_and_an_empty_rewrite_is_scored_empty(
        project: pytest.Pytester, server: MessagesServer,
        write_suite: Callable[..., Path]) -> None:
    write_suite(extra='score_text = "refined"')
    products = project.path / "products"
    write_pipeline(products, "bad", "asr", step_toml("broken", server.url, name="polish"))
    write_pipeline(products, "blank", "asr", step_toml("blank", server.url))
    result = project.runpytest("--product=bad", "--product=blank",
                               "--dictbench-item-failures=report")
    result.assert_outcomes(passed=4, errors=4)
    result.stdout.fnmatch_lines(["*refine step 'polish' (model broken) failed*HTTP 400*"])
    bad = [r for r in records(project) if r["product"] == "bad"]
    assert {r["status"] for r in bad} == {"error"}
    assert {r["case_id"]: r["text"] for r in bad} == RAW  # the raw text is kept
    entry = {e["product"]: e for e in report(project)["suites"][0]["products"]}
    assert entry["blank"]["empty"] == 4 and entry["blank"]["errors"] == 0
    assert entry["bad"]["errors"] == 4
    assert entry["bad"]["pipeline"]["steps"]["polish"]["errors"] == 4
    assert entry["blank"]["pipeline"]["refined_empty"] == 4


CAPTURE_CONFTEST = '''
def pytest_dictbench_transcriber(product):
    def transcribe(request):
        if not request.warmup:
            with open("captures.log", "a") as log:
                log.write(request.case_id + "\\n")
        return {"c1": "um hello there"}.get(request.case_id, "hello there")
    return transcribe
'''


def test_the_recogniser_is_captured_once_for_every_variant(
        project: pytest.Pytester, server: MessagesServer,
        write_suite: Callable[..., Path]) -> None:
    suite_with_audio(write_suite, MINI_CASES, 0.1)
    project.makeconftest(CAPTURE_CONFTEST)
    products = project.path / "products"
    (products / "live.toml").write_text('name = "live"\nversion = "1"\nadapter = "python"\n')
    write_pipeline(products, "v1", "live", step_toml("fixer", server.url))
    write_pipeline(products, "v2", "live", step_toml("shouter", server.url))
    project.runpytest("--product=v1", "--product=v2",
                      "--dictbench-item-failures=report").assert_outcomes(passed=8)
    assert sorted((project.path / "captures.log").read_text().split()) == \
        ["c1", "c2", "c3", "c4"]
    assert len((products / "live" / "mini.jsonl").read_text().splitlines()) == 4
    project.runpytest("--product=v1", "--product=v2",
                      "--dictbench-item-failures=report").assert_outcomes(passed=8)
    assert len((project.path / "captures.log").read_text().split()) == 4


SWEEP = '''
name = "grid"
version = "1"

[sweep]
asr = ["asr", "asr2"]
templates = ["prompts/clean.txt", "prompts/terse.txt"]

[[sweep.models]]
label = "fix"
client = "anthropic"
model = "fixer"
base_url = "{url}"
api_key_env = "REFINE_KEY"

[[sweep.models]]
label = "loud"
client = "openai"
model = "shouter"
base_url = "{url}/v1"
api_key_env = "REFINE_KEY"
'''


def test_a_sweep_expands_into_named_products_and_its_second_run_sends_nothing(
        project: pytest.Pytester, server: MessagesServer) -> None:
    products = project.path / "products"
    write_recogniser(products, "asr2", {cid: text.upper() for cid, text in RAW.items()})
    (products / "prompts").mkdir()
    (products / "prompts" / "clean.txt").write_text(TEMPLATE)
    (products / "prompts" / "terse.txt").write_text("Be terse.\n<text>{text}</text>")
    (products / "grid.toml").write_text(SWEEP.replace("{url}", server.url))
    args = ("--product=grid", "--dictbench-item-failures=report")
    project.runpytest(*args).assert_outcomes(passed=32)
    names = sorted(e["product"] for e in report(project)["suites"][0]["products"])
    assert names == [f"grid.{a}.{m}.{t}" for a in ("asr", "asr2") for m in ("fix", "loud")
                     for t in ("clean", "terse")]
    # 2 recognisers x 2 models x 2 instructions x 4 cases, each call made once
    sent = refine_requests(server)
    assert len(sent) == 32
    assert {r.path for r in sent} == {"/v1/messages", "/v1/chat/completions"}
    project.runpytest(*args).assert_outcomes(passed=32)
    assert len(refine_requests(server)) == 32
    cached = [s["cached"] for r in records(project) for s in r["pipeline"]["steps"]]
    assert cached == [True] * 32
    for entry in report(project)["suites"][0]["products"]:
        summary = entry["pipeline"]
        [step] = summary["steps"].values()
        assert summary["spent_usd"] == 0 and step["calls"] == 0 and step["cached"] == 4


def test_a_bad_sweep_file_is_a_usage_error_naming_it(project: pytest.Pytester) -> None:
    (project.path / "products" / "grid.toml").write_text(
        'name = "grid"\nversion = "1"\n[sweep]\nasr = ["asr"]\ntemplates = []\n')
    result = project.runpytest("--product=grid")
    result.stderr.fnmatch_lines(["*grid.toml*templates must be a non-empty list*"])


def test_the_split_runs_one_half_and_says_so_in_the_report(
        project: pytest.Pytester, server: MessagesServer) -> None:
    write_pipeline(project.path / "products", "pipe", "asr", step_toml("fixer", server.url))
    halves = {}
    for half in ("dev", "test"):
        result = project.runpytest("--product=pipe", f"--dictbench-split={half}",
                                   "--dictbench-item-failures=report")
        result.assert_outcomes(passed=2, deselected=2)
        halves[half] = {r["case_id"] for r in records(project)}
        split = report(project)["split"]
        assert split["half"] == half and split["seed"] == 20261201
        assert split["suites"]["mini"]["cases"] == 2 and split["suites"]["mini"]["of"] == 4
        markdown = (project.path / "reports" / "dictbench.md").read_text()
        assert f"This report covers the {half} half only (seed 20261201" in markdown
        assert "| mini | 2 | 4 |" in markdown
        assert "<h2>Dev/test split</h2>" in \
            (project.path / "reports" / "dictbench.html").read_text()
    assert halves["dev"].isdisjoint(halves["test"])
    assert halves["dev"] | halves["test"] == {"c1", "c2", "c3", "c4"}
    # only the selected half was refined: 2 calls per run, none for deselected items
    assert len(refine_requests(server)) == 4


def test_reports_are_byte_identical_with_and_without_xdist(
        project: pytest.Pytester, server: MessagesServer) -> None:
    products = project.path / "products"
    write_pipeline(products, "v1", "asr", step_toml("fixer", server.url))
    write_pipeline(products, "v2", "asr", step_toml("shouter", server.url, client="openai"))
    args = ["--product=v1", "--product=v2", "--dictbench-item-failures=report"]
    project.runpytest(*args).assert_outcomes(passed=8)  # fills the refine cache
    texts = {}
    for extra in ([], ["-n", "2"]):
        folder = f"reports-{len(extra)}"
        with pytest.MonkeyPatch.context() as env:
            env.setenv("REFINE_KEY", REFINE_KEY)
            result = project.runpytest_subprocess(*args, *extra,
                                                  f"--dictbench-report={folder}")
        result.assert_outcomes(passed=8)
        texts[folder] = {name: (project.path / folder / name).read_bytes()
                         for name in ("dictbench.json", "items.jsonl", "dictbench.md")}
    assert texts["reports-0"] == texts["reports-2"]
    assert len(refine_requests(server)) == 8


def test_an_empty_half_is_named_and_select_says_why_it_has_no_report(
        project: pytest.Pytester, write_suite: Callable[..., Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    """PL4: a 1-case suite whose test half is empty says so after collection, and
    ``dictbench select`` on the missing report says the run wrote none."""
    from pytest_dictbench.cli import main

    write_suite(cases=[MINI_CASES[0]])  # c1 alone: sha256 puts it in dev
    write_recogniser(project.path / "products", "asr", {"c1": RAW["c1"]})
    result = project.runpytest("--product=asr", "--dictbench-split=test",
                               "--dictbench-report=reports/test")
    result.stdout.fnmatch_lines(["dictbench: suite 'mini' (1 case): the test half is empty*"])
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    project.runpytest("--product=asr", "--dictbench-split=dev",
                      "--dictbench-report=reports/dev").assert_outcomes(passed=1)
    assert main(["select", str(project.path / "reports" / "dev"),
                 str(project.path / "reports" / "test")]) == 2
    assert "no report: the run wrote none (was its half empty?" in capsys.readouterr().err


def test_select_refuses_halves_of_two_suite_versions(
        project: pytest.Pytester, write_suite: Callable[..., Path]) -> None:
    """PL1: dev on version 1.0, test after a case was added and the version raised: the
    reports record the suite's version and whole case list, and select names both."""
    from pytest_dictbench.select import SelectError, select_paths

    project.runpytest("--product=asr", "--dictbench-split=dev",
                      "--dictbench-report=reports/dev")
    root = write_suite(cases=[*MINI_CASES, {"id": "c5", "genre": "chat",
                                            "reference": "One more case."}])
    (root / "suite.toml").write_text((root / "suite.toml").read_text().replace(
        'version = "1.0"', 'version = "1.1"'))
    write_recogniser(project.path / "products", "asr", {**RAW, "c5": "One more case."})
    project.runpytest("--product=asr", "--dictbench-split=test",
                      "--dictbench-report=reports/test")
    split = json.loads((project.path / "reports" / "test" / "dictbench.json").read_text()
                       )["split"]["suites"]["mini"]
    assert split["version"] == "1.1" and split["of"] == 5
    with pytest.raises(SelectError, match=r"suite 'mini'.*version 1\.0 .*dev.*1\.1.*test"):
        select_paths(project.path / "reports" / "dev", project.path / "reports" / "test")


@pytest.mark.parametrize("order", [("grid", "grid.asr.fix.clean"),
                                   ("grid.asr.fix.clean", "grid"), ("grid",)])
def test_a_product_file_named_like_a_sweep_entry_is_refused_naming_both(
        project: pytest.Pytester, server: MessagesServer, order: tuple[str, ...]) -> None:
    """PL10: sweep entries and product files share one namespace: a file named like an
    entry is a product error naming the sweep file and the product file, whatever the
    option order (and with the sweep alone), and nothing runs."""
    products = project.path / "products"
    write_recogniser(products, "asr2", RAW)
    (products / "prompts").mkdir()
    (products / "prompts" / "clean.txt").write_text(TEMPLATE)
    (products / "prompts" / "terse.txt").write_text("Be terse.\n<text>{text}</text>")
    (products / "grid.toml").write_text(SWEEP.replace("{url}", server.url))
    write_pipeline(products, "grid.asr.fix.clean", "asr",
                   step_toml("fixer", server.url, template="OTHER FILE <text>{text}</text>"))
    result = project.runpytest(*(f"--product={name}" for name in order))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*product 'grid.asr.fix.clean' is both an entry of the "
                                 "sweep*grid.toml and the product file*grid.asr.fix.clean"
                                 ".toml*"])
    assert refine_requests(server) == []


def test_two_product_files_of_one_name_are_refused(project: pytest.Pytester) -> None:
    """PL10: ``--product=asr --product=other/asr.toml``: one name, two sources."""
    write_recogniser(project.path / "other", "asr", RAW)
    result = project.runpytest("--product=asr", "--product=other/asr.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*two products named 'asr'*products/asr.toml*"
                                 "other/asr.toml*"])


def test_capture_estimate_counts_a_sweeps_captures_once_and_its_refine_calls(
        project: pytest.Pytester, server: MessagesServer,
        write_suite: Callable[..., Path]) -> None:
    """PL9: two pipelines over a live recogniser: the estimate counts each case's
    capture once (4), lists the refine requests per step (4 each) with nothing sent,
    and after a real run counts them all as cached."""
    suite_with_audio(write_suite, MINI_CASES, 3.0)
    project.makeconftest(CAPTURE_CONFTEST)
    products = project.path / "products"
    (products / "live.toml").write_text('name = "live"\nversion = "1"\nadapter = "python"\n'
                                        "[pricing]\nusd_per_audio_minute = 0.006\n"
                                        'snapshot_date = "2026-12-01"\n'
                                        'source_url = "https://example.com/prices"\n')
    write_pipeline(products, "v1", "live", step_toml("fixer", server.url))
    write_pipeline(products, "v2", "live", step_toml("shouter", server.url))
    args = ("--product=v1", "--product=v2", "--capture-estimate")
    result = project.runpytest(*args)
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "*live ?python?: 4 captures (0.20 audio minutes), 0 cached; $0.001200",
        "*v1 ?pipeline? step refine1 (fixer): 4 refine requests, 0 cached*",
        "*v2 ?pipeline? step refine1 (shouter): 4 refine requests, 0 cached*",
        "*total: 4 captures; 8 refine requests; $0.001200*"])
    assert not (project.path / "captures.log").exists() and refine_requests(server) == []
    project.runpytest("--product=v1", "--product=v2", "--dictbench-item-failures=report"
                      ).assert_outcomes(passed=8)
    result = project.runpytest(*args)
    result.stdout.fnmatch_lines([
        "*live ?python?: 0 captures (0.00 audio minutes), 4 cached; $0.000000",
        "*v1 ?pipeline? step refine1 (fixer): 0 refine requests, 4 cached*",
        "*total: 0 captures; 0 refine requests; $0.000000*"])


def test_a_split_run_ranks_its_products_on_the_half_it_ran(project: pytest.Pytester) -> None:
    """PL3: a half's report no longer calls every product incomplete for lacking the
    other half's cases: the half's cases are what is required."""
    write_recogniser(project.path / "products", "asr2", {**RAW, "c1": "Hello Maria."})
    project.runpytest("--product=asr", "--product=asr2", "--dictbench-split=dev",
                      "--dictbench-item-failures=report").assert_outcomes(passed=4)
    entries = report(project)["suites"][0]["products"]
    assert [(e["cases"], e["cases_scored"], e["reason"]) for e in entries] == \
        [(2, 2, None), (2, 2, None)]
    assert sorted(e["rank"] for e in entries) == [1, 2]
