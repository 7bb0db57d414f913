"""The pipeline adapter on its own: raw and refined texts, steps' latency and cost, the
refine cache, failure semantics and the product file's checks. Loopback model servers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_server import MessagesServer
from refine_support import (
    REFINE_KEY,
    TEMPLATE,
    refine_requests,
    refine_responder,
    step_toml,
    write_pipeline,
)

from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.cache import CacheAdapter
from pytest_dictbench.adapters.pipeline import PipelineAdapter, load_products
from pytest_dictbench.errors import ProductError, SuiteError
from pytest_dictbench.judge.records import RetryPolicy
from pytest_dictbench.model import Case, Suite

CASES = {"c1": "hello there", "c2": "send the invoice", "c3": "see you at noon"}
RAW = {"c1": "um hello there", "c2": "send um the invoice", "c3": "see you at noon"}
FAST = RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.02)


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer(refine_responder()) as running:
        yield running


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFINE_KEY", REFINE_KEY)


def make_suite(root: Path, **manifest: str) -> Suite:
    cases = tuple(Case(cid, {"id": cid, "reference": ref, "genre": "chat",
                             "context": f"context of {cid}"}, n)
                  for n, (cid, ref) in enumerate(CASES.items(), start=1))
    return Suite(id="mini", version="1", title="t", method=manifest.pop("method", "error_rate"),
                 locale="en-US", canary="DICTBENCH-CANARY x", root=root, cases=cases,
                 manifest=manifest)


@pytest.fixture
def products(tmp_path: Path) -> Path:
    """A products folder with recogniser ``asr`` (cache) whose outputs carry fillers."""
    folder = tmp_path / "products"
    (folder / "asr").mkdir(parents=True)
    (folder / "asr.toml").write_text('name = "asr"\nversion = "1"\nadapter = "cache"\n')
    (folder / "asr" / "mini.jsonl").write_text("".join(
        json.dumps({"case_id": cid, "text": text, "latency_ms": 50.0}) + "\n"
        for cid, text in RAW.items()))
    return folder


def adapter(folder: Path, name: str, suite: Suite, **kwargs: object) -> PipelineAdapter:
    [product] = load_products(name, folder)
    return PipelineAdapter(product, suite, AdapterOptions(), {"cache": CacheAdapter},
                           retry=FAST, **kwargs)  # type: ignore[arg-type]


def test_raw_and_refined_are_kept_with_the_steps_latency_and_cost(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url, name="clean"))
    suite = make_suite(tmp_path)
    output = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert output is not None and output.status == "complete"
    facts = output.meta["pipeline"]
    assert facts["raw"] == "um hello there" and facts["refined"] == "hello there"
    assert output.text == "um hello there"  # error_rate scores the raw text by default
    assert facts["scored"] == "raw" and facts["asr"] == "asr"
    [step] = facts["steps"]
    assert step["step"] == "clean" and step["model"] == "fixer" and step["calls"] == 1
    assert step["cached"] is False and step["latency_ms"] is not None
    # 100 input tokens at $3/Mtok + 20 output tokens at $15/Mtok
    assert step["cost_usd"] == pytest.approx(100 * 3 / 1e6 + 20 * 15 / 1e6)
    assert step["usage"] == {"input_tokens": 100, "output_tokens": 20}
    assert output.latency_ms == pytest.approx(50.0 + step["latency_ms"])
    [request] = refine_requests(server)
    assert "<text>um hello there</text>" in json.dumps(request.body)
    assert request.headers["authorization"] == f"Bearer {REFINE_KEY}"


def test_score_text_refined_and_the_judged_methods_score_the_rewrite(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url))
    refined = make_suite(tmp_path, score_text="refined")
    assert adapter(products, "pipe", refined).get(refined.cases[1], 1).text == \
        "send the invoice"
    rubric = make_suite(tmp_path, method="rubric")
    assert adapter(products, "pipe", rubric).get(rubric.cases[1], 1).text == \
        "send the invoice"
    with pytest.raises(SuiteError, match="scores the refined text"):
        adapter(products, "pipe", make_suite(tmp_path, method="rubric", score_text="raw"))


def test_a_rerun_sends_nothing_and_reports_the_cached_step(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url))
    suite = make_suite(tmp_path)
    first = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    again = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert len(refine_requests(server)) == 1
    assert again.meta["pipeline"]["refined"] == first.meta["pipeline"]["refined"]
    step = again.meta["pipeline"]["steps"][0]
    assert step["cached"] is True and step["calls"] == 0
    assert step["cost_usd"] == first.meta["pipeline"]["steps"][0]["cost_usd"]
    assert again.meta["pipeline"]["refine_calls"] == 0
    entries = list((products / ".refine-cache").rglob("*.json"))
    assert len(entries) == 1 and REFINE_KEY not in entries[0].read_text()


def test_the_cache_key_follows_text_model_template_and_settings(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    suite = make_suite(tmp_path)
    write_pipeline(products, "a", "asr", step_toml("fixer", server.url))
    write_pipeline(products, "b", "asr", step_toml("fixer", server.url,
                                                   template="Other.\n<text>{text}</text>"))
    write_pipeline(products, "c", "asr", step_toml("fixer", server.url,
                                                   extra="temperature = 0.5\n"))
    write_pipeline(products, "d", "asr", step_toml("fixer", server.url, name="renamed"))
    for name in "abcd":
        adapter(products, name, suite).get(suite.cases[0], 1)
    adapter(products, "a", suite).get(suite.cases[1], 1)
    # d differs from a only in the step's label, which does not change the rewrite
    assert len(refine_requests(server)) == 4


def test_steps_chain_and_each_sees_the_previous_rewrite(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    steps = step_toml("fixer", server.url) + step_toml("shouter", server.url)
    write_pipeline(products, "pipe", "asr", steps)
    suite = make_suite(tmp_path, score_text="refined")
    output = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert output.text == "HELLO THERE"
    assert [s["step"] for s in output.meta["pipeline"]["steps"]] == ["refine1", "refine2"]
    second = refine_requests(server)[1]
    assert "<text>hello there</text>" in json.dumps(second.body)


def test_a_failing_step_is_an_item_error_that_keeps_the_raw_text(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    steps = step_toml("fixer", server.url) + step_toml("broken", server.url, name="bad")
    write_pipeline(products, "pipe", "asr", steps)
    suite = make_suite(tmp_path)
    output = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert output.status == "error" and output.is_error
    assert output.text == "um hello there"
    assert output.meta["pipeline"]["raw"] == "um hello there"
    assert output.meta["pipeline"]["refined"] is None
    assert "refine step 'bad' (model broken) failed" in output.error
    assert "HTTP 400" in output.error
    assert REFINE_KEY not in output.error
    # the first step's rewrite is cached; the failure is not, so it is tried again
    adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert [r.body["model"] for r in refine_requests(server)] == ["fixer", "broken", "broken"]


def test_a_missing_key_is_an_item_error_naming_the_variable(
        products: Path, server: MessagesServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFINE_KEY")
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url))
    suite = make_suite(tmp_path)
    output = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert output.status == "error" and "REFINE_KEY" in output.error
    assert refine_requests(server) == []


def test_an_empty_rewrite_is_an_empty_refined_text(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    write_pipeline(products, "pipe", "asr", step_toml("blank", server.url))
    suite = make_suite(tmp_path, score_text="refined")
    output = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert output.status == "complete" and output.text == ""
    assert output.meta["pipeline"]["refined"] == ""
    assert output.meta["pipeline"]["steps"][0]["empty"] is True


def test_an_openai_compatible_model(products: Path, server: MessagesServer,
                                    tmp_path: Path) -> None:
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url, client="openai"))
    suite = make_suite(tmp_path, score_text="refined")
    output = adapter(products, "pipe", suite).get(suite.cases[1], 1)
    assert output.text == "send the invoice"
    [request] = refine_requests(server)
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {REFINE_KEY}"
    assert output.meta["pipeline"]["steps"][0]["usage"]["input_tokens"] == 100


def test_planned_items_are_refined_together_on_the_first_miss(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url),
                   settings="[settings]\nconcurrency = 3\n")
    suite = make_suite(tmp_path)
    pipe = adapter(products, "pipe", suite)
    pipe.plan([(case, 1) for case in suite.cases])
    first = pipe.get(suite.cases[0], 1)
    assert len(refine_requests(server)) == 3
    rest = [pipe.get(case, 1) for case in suite.cases[1:]]
    assert len(refine_requests(server)) == 3
    assert [o.meta["pipeline"]["refined"] for o in (first, *rest)] == list(CASES.values())


def test_template_values_are_filled_from_the_case(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    template = "{genre} {locale} {context}\n<text>{text}</text>"
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url, template=template))
    suite = make_suite(tmp_path)
    adapter(products, "pipe", suite).get(suite.cases[2], 1)
    [request] = refine_requests(server)
    assert "chat en-US context of c3\\n<text>see you at noon</text>" in json.dumps(
        request.body)


def test_recogniser_outputs_that_are_missing_or_errors_pass_through(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    (products / "asr" / "mini.jsonl").write_text(
        json.dumps({"case_id": "c1", "status": "error", "error": "engine crashed"}) + "\n")
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url))
    suite = make_suite(tmp_path)
    pipe = adapter(products, "pipe", suite)
    assert pipe.get(suite.cases[0], 1).error == "engine crashed"
    assert pipe.get(suite.cases[1], 1) is None
    assert refine_requests(server) == []


@pytest.mark.parametrize(("steps", "message"), [
    (step_toml("m", "http://127.0.0.1:1", template="no placeholder"), "has no {text}"),
    (step_toml("m", "http://127.0.0.1:1", template="{text} {speaker}"),
     r"unknown placeholder\(s\) \{speaker\}"),
    (step_toml("m", "http://127.0.0.1:1", client="mistral"),
     "client must be one of anthropic, openai, gemini, got 'mistral'"),
    (step_toml("m", "http://127.0.0.1:1", extra='template_file = "t.txt"\n'),
     "exactly one of template and template_file"),
    (step_toml("m", "http://127.0.0.1:1", extra="max_tokens = 0\n"), "max_tokens must be"),
    (step_toml("m", "http://127.0.0.1:1", extra='colour = "red"\n'), "unknown key"),
    ("", "at least one"),
])
def test_bad_steps_are_product_errors_naming_the_step(
        products: Path, tmp_path: Path, steps: str, message: str) -> None:
    write_pipeline(products, "pipe", "asr", steps)
    with pytest.raises(ProductError, match=message) as error:
        adapter(products, "pipe", make_suite(tmp_path))
    assert "pipe.toml" in str(error.value)


def test_template_file_is_read_beside_the_product(products: Path, server: MessagesServer,
                                                  tmp_path: Path) -> None:
    (products / "prompts").mkdir()
    (products / "prompts" / "clean.txt").write_text(TEMPLATE, encoding="utf-8")
    steps = step_toml("fixer", server.url).replace(
        f"template = {json.dumps(TEMPLATE)}", 'template_file = "prompts/clean.txt"')
    write_pipeline(products, "pipe", "asr", steps)
    suite = make_suite(tmp_path, score_text="refined")
    assert adapter(products, "pipe", suite).get(suite.cases[0], 1).text == "hello there"
    (products / "prompts" / "clean.txt").write_text("no text here", encoding="utf-8")
    with pytest.raises(ProductError, match=r"has no \{text\}"):
        adapter(products, "pipe", suite)


def test_the_recogniser_must_exist_and_not_be_a_pipeline(products: Path, tmp_path: Path
                                                         ) -> None:
    write_pipeline(products, "pipe", "nope", step_toml("m", "http://127.0.0.1:1"))
    # the pipeline that asked for it is named too (a note of the findings)
    with pytest.raises(ProductError, match=r"pipe\.toml: \[asr\] of pipeline 'pipe': .*"
                       r"'nope' not found"):
        adapter(products, "pipe", make_suite(tmp_path))
    write_pipeline(products, "inner", "asr", step_toml("m", "http://127.0.0.1:1"))
    write_pipeline(products, "outer", "inner", step_toml("m", "http://127.0.0.1:1"))
    with pytest.raises(ProductError, match="itself a pipeline"):
        adapter(products, "outer", make_suite(tmp_path))


def test_asr_and_refine_tables_belong_to_pipelines(products: Path) -> None:
    (products / "odd.toml").write_text('name = "odd"\nversion = "1"\nadapter = "cache"\n'
                                       '[asr]\nproduct = "asr"\n')
    with pytest.raises(ProductError, match=r"\[asr\] belongs to adapter 'pipeline'"):
        load_products("odd", products)


def test_a_live_recogniser_puts_its_pipelines_in_its_capture_group(products: Path) -> None:
    (products / "live.toml").write_text('name = "live"\nversion = "1"\nadapter = "python"\n')
    write_pipeline(products, "pipe", "live", step_toml("m", "http://127.0.0.1:1"))
    write_pipeline(products, "cached", "asr", step_toml("m", "http://127.0.0.1:1"))
    [pipe] = load_products("pipe", products)
    [cached] = load_products("cached", products)
    assert pipe.settings["capture_group"] == "live"
    assert "capture_group" not in cached.settings


def test_a_template_is_filled_in_one_pass() -> None:
    from pytest_dictbench.adapters.pipeline import fill_template

    filled = fill_template("{context}: <text>{text}</text>",
                           {"context": "say {text}", "text": "{context} again"})
    assert filled == "say {text}: <text>{context} again</text>"


@pytest.mark.parametrize("template", ["{{text}}", "Fix: {{text}} please", "{{text}",
                                      "<t>{text}}</t>", "{text} and {{context}}"])
def test_a_placeholder_in_doubled_braces_is_refused(products: Path, tmp_path: Path,
                                                    template: str) -> None:
    """PL13: ``{{text}}`` is no escape (one pass fills ``{text}`` inside it): refused at
    load, naming the step, before any request."""
    write_pipeline(products, "pipe", "asr",
                   step_toml("m", "http://127.0.0.1:1", template=template))
    with pytest.raises(ProductError, match=r"step 1 \(refine1\): template has a "
                       r"placeholder in doubled braces"):
        adapter(products, "pipe", make_suite(tmp_path))


def test_template_file_stays_in_the_products_folder_and_is_bounded(
        products: Path, tmp_path: Path) -> None:
    """PL14: a template file outside the products folder (``..``, an absolute path, a
    symlink out) is refused like ``refine_cache``; one over the size limit is refused
    before it is read; a BOM is dropped."""
    from pytest_dictbench.adapters.pipeline.steps import MAX_TEMPLATE_BYTES

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "t.txt").write_text(TEMPLATE, encoding="utf-8")
    (products / "prompts").mkdir()
    (products / "prompts" / "link.txt").symlink_to(outside / "t.txt")
    for where in ("../outside/t.txt", str(outside / "t.txt"), "prompts/link.txt"):
        steps = step_toml("m", "http://127.0.0.1:1").replace(
            f"template = {json.dumps(TEMPLATE)}", f"template_file = {json.dumps(where)}")
        write_pipeline(products, "pipe", "asr", steps)
        with pytest.raises(ProductError, match=r"template_file .* leaves the products "
                           r"folder"):
            adapter(products, "pipe", make_suite(tmp_path))
    big = products / "prompts" / "big.txt"
    big.write_text("{text}" + "x" * MAX_TEMPLATE_BYTES, encoding="utf-8")
    steps = step_toml("m", "http://127.0.0.1:1").replace(
        f"template = {json.dumps(TEMPLATE)}", 'template_file = "prompts/big.txt"')
    write_pipeline(products, "pipe", "asr", steps)
    with pytest.raises(ProductError, match=rf"is {MAX_TEMPLATE_BYTES + 6:,} bytes; a "
                       rf"template may hold at most {MAX_TEMPLATE_BYTES:,}"):
        adapter(products, "pipe", make_suite(tmp_path))
    write_pipeline(products, "pipe", "asr", step_toml(
        "m", "http://127.0.0.1:1", template="{text}" + "x" * MAX_TEMPLATE_BYTES))
    with pytest.raises(ProductError, match="a template may hold at most"):
        adapter(products, "pipe", make_suite(tmp_path))
    (products / "prompts" / "bom.txt").write_bytes(b"\xef\xbb\xbf" + TEMPLATE.encode())
    steps = step_toml("m", "http://127.0.0.1:1").replace(
        f"template = {json.dumps(TEMPLATE)}", 'template_file = "prompts/bom.txt"')
    write_pipeline(products, "pipe", "asr", steps)
    assert adapter(products, "pipe", make_suite(tmp_path)).steps[0].template == TEMPLATE


def test_a_failed_step_names_its_model_and_the_status_once(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    """PL16: ``refine step 'bad' (model broken) failed: HTTP 400 from ...``."""
    write_pipeline(products, "pipe", "asr", step_toml("broken", server.url, name="bad"))
    suite = make_suite(tmp_path)
    output = adapter(products, "pipe", suite).get(suite.cases[0], 1)
    assert output.error.startswith("refine step 'bad' (model broken) failed: HTTP 400")
    assert output.error.count("HTTP 400") == 1


def test_a_pipeline_item_carries_its_recogniser_cost_and_total(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    """PL12: the recogniser's list price ($0.006 a minute over the case's 30 s) and the
    total (recogniser + refine step) are on every item; unknown when the recogniser has
    no price."""
    (products / "asr.toml").write_text('name = "asr"\nversion = "1"\nadapter = "cache"\n'
                                       "[pricing]\nusd_per_audio_minute = 0.006\n"
                                       'snapshot_date = "2026-12-01"\n'
                                       'source_url = "https://example.com/prices"\n')
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url))
    suite = make_suite(tmp_path)
    case = Case("c1", {**suite.cases[0].data, "duration_s": 30.0}, 1)
    facts = adapter(products, "pipe", suite).get(case, 1).meta["pipeline"]
    refine = 100 * 3 / 1e6 + 20 * 15 / 1e6
    assert facts["asr_cost_usd"] == pytest.approx(0.006 * 30 / 60)
    assert facts["total_cost_usd"] == pytest.approx(0.003 + refine)
    facts = adapter(products, "pipe", suite).get(suite.cases[1], 1).meta["pipeline"]
    assert facts["asr_cost_usd"] is None and facts["total_cost_usd"] is None


def test_a_rewrite_equal_to_its_input_is_flagged_unchanged(
        products: Path, server: MessagesServer, tmp_path: Path) -> None:
    """PL15: c3 has no filler, so the fixer returns it unchanged: counted, not hidden."""
    write_pipeline(products, "pipe", "asr", step_toml("fixer", server.url))
    suite = make_suite(tmp_path)
    pipe = adapter(products, "pipe", suite)
    assert pipe.get(suite.cases[0], 1).meta["pipeline"]["steps"][0]["unchanged"] is False
    assert pipe.get(suite.cases[2], 1).meta["pipeline"]["steps"][0]["unchanged"] is True
    [step] = adapter(products, "pipe", suite).get(suite.cases[2], 1).meta["pipeline"]["steps"]
    assert step["cached"] is True and step["unchanged"] is True  # from the cache too
