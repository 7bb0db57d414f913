"""A streaming product's report entry, from its item records. Pure.

Per timing (:data:`.metrics.TIMING_FIELDS`): n, p50, p90 and p95 over the items that
have it; the stability figures (mean flicker rate, mean share shown in final form);
pacing (p95 of the items' p95 lateness, the worst chunk, items invalid for it); and,
where the items carry the engine's batch text of the same audio (``batch_text``), the
paired comparison of streamed and batch accuracy: both texts scored by the suite's
method, item by item, with the project's bootstrap interval of the mean difference
(:func:`pytest_dictbench.stats.compare_paired`; negative = streaming loses). A
streaming product that names a ``batch_product`` of the same run is paired with that
product's items instead (:func:`paired_batch_product`, called by the aggregate).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ... import stats
from ...model import SCORED_STATUSES, Output, ScoreContext, Suite
from .metrics import TIMING_FIELDS

__all__ = ["desktop_timings", "paired_batch_product", "streaming_summary"]

#: The percentiles reported for each timing.
PERCENTILES = (50, 90, 95)


def desktop_timings(facts: Mapping[str, Any]) -> dict[str, Any] | None:
    """A desktop rig capture's timings under the streaming names, so that apps and APIs
    share one table: ``first_text_s`` (first audible sample to the first text) is the
    time to first partial; ``final_text_s - audio_end_s`` the final latency, measured
    from the end of the audio file (the rig hears the first audible sample, not the
    last). An app shows no final marker, so there is no time to first final."""
    first, final, end = (facts.get(k) for k in ("first_text_s", "final_text_s",
                                                 "audio_end_s"))
    if not isinstance(first, (int, float)) and not isinstance(final, (int, float)):
        return None
    return {"source": "desktop", "realtime": True,
            "ttfp_audible_ms": round(first * 1000, 3) if isinstance(first, (int, float))
            else None,
            "final_latency_ms": round((final - end) * 1000, 3)
            if isinstance(final, (int, float)) and isinstance(end, (int, float)) else None}


def _spread(values: Sequence[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0, **{f"p{q}": None for q in PERCENTILES}}
    return {"n": len(values), **{f"p{q}": round(stats.percentile(values, q), 3)
                                 for q in PERCENTILES}}


def _mean(values: Sequence[float]) -> float | None:
    return round(math.fsum(values) / len(values), 6) if values else None


def _numbers(items: Sequence[Mapping[str, Any]], field: str) -> list[float]:
    return [float(s[field]) for s in items if isinstance(s.get(field), (int, float))
            and not isinstance(s.get(field), bool)]


def streaming_summary(records: Sequence[Mapping[str, Any]], suite: Suite | None = None,
                      method: Any = None, resamples: int = stats.DEFAULT_RESAMPLES,
                      seed: int = stats.DEFAULT_SEED) -> dict[str, Any] | None:
    """The entry (``None`` when no record is of a streaming capture)."""
    streamed = [r for r in records if isinstance(r.get("streaming"), Mapping)]
    if not streamed:
        return None
    timed = [r["streaming"] for r in streamed if r["status"] in SCORED_STATUSES]
    pacing = [s.get("pacing") or {} for s in (r["streaming"] for r in streamed)]
    realtime = all(s.get("realtime", True) for s in (r["streaming"] for r in streamed))
    entry: dict[str, Any] = {
        "items": len(streamed),
        "realtime": realtime,
        "comparable": realtime,
        "chunk_ms": sorted({s.get("chunk_ms") for s in (r["streaming"] for r in streamed)
                            if s.get("chunk_ms") is not None}),
        "timings": {field: _spread(_numbers(timed, field)) for field in TIMING_FIELDS},
        "flicker_rate_mean": _mean(_numbers(timed, "flicker_rate")),
        "first_form_share_mean": _mean(_numbers(timed, "first_form_share")),
        "pacing": {
            "p95_ms": round(stats.percentile(_numbers(pacing, "p95_ms"), 95), 3)
            if _numbers(pacing, "p95_ms") else None,
            "max_ms": max(_numbers(pacing, "max_ms"), default=None),
            "invalid": sum(1 for p in pacing if p.get("valid") is False),
        },
    }
    named = sorted({str(r["streaming"]["batch_product"]) for r in streamed
                    if isinstance(r["streaming"].get("batch_product"), str)})
    if named:  # paired by the report with that product's items (see aggregate)
        entry["batch_product"] = named[0]
    if suite is not None and method is not None:
        batch = _batch_pairs(streamed, suite, method, resamples, seed)
        if batch is not None:
            entry["batch"] = batch
    return entry


#: One item paired: (streamed score, batch score, streamed failed, batch failed, the
#: streamed item's metrics, the batch item's metrics).
_Pair = tuple[float, float, bool, bool, Mapping[str, Any], Mapping[str, Any]]


def _batch_pairs(records: Sequence[Mapping[str, Any]], suite: Suite, method: Any,
                 resamples: int, seed: int) -> dict[str, Any] | None:
    """Streamed against batch accuracy on the items that carry the engine's batch text."""
    cases = {case.id: case for case in suite.cases}
    pairs: list[_Pair] = []
    unpaired = 0
    for record in records:
        text = record["streaming"].get("batch_text")
        case = cases.get(record["case_id"])
        if not isinstance(text, str) or case is None or record["status"] not in \
                SCORED_STATUSES or record.get("score") is None:
            continue
        result = method.score(case, Output(case.id, text, record["repetition"]),
                              ScoreContext(suite=suite))
        if result.score is None or result.provisional:
            unpaired += 1  # the batch text's score needs a judge: not paired here
            continue
        pairs.append((float(record["score"]), float(result.score),
                      record["status"] == "failed", not result.passed,
                      record.get("metrics") or {}, result.metrics))
    if not pairs:
        return {"pairs": 0, "unpaired": unpaired} if unpaired else None
    return {"source": "engine", **_compare(pairs, resamples, seed), "unpaired": unpaired}


def paired_batch_product(stream: Sequence[Mapping[str, Any]],
                         batch: Sequence[Mapping[str, Any]], name: str,
                         resamples: int = stats.DEFAULT_RESAMPLES,
                         seed: int = stats.DEFAULT_SEED) -> dict[str, Any]:
    """Streamed against the batch product ``name`` of the same run, on the items
    (case and repetition) both scored."""
    scored = {(r["case_id"], r["repetition"]): r for r in batch
              if r["status"] in SCORED_STATUSES and r.get("score") is not None}
    pairs: list[_Pair] = []
    for r in stream:
        other = scored.get((r["case_id"], r["repetition"]))
        if other is None or r["status"] not in SCORED_STATUSES or r.get("score") is None:
            continue
        pairs.append((float(r["score"]), float(other["score"]), r["status"] == "failed",
                      other["status"] == "failed", r.get("metrics") or {},
                      other.get("metrics") or {}))
    if not pairs:
        return {"source": f"product {name}", "pairs": 0}
    return {"source": f"product {name}", **_compare(pairs, resamples, seed)}


def _compare(pairs: Sequence[_Pair], resamples: int, seed: int) -> dict[str, Any]:
    stream_scores, batch_scores, stream_failed, batch_failed, stream_m, batch_m = \
        (list(column) for column in zip(*pairs, strict=True))
    compared = stats.compare_paired(batch_scores, stream_scores, batch_failed,
                                    stream_failed, resamples=resamples, seed=seed)
    return {"pairs": len(pairs), "batch_score": compared["mean_a"],
            "stream_score": compared["mean_b"], "difference": compared["mean_difference"],
            "interval": compared["interval"], "resolved": compared["resolved"],
            "only_stream_failed": compared["only_b_failed"],
            "only_batch_failed": compared["only_a_failed"],
            "batch_wer": _pooled_wer(batch_m), "stream_wer": _pooled_wer(stream_m)}


def _pooled_wer(metrics: Sequence[Mapping[str, Any]]) -> float | None:
    """Word errors over reference words, pooled over the items (``None`` unless every
    item has word counts)."""
    if not metrics or not all("word_ref" in m for m in metrics):
        return None
    errors = sum(float(m[k]) for m in metrics for k in ("word_sub", "word_del", "word_ins"))
    words = sum(float(m["word_ref"]) for m in metrics)
    return round(errors / words, 6) if words else None
