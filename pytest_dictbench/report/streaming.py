"""The report tables and figure of streaming products. Pure.

From each product entry's ``streaming`` summary
(:func:`pytest_dictbench.adapters.streaming.summary.streaming_summary`):
:func:`streaming_tables` gives the timing table (p50 / p90 / p95 of each timing, the
stability figures, pacing) and the paired comparison of streamed and batch accuracy;
:func:`streaming_groups` gives the latency distribution figure (the percentiles of the
main timings per product, as grouped bars). A faster-than-real-time run is marked not
comparable for latency in every row it has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .method_tables import PlainTable
from .sections import MetricGroups, fmt

__all__ = ["streaming_groups", "streaming_note", "streaming_tables"]

#: Timings shown, with their column heading.
_SHOWN = (("ttfp_audible_ms", "First partial from audible"),
          ("ttfp_onset_ms", "First partial from onset"),
          ("ttff_ms", "First final"), ("final_latency_ms", "Final latency"),
          ("partial_lag_mean_ms", "Partial lag"))
_FIGURE = (("ttfp_audible_ms", "first partial"), ("ttff_ms", "first final"),
           ("final_latency_ms", "final latency"))


def _entries(suite: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return sorted((e for e in suite.get("products", [])
                   if isinstance(e.get("streaming"), Mapping)), key=lambda e: str(e["product"]))


def _spread(timing: Mapping[str, Any] | None) -> str:
    if not timing or not timing.get("n"):
        return "-"
    return " / ".join(fmt(timing.get(f"p{q}")) for q in (50, 90, 95))


def streaming_tables(suite: Mapping[str, Any]) -> Sequence[PlainTable]:
    """The suite's streaming tables (none when no product of it streams)."""
    entries = _entries(suite)
    if not entries:
        return ()
    rows, pairs = [], []
    for e in entries:
        s = e["streaming"]
        mode = "real time" if s.get("realtime", True) else \
            "faster than real time: NOT comparable for latency"
        pacing = s.get("pacing") or {}
        timings = s.get("timings") or {}
        rows.append((str(e["product"]), fmt(s.get("items")), mode,
                     ", ".join(fmt(c) for c in s.get("chunk_ms", [])) or "-",
                     *(_spread(timings.get(field)) for field, _ in _SHOWN),
                     fmt(s.get("flicker_rate_mean"), "rate"),
                     fmt(s.get("first_form_share_mean"), "share"),
                     f"{fmt(pacing.get('p95_ms'))} / {fmt(pacing.get('max_ms'))}",
                     fmt(pacing.get("invalid"))))
        batch = s.get("batch")
        if isinstance(batch, Mapping) and batch.get("pairs"):
            interval = batch.get("interval") or {}
            pairs.append((str(e["product"]), str(batch.get("source", "engine")),
                          fmt(batch["pairs"]),
                          fmt(batch.get("batch_score"), "score"),
                          fmt(batch.get("stream_score"), "score"),
                          f"{fmt(batch.get('difference'), 'score')} "
                          f"[{fmt(interval.get('low'), 'score')}, "
                          f"{fmt(interval.get('high'), 'score')}]",
                          fmt(batch.get("resolved")),
                          fmt(batch.get("batch_wer"), "rate"),
                          fmt(batch.get("stream_wer"), "rate")))
    tables = [PlainTable(
        "Streaming timings",
        ("Product", "Items", "Pacing", "Chunk (ms)",
         *(f"{title} p50 / p90 / p95 (ms)" for _, title in _SHOWN),
         "Flicker rate", "Shown in final form", "Pacing late p95 / max (ms)",
         "Invalid (pacing)"),
        tuple(rows), (1, 4, 5, 6, 7, 8, 9, 10, 11, 12),
        "One clock per item: times from the first audible sample (or the speech onset) "
        "to the first word shown and the first final, from the last audible sample to "
        "the last change of the final text; flicker rate: words changed or withdrawn "
        "after being shown, per final word. An item whose audio went out later than its "
        "pacing bound is invalid and not scored (docs/streaming.md).")]
    if pairs:
        tables.append(PlainTable(
            "Streaming against batch accuracy",
            ("Product", "Batch from", "Pairs", "Batch score", "Streamed score",
             "Difference [95% CI]", "Resolved", "Batch WER", "Streamed WER"),
            tuple(pairs), (2, 3, 4, 5, 7, 8),
            "Batch from 'engine': the same engine's text of the whole file; from a "
            "product: that product's items of this run (its batch_product). Both scored "
            "by the suite's method on the same items; difference = streamed - batch, "
            "with a paired percentile bootstrap interval."))
    return tuple(tables)


def streaming_groups(suite: Mapping[str, Any]) -> MetricGroups | None:
    """The latency distribution figure: p50, p90 and p95 of the main timings."""
    entries = [e for e in _entries(suite) if e["streaming"].get("realtime", True)]
    if not entries:
        return None
    categories = tuple(f"{title} p{q}" for _, title in _FIGURE for q in (50, 90, 95))
    values = {str(e["product"]): tuple(
        ((e["streaming"].get("timings") or {}).get(field) or {}).get(f"p{q}")
        for field, _ in _FIGURE for q in (50, 90, 95)) for e in entries}
    return MetricGroups("Streaming latency", "Latency (ms), real-time runs", categories,
                        values, None, "latency_ms")


def streaming_note(entry: Mapping[str, Any]) -> str | None:
    """One terminal line of a product's streaming figures (``None`` for a batch one)."""
    s = entry.get("streaming")
    if not isinstance(s, Mapping):
        return None
    timings = s.get("timings") or {}

    def p50_p95(field: str) -> str:
        t = timings.get(field) or {}
        return f"{fmt(t.get('p50'))}/{fmt(t.get('p95'))} ms"

    parts = [f"streaming p50/p95: first partial {p50_p95('ttfp_audible_ms')}, first final "
             f"{p50_p95('ttff_ms')}, final latency {p50_p95('final_latency_ms')}; flicker rate "
             f"{fmt(s.get('flicker_rate_mean'), 'rate')}; "
             f"{fmt((s.get('pacing') or {}).get('invalid'))} invalid for pacing"]
    if not s.get("realtime", True):
        parts.append("faster than real time: NOT comparable for latency")
    batch = s.get("batch")
    if isinstance(batch, Mapping) and batch.get("pairs"):
        interval = batch.get("interval") or {}
        parts.append(f"streamed - batch ({batch.get('source', 'engine')}): "
                     f"{batch['difference']:+.2f} [{interval.get('low', 0):+.2f}, "
                     f"{interval.get('high', 0):+.2f}] on {batch['pairs']} items")
    return "; ".join(parts)
