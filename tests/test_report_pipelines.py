"""The report tables of refine pipelines and of the dev/test split, on hand-made
report entries (cells worked out by hand)."""

from __future__ import annotations

from pytest_dictbench.report.pipelines import pipeline_tables, split_tables

PIPE = {"asr": ["whisper"], "scored": ["refined"], "items": 3, "refined_empty": 1,
        "cost_usd": 0.0012, "spent_usd": 0.0004,
        "steps": {"clean": {"model": "haiku", "items": 3, "calls": 1, "cached": 2,
                            "errors": 0, "empty": 1, "cost_usd": 0.0012, "spent_usd": 0.0004,
                            "latency": {"n": 3, "median": 250.0, "p95": 385.0}}}}


def test_a_suite_without_pipelines_has_no_pipeline_tables() -> None:
    assert pipeline_tables({"products": [{"product": "whisper", "score": 90.0}]}) == ()


def test_pipeline_and_step_rows() -> None:
    products, steps = pipeline_tables({"products": [
        {"product": "whisper", "score": 90.0},
        {"product": "pipe", "score": 87.5, "pipeline": PIPE}]})
    assert products.title == "Refine pipelines"
    assert products.rows == (("pipe", "whisper", "refined", "87.5", "3", "1", "$0.001200",
                              "$0.000400"),)
    assert steps.rows == (("pipe", "clean", "haiku", "3", "1", "2", "0", "1",
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
