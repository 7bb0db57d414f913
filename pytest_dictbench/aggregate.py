"""Turning item records into per-suite, per-product results. Pure: no pytest, no I/O."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .judge.report import judges_table
from .methods.base import ItemRecord, Method
from .model import Product, Suite
from .stats import latency_summary

__all__ = ["REPORT_SCHEMA_VERSION", "record_sort_key", "suite_score", "summarize"]

#: Version of the ``dictbench.json`` layout.
REPORT_SCHEMA_VERSION = 1

SCORED = frozenset({"passed", "failed"})


def record_sort_key(record: ItemRecord) -> tuple[str, str, str, int]:
    """Records sort by suite, product, case id, repetition: the order of every report."""
    return (record["suite"], record["product"], record["case_id"], record["repetition"])


def suite_score(records: Iterable[ItemRecord]) -> float | None:
    """Mean over cases of the median score over that case's scored repetitions.

    Errors and untested items carry no score and are left out (never counted as 0).
    """
    by_case: dict[str, list[float]] = defaultdict(list)
    for record in records:
        if record["status"] in SCORED:
            by_case[record["case_id"]].append(float(record["score"]))
    if not by_case:
        return None
    return statistics.fmean(statistics.median(v) for _, v in sorted(by_case.items()))


def _product_entry(
    records: Sequence[ItemRecord], suite: Suite, product: Product | None, method: Method
) -> dict[str, Any]:
    statuses = [r["status"] for r in records]
    scored = [r for r in records if r["status"] in SCORED]
    return {
        "product": records[0]["product"],
        "version": product.version if product else None,
        "adapter": product.adapter if product else None,
        "environment": dict(product.environment) if product else {},
        "items": len(records),
        "passed": statuses.count("passed"),
        "failed": statuses.count("failed"),
        "errors": statuses.count("error"),
        "not_tested": statuses.count("not_tested"),
        "empty": sum(1 for r in scored if r.get("empty")),
        "cases": len(suite.cases),
        "cases_scored": len({r["case_id"] for r in scored}),
        "canary_leaks": sorted({r["case_id"] for r in records if r.get("canary_leak")}),
        "score": suite_score(records),
        "tables": method.aggregate(scored, suite) if scored else {},
        "judging": judges_table(records),
        "pending_adjudications": sum(len(r.get("pending", ())) for r in records),
        "latency": latency_summary([r["latency_ms"] for r in scored
                                    if r.get("latency_ms") is not None]),
    }


def summarize(
    records: Iterable[ItemRecord],
    suites: Mapping[str, Suite],
    products: Mapping[str, Product],
    methods: Mapping[str, Method],
    canary: Mapping[str, Mapping[str, bool]],
) -> dict[str, Any]:
    """Build the body of ``dictbench.json`` from every item record of a run.

    :param canary: per suite id, each data file and whether it carries the canary.
    """
    grouped: dict[str, dict[str, list[ItemRecord]]] = defaultdict(lambda: defaultdict(list))
    for record in sorted(records, key=record_sort_key):
        grouped[record["suite"]][record["product"]].append(record)
    entries = []
    for suite_id in sorted(grouped):
        suite = suites[suite_id]
        method = methods[suite.method]
        missing = sorted(f for f, ok in canary.get(suite_id, {}).items() if not ok)
        entries.append({
            "id": suite.id,
            "version": suite.version,
            "title": suite.title,
            "method": suite.method,
            "headline": getattr(method, "headline", None),
            "locale": suite.locale,
            "repetitions": max(r["repetition"] for p in grouped[suite_id].values() for r in p),
            "canary": {"status": "missing" if missing else "ok", "missing_in": missing},
            "products": [
                _product_entry(recs, suite, products.get(name), method)
                for name, recs in sorted(grouped[suite_id].items())
            ],
        })
    return {"schema_version": REPORT_SCHEMA_VERSION, "suites": entries}
