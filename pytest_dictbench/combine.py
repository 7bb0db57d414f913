"""Runs of separate machines made into one: each product's outputs from the run that
measured it, written as ``cache`` products that one pytest run scores and reports
together (``dictbench combine``, docs/rigs.md). Pure: a store in, files out.

Runs combine only when a report over them would mean what a single run's report means:

- every run measured the same suites at the same versions;
- every run falls in one environment cohort (the same hardware and software fields the
  reports keep products apart by); runs of two cohorts are refused, naming the fields;
- each product comes from one run (two runs of one product are two measurements, not one);
- no suite is private (a private suite's texts are not in the store: an item scored
  without its text is refused when the outputs are written).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .store import Store, StoredRun, StoreError

__all__ = ["CombinedProduct", "check_runs", "write_cache_products"]

#: Output fields an item record carries over as it is.
_CARRIED = ("latency_ms", "rtf", "audio_duration_s", "environment")
#: A product name that is safe as a file name (what product files are named by).
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_OUTPUT_STATUSES = frozenset({"complete", "not_tested", "unsupported", "failed", "invalid",
                              "blank", "error"})


@dataclass(frozen=True)
class CombinedProduct:
    """A product as one of the combined runs measured it."""

    name: str
    version: str
    adapter: str
    run_id: str


def _suites_of(report: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {suite["id"]: suite for suite in report.get("suites", [])}


def _differing(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def check_runs(store: Store, run_ids: Sequence[str]) -> tuple[list[StoredRun],
                                                               list[CombinedProduct]]:
    """The runs and their products, or StoreError saying why they do not combine."""
    if len(run_ids) < 2:
        raise StoreError("name two or more runs to combine")
    runs = [store.run(run_id) for run_id in run_ids]
    if len({run.run_id for run in runs}) < len(runs):
        raise StoreError("a run is named twice")
    first = runs[0]
    for run in runs[1:]:
        if run.suites != first.suites:
            raise StoreError(
                f"runs {first.run_id} and {run.run_id} measured different suites or suite "
                f"versions ({_versions(first)} vs {_versions(run)}); a report combines runs "
                "of the same suite versions only")
        if run.cohort != first.cohort or run.cohort is None:
            fields = _differing(first.environment, run.environment) or ["(unknown)"]
            raise StoreError(
                f"runs {first.run_id} and {run.run_id} ran in different environment cohorts "
                f"(differing: {', '.join(fields)}); the reports would keep them apart, so "
                "they are not combined")
    products: dict[str, CombinedProduct] = {}
    for run in runs:
        report = json.loads(store.report(run.run_id))
        for suite in _suites_of(report).values():
            for entry in suite.get("products", []):
                name = str(entry["product"])
                if not _SAFE_NAME.fullmatch(name):
                    raise StoreError(f"run {run.run_id}: product name {name!r} cannot name a "
                                     "product file")
                seen = products.get(name)
                if seen is not None and seen.run_id != run.run_id:
                    raise StoreError(f"product {name!r} is in runs {seen.run_id} and "
                                     f"{run.run_id}; combine takes each product from one run")
                products[name] = CombinedProduct(name, str(entry.get("version", "")),
                                                 str(entry.get("adapter", "")), run.run_id)
    return runs, sorted(products.values(), key=lambda p: p.name)


def _versions(run: StoredRun) -> str:
    return ", ".join(f"{s}@{v}" for s, v in sorted(run.suites.items())) or "none"


def output_line(record: Mapping[str, Any]) -> dict[str, Any]:
    """The output a stored item record was scored from, as an outputs-file line."""
    status = record.get("output_status") or "complete"
    if record.get("status") == "error" or status not in _OUTPUT_STATUSES:
        status = "error"
    line: dict[str, Any] = {"case_id": record["case_id"],
                            "repetition": record.get("repetition", 1), "status": status}
    if record.get("text") is not None:
        line["text"] = record["text"]
    if status == "error":
        line["error"] = record.get("message") or "an error in the combined run"
    for key in _CARRIED:
        if record.get(key) is not None:
            line[key] = record[key]
    return line


def write_cache_products(store: Store, products: Sequence[CombinedProduct],
                         folder: Path) -> list[Path]:
    """``folder/<name>.toml`` (adapter ``cache``) and ``folder/<name>/<suite>.jsonl`` for
    each product, from its run's item records; returns the product files."""
    written = []
    folder.mkdir(parents=True, exist_ok=True)
    for product in products:
        by_suite: dict[str, list[str]] = {}
        for record in store.items(product.run_id, product=product.name):
            if record.get("text") is None and record.get("status") in ("passed", "failed"):
                raise StoreError(f"run {product.run_id}: suite {record['suite']!r} case "
                                 f"{record['case_id']!r} of {product.name} was scored, but "
                                 "the store holds no text of it (a private suite's texts are "
                                 "not stored), so it cannot be combined")
            by_suite.setdefault(record["suite"], []).append(
                json.dumps(output_line(record), ensure_ascii=False, sort_keys=True))
        outputs = folder / product.name
        outputs.mkdir(exist_ok=True)
        for suite_id, lines in by_suite.items():
            (outputs / f"{suite_id}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        toml = folder / f"{product.name}.toml"
        description = (f"outputs of run {product.run_id} (measured there with adapter "
                       f"{product.adapter or 'unknown'})")
        toml.write_text(f"name = {json.dumps(product.name)}\nversion = "
                        f"{json.dumps(product.version)}\nadapter = \"cache\"\n"
                        f"description = {json.dumps(description)}\n", encoding="utf-8")
        written.append(toml)
    return written
