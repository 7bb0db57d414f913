"""A pipeline product's report entry: what each refine step cost and how long it took.
Pure: item records in, plain JSON out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from ...stats import latency_summary

__all__ = ["pipeline_summary"]


def pipeline_summary(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Per step: items, calls made this run, cache hits, errors, empty and unchanged
    rewrites, latency (median, p95...) and list cost; and the refined texts' totals.
    ``None`` when no record comes from a pipeline.

    ``cost_usd`` is the list price of every rewrite the items use (a cache hit counts
    the call that made it); ``spent_usd`` only what this run's calls cost;
    ``asr_cost_usd`` what the recogniser's outputs cost (its captures' own cost, else
    its list price times the audio length) and ``total_cost_usd`` the two together.
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
                "empty": 0, "unchanged": 0, "cost_usd": 0.0, "spent_usd": 0.0})
            row["items"] += 1
            row["calls"] += int(step.get("calls", 0))
            row["cached"] += bool(step.get("cached"))
            row["errors"] += step.get("status") == "error"
            row["empty"] += bool(step.get("empty"))
            row["unchanged"] += bool(step.get("unchanged"))
            row["cost_usd"] += float(step.get("cost_usd") or 0.0)
            if not step.get("cached"):
                row["spent_usd"] += float(step.get("cost_usd") or 0.0)
            if step.get("latency_ms") is not None and step.get("status") != "error":
                latencies.setdefault(step["step"], []).append(float(step["latency_ms"]))
    for name, row in steps.items():
        row["latency"] = latency_summary(latencies.get(name, []))
    refine = sum(row["cost_usd"] for row in steps.values())
    return {
        "asr": sorted({str(f.get("asr")) for f in facts}),
        "scored": sorted({str(f.get("scored")) for f in facts}),
        "items": len(facts),
        "refined_empty": sum(1 for f in facts if f.get("refined") is not None
                             and not str(f["refined"]).strip()),
        "refined_unchanged": sum(1 for f in facts if f.get("refined") is not None
                                 and f["refined"] == f.get("raw")),
        "steps": steps,
        "cost_usd": refine,
        "spent_usd": sum(row["spent_usd"] for row in steps.values()),
        **_end_to_end(facts, refine),
    }


def _end_to_end(facts: Sequence[Mapping[str, Any]], refine: float) -> dict[str, Any]:
    """The recogniser's cost over the items and the total with the refine steps; both
    ``None`` (and ``asr_cost_missing`` counts the items) when an item's is unknown."""
    costs = [f.get("asr_cost_usd") for f in facts]
    unknown = sum(1 for c in costs if c is None)
    if unknown:
        return {"asr_cost_usd": None, "total_cost_usd": None, "asr_cost_missing": unknown}
    asr = sum((Decimal(str(c)) for c in costs), Decimal(0))
    return {"asr_cost_usd": float(asr), "total_cost_usd": float(asr + Decimal(str(refine)))}
