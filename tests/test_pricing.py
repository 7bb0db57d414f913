"""Cost per product: ASR list price x audio minutes, plus the judges; hand-worked values."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_dictbench.errors import ProductError
from pytest_dictbench.model import Case, Product, Suite
from pytest_dictbench.pricing import cost_summary
from pytest_dictbench.products import load_product

SUITE = Suite(id="s", version="1", title="t", method="keypoints", locale="ja-JP", canary="C",
              root=Path("."), cases=(Case("a", {"id": "a", "duration_s": 90.0}),
                                     Case("b", {"id": "b", "duration_s": 30.0}),
                                     Case("c", {"id": "c"})))


def _product(pricing: dict) -> Product:
    return Product("p", "1", "cache", Path("p.toml"), pricing=pricing)


def test_asr_judge_total_and_per_audio_hour() -> None:
    records = [{"case_id": "a", "status": "passed"},
               {"case_id": "b", "status": "error", "audio_duration_s": 30.0,  # judge error:
                "output_status": "complete"},                                   # billed
               {"case_id": "c", "status": "not_tested"}]                          # not billed
    cost = cost_summary(records, SUITE, _product({"usd_per_audio_minute": 0.006,
                                                  "snapshot_date": "2026-11-30"}), 0.012)
    # 2 minutes of audio x $0.006 = $0.012; + $0.012 judges = $0.024 for 1/30 h
    assert cost["audio_seconds"] == 120.0
    assert cost["asr_cost_usd"] == pytest.approx(0.012)
    assert cost["total_cost_usd"] == pytest.approx(0.024)
    assert cost["usd_per_audio_hour"] == pytest.approx(0.72)
    assert cost["missing"] == [] and cost["price_snapshot_date"] == "2026-11-30"


def test_missing_price_and_duration_are_named_not_guessed() -> None:
    records = [{"case_id": "a", "status": "passed"}, {"case_id": "c", "status": "passed"}]
    cost = cost_summary(records, SUITE, _product({}), 0.5)
    assert cost["asr_cost_usd"] is None and cost["total_cost_usd"] is None
    assert cost["judge_cost_usd"] == 0.5
    assert cost["missing"] == ["no [pricing] usd_per_audio_minute",
                               "1 items without an audio duration"]


def test_bad_pricing_table_is_refused_with_the_file(tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text('name = "p"\nversion = "1"\nadapter = "cache"\n'
                                     '[pricing]\nusd_per_audio_minute = -1\n'
                                     'snapshot_date = "2026-11-30"\n')
    with pytest.raises(ProductError, match=r"p\.toml.*pricing"):
        load_product("p", tmp_path)


def test_a_rejected_request_is_not_billed_but_listed() -> None:
    """J13: list price times the audio that was transcribed."""
    records = [{"case_id": "a", "status": "passed", "output_status": "complete"},
               {"case_id": "b", "status": "error", "output_status": "error"}]
    cost = cost_summary(records, SUITE, _product({"usd_per_audio_minute": 0.006}), 0.0)
    # 1.5 minutes x $0.006 = $0.009; the rejected 30 s are not billed
    assert cost["audio_seconds"] == 90.0 and cost["asr_cost_usd"] == 0.009
    assert cost["rejected_requests"] == 1


def test_an_unknown_judge_cost_makes_the_total_unknown() -> None:
    records = [{"case_id": "a", "status": "passed"}]
    cost = cost_summary(records, SUITE, _product({"usd_per_audio_minute": 0.006}), None,
                        ["judge 'j' has no price"])
    assert cost["asr_cost_usd"] == 0.009 and cost["judge_cost_usd"] is None
    assert cost["total_cost_usd"] is None and cost["usd_per_audio_hour"] is None
    assert cost["missing"] == ["judge cost unknown: judge 'j' has no price"]


def test_a_private_suite_finds_its_durations_by_the_keyed_id() -> None:
    from dataclasses import replace

    from pytest_dictbench.private import public_case_id

    private = replace(SUITE, manifest={"private": True})
    records = [{"case_id": public_case_id(private, "a"), "status": "passed"}]
    cost = cost_summary(records, private, _product({"usd_per_audio_minute": 0.006}), 0.0)
    assert cost["audio_seconds"] == 90.0 and cost["missing"] == []


def test_captures_that_carry_their_own_cost_are_summed_exactly() -> None:
    """A cloud provider's capture knows its cost (billed seconds or tokens at the bundled
    or the product's price): the report sums those, no [pricing] needed."""
    records = [{"case_id": "a", "status": "passed", "asr_cost_usd": "0.0000358333"},
               {"case_id": "b", "status": "failed", "asr_cost_usd": "0.1"},
               {"case_id": "c", "status": "not_tested"}]
    cost = cost_summary(records, SUITE, _product({}), 0.0)
    assert cost["asr_cost_usd"] == pytest.approx(0.1000358333, abs=1e-12)
    assert cost["missing"] == [] and cost["asr_cost_basis"] == "captures"
    records[1]["asr_cost_usd"] = None  # a capture whose price was unknown
    cost = cost_summary(records, SUITE, _product({"usd_per_audio_minute": 0.006}), 0.0)
    assert cost["asr_cost_usd"] is None and cost["total_cost_usd"] is None
    assert cost["missing"] == ["1 of 2 captures without a known cost"]
