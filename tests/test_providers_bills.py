"""Bills as providers bill (findings PS1, PV10, PS2, PS3, PV16): token-billed OpenAI
models priced per token, Groq's 10-second minimum, ElevenLabs' own billed duration and
its keyterm surcharge and minimum, and a capture without a price that says why. Every
expected figure is worked out by hand from the price table with ``Decimal``."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from adapter_support import live_adapter, make_product, write_tone
from http_stt_server import Reply
from provider_servers import KEY_ENV, ElevenLabsFake, OpenAIFake, ProviderServer, Request

from pytest_dictbench.adapters.providers.estimate import CaptureEstimate
from pytest_dictbench.model import Case, Output, Product, Suite
from pytest_dictbench.pricing import cost_summary

#: Set-up W of the findings: five clips, 73.25 s in all.
CLIPS = {"w1": 2.5, "w2": 6.0, "w3": 9.75, "w4": 15.0, "w5": 40.0}


pytestmark = pytest.mark.usefixtures("provider_key")


@pytest.fixture
def clips(tmp_path: Path) -> Suite:
    root = tmp_path / "suite"
    cases = []
    for line, (case_id, seconds) in enumerate(CLIPS.items(), start=1):
        write_tone(root / f"audio/{case_id}.wav", seconds=seconds)
        cases.append(Case(case_id, {"id": case_id, "audio": f"audio/{case_id}.wav",
                                    "reference": "x", "canary": "C"}, line))
    return Suite(id="w", version="1", title="w", method="error_rate", locale="en-US",
                 canary="C", root=root, cases=tuple(cases))


class Groq(OpenAIFake):
    """Groq's ``json`` answer: the text and ``x_groq``, no ``usage``."""

    def answer(self, request: Request) -> Reply:
        return Reply(body={"text": "hello", "x_groq": {"id": "req_01"}})


class Tokens(OpenAIFake):
    """The "Default" example of ``/audio/transcriptions`` in OpenAI's openapi.yaml."""

    def answer(self, request: Request) -> Reply:
        return Reply(body={"text": "hello", "usage": {
            "type": "tokens", "input_tokens": 14,
            "input_token_details": {"text_tokens": 0, "audio_tokens": 14},
            "output_tokens": 45, "total_tokens": 59}})


def run(tmp_path: Path, suite: Suite, kind: str, server: ProviderServer,
        pricing: dict[str, Any] | None = None, **settings: Any) -> list[Output]:
    product = make_product(tmp_path / "products", kind, {
        "base_url": server.url, "api_key_env": KEY_ENV, "timeout_s": 10, **settings})
    if pricing is not None:
        product = Product(**{**product.__dict__, "pricing": pricing})
    adapter = live_adapter(product, suite)
    outputs = [adapter.get(case, 1) for case in suite.cases]
    assert all(o is not None and o.status == "complete" for o in outputs), outputs
    return outputs  # type: ignore[return-value]


def costs(outputs: list[Output]) -> list[Decimal]:
    return [Decimal(o.meta["provider"]["cost_usd"]) for o in outputs]


def test_token_billed_openai_models_are_priced_per_token(
        tmp_path: Path, clips: Suite, serve: Any) -> None:
    """PS1, PV10: the spec's token usage at the bundled per-token price."""
    outputs = run(tmp_path, clips, "openai", serve(Tokens()), model="gpt-4o-transcribe")
    facts = outputs[0].meta["provider"]
    assert facts["tokens"] == {"input_audio": 14, "input_text": 0, "output": 45}
    # (14 x 6.00 + 0 x 2.50 + 45 x 10.00) / 1e6 per capture
    assert costs(outputs) == [Decimal("0.000534")] * 5
    assert facts["cost_basis"] == "tokens"
    mini = run(tmp_path / "mini", clips, "openai", serve(Tokens()),
               model="gpt-4o-mini-transcribe")
    assert costs(mini) == [Decimal(14 * 3 + 45 * 5) / 1_000_000] * 5


def test_a_per_minute_price_costs_a_token_answer_by_audio_length(
        tmp_path: Path, clips: Suite, serve: Any) -> None:
    """PS1: a product's per-minute price still gives a cost, and says on what basis."""
    outputs = run(tmp_path, clips, "openai", serve(Tokens()), model="gpt-4o-transcribe",
                  pricing={"usd_per_audio_minute": 0.006, "snapshot_date": "2026-12-01"})
    total = sum(costs(outputs), Decimal(0))
    assert total == Decimal("0.006") * Decimal("73.25") / 60  # 0.007325
    assert outputs[0].meta["provider"]["cost_basis"].startswith("audio length")


def test_groqs_ten_second_minimum_is_billed(tmp_path: Path, clips: Suite,
                                           serve: Any) -> None:
    """PS2: 10 + 10 + 10 + 15 + 40 = 85 s at $0.00185 per minute."""
    server = serve(Groq())
    outputs = run(tmp_path, clips, "openai", server, model="whisper-large-v3",
                  base_url=server.url + "/openai/v1")
    total = sum(costs(outputs), Decimal(0))
    assert total == Decimal("0.00185") * 85 / 60  # 0.0026208333...
    assert outputs[0].meta["provider"]["priced_seconds"] == 10.0
    assert outputs[0].meta["provider"]["billed_seconds"] == 2.5
    assert "priced_seconds" not in outputs[4].meta["provider"]


def test_the_capture_estimate_applies_the_minimum(clips: Suite, tmp_path: Path) -> None:
    """PS2: ``--capture-estimate`` bills the same 85 s."""
    product = make_product(tmp_path / "p", "openai", {"model": "whisper-large-v3"})
    estimate = CaptureEstimate({"openai": None})

    class NoCache:
        class cache:
            @staticmethod
            def read() -> dict[Any, Any]:
                return {}

    for case in clips.cases:
        estimate.add(product, clips, case, 1, NoCache, recapture=False)
    assert estimate.products["p1"].cost_usd == Decimal("0.00185") * 85 / 60


class Scribe(ElevenLabsFake):
    """The spec's ``single_channel`` answer with the duration ElevenLabs billed."""

    def answer(self, request: Request) -> Reply:
        reply = super().answer(request)
        reply.body["audio_duration_secs"] = 12.5
        return reply


def test_elevenlabs_bills_its_own_duration_and_the_keyterm_surcharge(
        tmp_path: Path, clips: Suite, serve: Any) -> None:
    """PS3: billed 12.5 s (not the local 2.5 s); keyterms +20 %; over 100 keyterms at
    least 20 s."""
    one = Suite(**{**clips.__dict__, "cases": clips.cases[:1]})
    [plain] = run(tmp_path / "a", one, "elevenlabs", serve(Scribe()))
    assert plain.meta["provider"]["billed_seconds"] == 12.5
    rate = Decimal("0.0067")
    assert costs([plain]) == [rate * Decimal("12.5") / 60]
    [terms] = run(tmp_path / "b", one, "elevenlabs", serve(Scribe()),
                  options={"keyterms": ["Sato"]})
    assert costs([terms]) == [rate * Decimal("12.5") / 60 * Decimal("1.20")]
    [many] = run(tmp_path / "c", one, "elevenlabs", serve(Scribe()),
                 options={"keyterms": [f"term{i}" for i in range(101)]})
    assert costs([many]) == [rate * 20 / 60 * Decimal("1.20")]


def test_a_capture_without_a_price_says_why(tmp_path: Path, clips: Suite,
                                            serve: Any) -> None:
    """PV16: no price is an unknown cost with its reason, in the record and the report."""
    one = Suite(**{**clips.__dict__, "cases": clips.cases[:1]})
    [output] = run(tmp_path, one, "openai", serve(Groq()), model="whisper-9")
    facts = output.meta["provider"]
    assert facts["cost_usd"] is None
    assert facts["cost_unknown"] == "no price for openai.whisper-9 (bundled table or [pricing])"
    record = {"status": "passed", "output_status": "complete", "case_id": "w1",
              "audio_duration_s": 2.5, "asr_cost_usd": None,
              "asr_cost_unknown": facts["cost_unknown"]}
    summary = cost_summary([record], one, None, 0.0)  # type: ignore[list-item]
    assert summary["asr_cost_usd"] is None
    assert summary["missing"] == ["1 of 1 captures without a known cost (no price for "
                                  "openai.whisper-9 (bundled table or [pricing]))"]


def test_the_report_names_the_bundled_prices_date_and_the_model_versions(
        tmp_path: Path, clips: Suite, serve: Any) -> None:
    """PV16: the bundled price's date and source reach the report's cost; PV27: the
    model versions a product ran on are listed with counts."""
    from pytest_dictbench.aggregate import StatsOptions, _product_entry
    from pytest_dictbench.methods.error_rate import ErrorRate
    from pytest_dictbench.report.record import _provider_facts

    class Versions(OpenAIFake):
        calls = 0

        def answer(self, request: Request) -> Reply:
            Versions.calls += 1
            model = "whisper-1-2025" if Versions.calls <= 3 else "whisper-1-2026"
            return Reply(body={"text": "x", "model": model,
                               "usage": {"type": "duration", "seconds": 3}})

    outputs = run(tmp_path, clips, "openai", serve(Versions()), model="whisper-1")
    # "error": transcribed, then not scored (a judge's error), so no metrics are needed
    records = [{"product": "p1", "status": "error", "output_status": "complete",
                "case_id": o.case_id, "audio_duration_s": 3.0, "latency_ms": 1.0,
                "score": 1.0, "asr_cost_usd": o.meta["provider"]["cost_usd"],
                **_provider_facts(o.meta["provider"])} for o in outputs]
    entry = _product_entry(records, clips, None, ErrorRate(),  # type: ignore[arg-type]
                           StatsOptions(), len(clips.cases))
    assert entry["model_versions"] == {"whisper-1-2025": 3, "whisper-1-2026": 2}
    assert entry["cost"]["price_snapshot_date"] == "2026-12-01"
    assert entry["cost"]["price_source_url"] == "https://openai.com/api/pricing/"


def test_two_model_versions_are_flagged_in_the_md_and_the_terminal() -> None:
    """PV27."""
    from pytest_dictbench.report import markdown, terminal

    suite = {"id": "s", "canary": {"status": "ok"}, "products": [
        {"product": "dg", "canary_leaks": [], "model_versions": {
            "general-nova-3 2025-01-01.0": 2, "general-nova-3 2025-06-01.0": 2}}]}
    assert terminal._notes(suite) == [
        "s/dg: ran on 2 model versions (general-nova-3 2025-01-01.0: 2, "
        "general-nova-3 2025-06-01.0: 2)"]
    assert markdown._notes(suite, [])[0] == ("- **dg** ran on 2 model versions: general-nova-3 "
                                             "2025-01-01.0 (2), general-nova-3 2025-06-01.0 (2)")


def test_retries_and_holds_are_counted_per_product(tmp_path: Path, clips: Suite,
                                                   serve: Any) -> None:
    """PV12: the retries and rate-limit holds of a product, in dictbench.json's entry
    and the terminal's spend line."""
    from pytest_dictbench.aggregate import StatsOptions, _product_entry
    from pytest_dictbench.methods.error_rate import ErrorRate
    from pytest_dictbench.report.record import _provider_facts

    fake = Groq()
    fake.faults = [Reply(503, {"error": {"message": "busy"}}, headers={"Retry-After": "0.5"})]
    product = make_product(tmp_path / "products", "openai", {
        "base_url": serve(fake).url, "api_key_env": KEY_ENV, "model": "whisper-1",
        "concurrency": 1})
    adapter = live_adapter(product, clips)
    outputs = [adapter.get(case, 1) for case in clips.cases[:2]]
    records = [{"product": "p1", "status": "error", "output_status": "complete",
                "case_id": o.case_id, "asr_cost_usd": o.meta["provider"]["cost_usd"],
                **_provider_facts(o.meta["provider"])} for o in outputs if o]
    entry = _product_entry(records, clips, None, ErrorRate(),  # type: ignore[arg-type]
                           StatsOptions(), len(clips.cases))
    assert entry["provider_retries"] == {"retries": 1, "holds": 0}
    assert adapter.spend_line().endswith("; 1 retries, 0 held for a rate limit")


def test_the_md_and_html_show_a_provider_products_cost_in_any_suite() -> None:
    """PV16: an error_rate suite's report shows the captures' cost."""
    from pytest_dictbench.report.method_tables import method_tables

    suite = {"method": "error_rate", "products": [
        {"product": "dg", "cost": {"audio_seconds": 60.0, "asr_cost_usd": 0.0043,
                                   "judge_cost_usd": 0.0, "total_cost_usd": 0.0043,
                                   "usd_per_audio_hour": 0.258, "asr_cost_basis": "captures",
                                   "price_snapshot_date": "2026-12-01", "missing": []}},
        {"product": "local"}]}
    [table] = method_tables(suite)
    assert table.title == "Cost" and [row[0] for row in table.rows] == ["dg"]
    assert table.rows[0][6] == "captures at the price of 2026-12-01"
