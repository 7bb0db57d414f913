"""A streaming product's report entry and tables, from hand-written item records, and
the local agreement policy on hand-written hypotheses (issue 43)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.adapters.streaming.agreement import Agreement, Word
from pytest_dictbench.adapters.streaming.summary import streaming_summary
from pytest_dictbench.methods.error_rate import ErrorRate
from pytest_dictbench.model import Case, Output, ScoreContext, Suite
from pytest_dictbench.report.streaming import streaming_groups, streaming_tables

SUITE = Suite(id="s", version="1", title="t", method="error_rate", locale="en-US",
              canary="", root=Path("."), params={"threshold": 0.15},
              cases=(Case("c1", {"id": "c1", "reference": "hello world"}, 1),
                     Case("c2", {"id": "c2", "reference": "good morning"}, 2)))


def record(case_id: str, text: str, batch: str | None, ttfp: float, pacing_p95: float,
           valid: bool = True, realtime: bool = True) -> dict[str, Any]:
    result = ErrorRate().score(SUITE.cases[0 if case_id == "c1" else 1],
                               Output(case_id, text), ScoreContext(SUITE))
    streaming: dict[str, Any] = {
        "realtime": realtime, "chunk_ms": 100.0, "ttfp_audible_ms": ttfp,
        "ttfp_onset_ms": ttfp - 50, "ttff_ms": ttfp + 300, "final_latency_ms": 250.0,
        "partial_lag_mean_ms": None, "flicker_rate": 0.5, "first_form_share": 0.75,
        "pacing": {"p95_ms": pacing_p95, "max_ms": pacing_p95 + 1, "valid": valid}}
    if batch is not None:
        streaming["batch_text"] = batch
    return {"case_id": case_id, "repetition": 1, "status": "passed" if result.passed
            else "failed", "score": result.score, "metrics": dict(result.metrics),
            "streaming": streaming}


def test_percentiles_and_pacing_by_hand() -> None:
    records = [record("c1", "hello world", None, 100.0, 1.0),
               record("c2", "good morning", None, 200.0, 2.0),
               record("c1", "hello world", None, 400.0, 30.0, valid=False)]
    entry = streaming_summary(records)
    assert entry is not None
    # 100, 200, 400: p50 200; p90 at position 1.8: 200 + 0.8 * 200; p95 at 1.9
    assert entry["timings"]["ttfp_audible_ms"] == {"n": 3, "p50": 200.0, "p90": 360.0,
                                                   "p95": 380.0}
    assert entry["timings"]["partial_lag_mean_ms"]["n"] == 0
    # pacing p95 of the items' p95 (1, 2, 30): 2 + 0.9 * 28
    assert entry["pacing"] == {"p95_ms": 27.2, "max_ms": 31.0, "invalid": 1}
    assert entry["flicker_rate_mean"] == 0.5 and entry["first_form_share_mean"] == 0.75
    assert streaming_summary([{"case_id": "c1", "status": "passed"}]) is None


def test_streamed_against_batch_by_hand() -> None:
    """c1 streamed 'hello word' (WER 0.5, score 50) where batch had it right (100); c2
    both right: mean difference (50 - 100 + 0) / 2 = -25; pooled WER 1/4 against 0."""
    records = [record("c1", "hello word", "hello world", 100.0, 1.0),
               record("c2", "good morning", "good morning", 100.0, 1.0)]
    batch = streaming_summary(records, SUITE, ErrorRate(), resamples=200)["batch"]
    assert batch["pairs"] == 2 and batch["difference"] == -25.0
    assert batch["batch_score"] == 100.0 and batch["stream_score"] == 75.0
    assert batch["stream_wer"] == 0.25 and batch["batch_wer"] == 0.0
    assert batch["only_stream_failed"] == 1 and batch["only_batch_failed"] == 0
    assert batch["interval"]["low"] <= -25.0 <= batch["interval"]["high"]


def test_tables_mark_a_fast_run_not_comparable() -> None:
    fast = streaming_summary([record("c1", "hello word", "hello world", 100.0, 0.0,
                                     realtime=False)], SUITE, ErrorRate(), resamples=200)
    suite = {"products": [{"product": "fast", "streaming": fast}]}
    timings, paired = streaming_tables(suite)
    assert "NOT comparable for latency" in timings.rows[0][2]
    assert timings.rows[0][4] == "100.0 / 100.0 / 100.0"
    assert paired.rows[0][1] == "engine" and paired.rows[0][5].startswith("-50.0 [")
    assert streaming_groups(suite) is None  # the figure shows real-time runs only
    assert streaming_tables({"products": [{"product": "batch"}]}) == ()


def w(text: str, start: float, end: float) -> Word:
    return Word(text, start, end)


def test_local_agreement_commits_what_two_hypotheses_share() -> None:
    policy = Agreement()
    assert policy.insert([w(" hello", 0.0, 0.5)]) == []
    assert [x.text for x in policy.insert([w(" hello", 0.0, 0.5), w(" word", 0.6, 0.9)])] \
        == [" hello"]
    # world disagrees with word: nothing new is committed
    assert policy.insert([w(" hello", 0.0, 0.5), w(" world", 0.6, 0.9),
                          w(" this", 1.0, 1.2)]) == []
    agreed = policy.insert([w(" hello", 0.0, 0.5), w(" world", 0.6, 0.9),
                            w(" this", 1.0, 1.2), w(" is", 1.3, 1.4)])
    assert [x.text for x in agreed] == [" world", " this"]
    assert Agreement.text(policy.tail) == "is"
    policy.finish([w(" hello", 0.0, 0.5), w(" world", 0.6, 0.9), w(" this", 1.0, 1.2),
                   w(" is", 1.3, 1.4), w(" a", 1.5, 1.6), w(" test", 1.7, 2.0)])
    assert Agreement.text(policy.committed) == "hello world this is a test"
    assert policy.tail == []


def test_a_repeated_committed_word_is_not_committed_twice() -> None:
    """Whisper's times wobble: a word that starts just before the last committed end and
    repeats it is the same word."""
    policy = Agreement(committed=[w(" hello", 0.0, 0.5)])
    policy.insert([w(" hello", 0.45, 0.6), w(" there", 0.7, 0.9)])
    policy.insert([w(" hello", 0.45, 0.6), w(" there", 0.7, 0.9)])
    assert Agreement.text(policy.committed) == "hello there"


@pytest.mark.parametrize("missing", ["timings", "batch"])
def test_tables_survive_missing_parts(missing: str) -> None:
    entry = streaming_summary([record("c1", "hello world", "hello world", 100.0, 1.0)],
                              SUITE, ErrorRate(), resamples=50)
    entry.pop(missing)
    assert streaming_tables({"products": [{"product": "p", "streaming": entry}]})


def test_a_desktop_capture_reports_under_the_streaming_names() -> None:
    """The rig's example capture (docs/desktop.md): first text 4.914 s after the first
    audible sample; final text at 7.855 s, 3.09 s of audio: final latency 4.765 s."""
    from pytest_dictbench.adapters.streaming.summary import desktop_timings
    from pytest_dictbench.report.record import _streaming

    facts = {"first_text_s": 4.914, "final_text_s": 7.855, "audio_end_s": 3.09}
    timings = desktop_timings(facts)
    assert timings == {"source": "desktop", "realtime": True, "ttfp_audible_ms": 4914.0,
                       "final_latency_ms": 4765.0}
    assert _streaming(Output("c1", "x", meta={"desktop": facts})) == {"streaming": timings}
    assert desktop_timings({"settle": "empty"}) is None
    entry = streaming_summary([{"case_id": "c1", "repetition": 1, "status": "passed",
                                "score": 100.0, "streaming": timings}])
    assert entry["timings"]["ttfp_audible_ms"]["p50"] == 4914.0
    assert entry["timings"]["ttff_ms"]["n"] == 0 and entry["pacing"]["invalid"] == 0
