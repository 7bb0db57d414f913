"""PL11: a sweep of 1,000 configurations over cached outputs writes its reports: its
paired comparisons grow linearly (each against the best), not as all pairs."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from judge_server import MessagesServer
from refine_support import REFINE_KEY, refine_requests, refine_responder
from support import MINI_CASES, jsonl


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer(refine_responder()) as running:
        yield running


def test_a_thousand_configuration_sweep_writes_its_reports(
        pytester: pytest.Pytester, write_suite: Callable[..., Path], server: MessagesServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFINE_KEY", REFINE_KEY)
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite(cases=MINI_CASES[:2])
    products = pytester.path / "products"
    for i in range(10):
        (products / f"asr{i}").mkdir(parents=True)
        (products / f"asr{i}.toml").write_text(
            f'name = "asr{i}"\nversion = "1"\nadapter = "cache"\n')
        (products / f"asr{i}" / "mini.jsonl").write_text(jsonl(
            {"case_id": c["id"], "text": f"um {c['reference']}"} for c in MINI_CASES[:2]))
    (products / "prompts").mkdir()
    for t in range(10):
        (products / "prompts" / f"t{t}.txt").write_text(f"Variant {t}.\n<text>{{text}}</text>")
    models = "".join(f'\n[[sweep.models]]\nlabel = "m{m}"\nclient = "anthropic"\n'
                     f'model = "m{m}"\nbase_url = "{server.url}"\napi_key_env = "REFINE_KEY"\n'
                     for m in range(10))
    (products / "big.toml").write_text(
        'name = "big"\nversion = "1"\n[sweep]\n'
        f"asr = {json.dumps([f'asr{i}' for i in range(10)])}\n"
        f"templates = {json.dumps([f'prompts/t{t}.txt' for t in range(10)])}\n" + models)
    start = time.perf_counter()
    result = pytester.runpytest("--product=big", "--dictbench-item-failures=report", "-q")
    elapsed = time.perf_counter() - start
    assert result.ret == 0
    # 10 recognisers give one text: 10 models x 10 templates x 2 cases distinct calls
    assert len(refine_requests(server)) == 200
    report = json.loads((pytester.path / "reports" / "dictbench.json").read_text())
    [suite] = report["suites"]
    assert len(suite["products"]) == 1000
    assert len(suite["comparisons"]) == 999
    assert suite["comparison_scope"]["mode"] == "each_against_best"
    reference = suite["comparison_scope"]["reference"]
    assert {c["a"] for c in suite["comparisons"]} == {reference}
    markdown = (pytester.path / "reports" / "dictbench.md").read_text()
    assert f"each is compared with the best, {reference}" in markdown
    assert (pytester.path / "reports" / "dictbench.html").is_file()
    # the terminal says which comparisons were made and prints the first 50
    result.stdout.fnmatch_lines([f"mini: 1000 products, more than 20: each is compared with "
                                 f"the best, {reference}*", "mini: 949 more comparisons in "
                                 "dictbench.md"])
    assert elapsed < 600
