"""Writing a run's rows: its suites, products and summaries, its items in batches, and
its ``case_scores`` (inside :meth:`SqlStore.record_run`'s transaction)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection

from ..redact import scrub
from . import schema as t
from .cases import case_rows
from .interface import RunFacts, StoreError

__all__ = ["json_text", "write_items", "write_suites_products"]

#: Item rows inserted per statement.
_BATCH = 2000


def json_text(value: Any) -> str:
    """Canonical JSON text, scrubbed of secrets."""
    return scrub(json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")))


def write_suites_products(conn: Connection, pk: int, facts: RunFacts,
                          report: Mapping[str, Any]) -> None:
    """A run's ``run_suites``, ``run_products`` and ``summaries`` rows."""
    if facts.suites:
        conn.execute(t.run_suites.insert(), [
            {"run": pk, "suite": s.id, "version": s.version, "digest": s.digest,
             "private": s.private, "title": s.title, "locale": s.locale,
             "method": s.method} for s in facts.suites])
    if facts.products:
        conn.execute(t.run_products.insert(), [
            {"run": pk, "product": p.name, "version": p.version, "adapter": p.adapter,
             "settings_digest": p.settings_digest, "environment": json_text(p.environment)}
            for p in facts.products])
    rows = []
    for suite in report.get("suites", []):
        for entry in suite.get("products", []):
            interval = entry.get("score_ci") or {}
            rows.append({
                "run": pk, "suite": suite["id"], "product": entry["product"],
                "suite_version": str(suite.get("version", "")),
                "product_version": str(entry.get("version", "")),
                "score": entry.get("score"), "score_low": interval.get("low"),
                "score_high": interval.get("high"),
                **{k: int(entry.get(k) or 0)
                   for k in ("items", "passed", "failed", "errors", "not_tested")}})
    if rows:
        conn.execute(t.summaries.insert(), rows)


def write_items(conn: Connection, pk: int, run_id: str,
                items: Iterable[tuple[Mapping[str, Any], str]], private: set[str]) -> int:
    """A run's ``items`` rows in batches, then its ``case_scores``; returns the count."""
    batch: list[dict[str, Any]] = []
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    count = 0
    for record, line in items:
        groups.setdefault((record["suite"], record["product"]), []).append(record)
        if record["suite"] in private and record.get("text") is not None:
            raise StoreError(f"run {run_id}: an item of private suite "
                             f"{record['suite']} carries its output text; not stored")
        batch.append({"run": pk, "ordinal": count, "suite": record["suite"],
                      "product": record["product"], "case_id": str(record["case_id"]),
                      "repetition": int(record.get("repetition") or 1),
                      "status": record["status"], "score": record.get("score"),
                      "provisional": int(record.get("provisional") or 0),
                      "output_sha256": record.get("text_sha256"),
                      "record": scrub(line.rstrip("\n"))})
        count += 1
        if len(batch) >= _BATCH:
            conn.execute(t.items.insert(), batch)
            batch = []
    if batch:
        conn.execute(t.items.insert(), batch)
    if groups:
        conn.execute(t.case_scores.insert(), case_rows(pk, groups))
    return count
