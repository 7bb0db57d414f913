"""The report tables of refine pipelines and of the dev/test split, on hand-made
report entries (cells worked out by hand)."""

from __future__ import annotations

import pytest

from pytest_dictbench.report.pipelines import pipeline_tables, split_tables

PIPE = {"asr": ["whisper"], "scored": ["refined"], "items": 3, "refined_empty": 1,
        "refined_unchanged": 1, "cost_usd": 0.0012, "spent_usd": 0.0004,
        "asr_cost_usd": 0.003, "total_cost_usd": 0.0042,
        "steps": {"clean": {"model": "haiku", "items": 3, "calls": 1, "cached": 2,
                            "errors": 0, "empty": 1, "unchanged": 1, "cost_usd": 0.0012,
                            "spent_usd": 0.0004,
                            "latency": {"n": 3, "median": 250.0, "p95": 385.0}}}}


def test_a_suite_without_pipelines_has_no_pipeline_tables() -> None:
    assert pipeline_tables({"products": [{"product": "whisper", "score": 90.0}]}) == ()


def test_pipeline_and_step_rows() -> None:
    products, steps = pipeline_tables({"products": [
        {"product": "whisper", "score": 90.0},
        {"product": "pipe", "score": 87.5, "pipeline": PIPE}]})
    assert products.title == "Refine pipelines"
    # PL12: the recogniser's cost and the total beside the refine cost; PL15: unchanged
    assert products.rows == (("pipe", "whisper", "refined", "87.5", "3", "1", "1",
                              "$0.003000", "$0.001200", "$0.004200", "$0.000400"),)
    assert steps.rows == (("pipe", "clean", "haiku", "3", "1", "2", "0", "1", "1",
                           "250.0 / 385.0", "$0.001200"),)


def test_no_split_no_table_and_a_split_names_its_half_and_strata() -> None:
    assert split_tables({}) == ()
    [table] = split_tables({"split": {
        "half": "dev", "seed": 7,
        "suites": {"mini": {"cases": 2, "of": 4, "cases_sha256": "ab" * 32,
                            "strata": {"chat/-": {"dev": 1, "test": 1},
                                       "memo/-": {"dev": 1, "test": 1}}}}}})
    assert table.rows == (("mini", "2", "4", "chat/-: dev 1, test 1; memo/-: dev 1, test 1",
                           "abababababab"),)
    assert table.note.startswith("This report covers the dev half only (seed 7; each "
                                 "case's half follows from the seed and its own id).")


def test_the_summary_adds_the_recogniser_cost_to_the_refine_cost() -> None:
    """PL12: per product, the recogniser's cost (4 x 23.2931 s at $0.006 a minute, by
    hand $0.00931724) and the total with the refine steps ($0.0265)."""
    from pytest_dictbench.adapters.pipeline.summary import pipeline_summary

    step = {"step": "s1", "model": "m", "status": "complete", "cost_usd": 0.006625,
            "cached": False, "calls": 1}
    facts = {"asr": "p1", "scored": "raw", "raw": "a", "refined": "b", "steps": [step],
             "asr_cost_usd": 0.006 * 23.2931 / 60}
    summary = pipeline_summary([{"pipeline": facts}] * 4)
    assert summary["asr_cost_usd"] == pytest.approx(0.00931724)
    assert summary["total_cost_usd"] == pytest.approx(0.00931724 + 0.0265)
    unknown = pipeline_summary([{"pipeline": facts}, {"pipeline": {**facts,
                                                                   "asr_cost_usd": None}}])
    assert unknown["asr_cost_usd"] is None and unknown["total_cost_usd"] is None
    assert unknown["asr_cost_missing"] == 1
