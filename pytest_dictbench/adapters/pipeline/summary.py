"""A pipeline product's report entry: what each refine step cost and how long it took.
Pure: item records in, plain JSON out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...stats import latency_summary

__all__ = ["pipeline_summary"]


def pipeline_summary(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Per step: items, calls made this run, cache hits, errors, empty rewrites, latency
    (median, p95...) and list cost; and the refined texts' totals. ``None`` when no
    record comes from a pipeline.

    ``cost_usd`` is the list price of every rewrite the items use (a cache hit counts
    the call that made it); ``spent_usd`` only what this run's calls cost.
    """
    facts = [r["pipeline"] for r in records if isinstance(r.get("pipeline"), Mapping)]
    if not facts:
        return None
    steps: dict[str, dict[str, Any]] = {}
    latencies: dict[str, list[float]] = {}
    for fact in facts:
        for step in fact.get("steps", ()):
            row = steps.setdefault(step["step"], {
                "model": step["model"], "items": 0, "calls": 0, "cached": 0, "errors": 0,
                "empty": 0, "cost_usd": 0.0, "spent_usd": 0.0})
            row["items"] += 1
            row["calls"] += int(step.get("calls", 0))
            row["cached"] += bool(step.get("cached"))
            row["errors"] += step.get("status") == "error"
            row["empty"] += bool(step.get("empty"))
            row["cost_usd"] += float(step.get("cost_usd") or 0.0)
            if not step.get("cached"):
                row["spent_usd"] += float(step.get("cost_usd") or 0.0)
            if step.get("latency_ms") is not None and step.get("status") != "error":
                latencies.setdefault(step["step"], []).append(float(step["latency_ms"]))
    for name, row in steps.items():
        row["latency"] = latency_summary(latencies.get(name, []))
    return {
        "asr": sorted({str(f.get("asr")) for f in facts}),
        "scored": sorted({str(f.get("scored")) for f in facts}),
        "items": len(facts),
        "refined_empty": sum(1 for f in facts if f.get("refined") is not None
                             and not str(f["refined"]).strip()),
        "steps": steps,
        "cost_usd": sum(row["cost_usd"] for row in steps.values()),
        "spent_usd": sum(row["spent_usd"] for row in steps.values()),
    }
