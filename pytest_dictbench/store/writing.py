"""Writing a run's rows: its suites, products and summaries, its items in batches, and
its ``case_scores`` (inside :meth:`SqlStore.record_run`'s transaction)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection

from ..compare import CaseTally
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


def _scrubbed(lines: list[str]) -> list[str]:
    """``scrub`` of each line, done on the batch at once (one pass of every secret's
    search instead of one per line); a line break cannot be part of a key, so the
    batch splits back into the same lines, else each line is scrubbed alone."""
    parts = scrub("\n".join(lines)).split("\n")
    return parts if len(parts) == len(lines) else [scrub(line) for line in lines]


#: The ``items`` columns in the order :func:`write_items` gives them.
_ITEM_COLUMNS = ("run", "ordinal", "suite", "product", "case_id", "repetition", "status",
                 "score", "provisional", "output_sha256", "record")
#: A placeholder per driver parameter style (SQLite's and psycopg's).
_PLACEHOLDER = {"qmark": "?", "format": "%s", "pyformat": "%s"}


def write_items(conn: Connection, pk: int, run_id: str,
                items: Iterable[tuple[Mapping[str, Any], str]], private: set[str]) -> int:
    """A run's ``items`` rows in batches, then its ``case_scores``; returns the count."""
    batch: list[tuple[Any, ...]] = []
    lines: list[str] = []
    tallies: dict[tuple[str, str], CaseTally] = {}
    count = 0
    for record, line in items:
        pair = (record["suite"], record["product"])
        if pair not in tallies:
            tallies[pair] = CaseTally()
        tallies[pair].add(record)  # type: ignore[arg-type]
        if record["suite"] in private and record.get("text") is not None:
            raise StoreError(f"run {run_id}: an item of private suite "
                             f"{record['suite']} carries its output text; not stored")
        batch.append((pk, count, record["suite"], record["product"], str(record["case_id"]),
                      int(record.get("repetition") or 1), record["status"],
                      record.get("score"), int(record.get("provisional") or 0),
                      record.get("text_sha256")))
        lines.append(line.rstrip("\n"))
        count += 1
        if len(batch) >= _BATCH:
            _insert(conn, batch, lines)
            batch, lines = [], []
    if batch:
        _insert(conn, batch, lines)
    if tallies:
        conn.execute(t.case_scores.insert(), case_rows(pk, {
            pair: tally.case_scores() for pair, tally in tallies.items()}))
    return count


def _insert(conn: Connection, batch: list[tuple[Any, ...]], lines: list[str]) -> None:
    """One batch of item rows, each with its scrubbed line, straight to the driver
    (SQLAlchemy's per-row parameter processing cost a tenth of recording a run)."""
    rows = [(*row, line) for row, line in zip(batch, _scrubbed(lines), strict=True)]
    mark = _PLACEHOLDER.get(conn.dialect.paramstyle)
    if mark is None:
        conn.execute(t.items.insert(), [dict(zip(_ITEM_COLUMNS, row, strict=True))
                                        for row in rows])
        return
    conn.exec_driver_sql(f"INSERT INTO {t.items.name} ({', '.join(_ITEM_COLUMNS)}) "
                         f"VALUES ({', '.join([mark] * len(_ITEM_COLUMNS))})", rows)
