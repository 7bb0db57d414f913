"""The ``case_scores`` rows: per suite x product of a run, what a paired comparison reads
(``compare.CaseScores``), written with the run and read back a thousand runs at once
for a trend. Scores are little-endian float64 (the same bytes on both backends), so
they read back bit for bit."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection, select

from ..compare import CaseScores
from ..redact import scrub
from . import schema as t

__all__ = ["case_rows", "read_case_scores"]

#: Runs named per query.
_CHUNK = 500


def case_rows(pk: int, tables: Mapping[tuple[str, str], CaseScores]) -> list[dict[str, Any]]:
    """The rows of a run's case scores, by ``(suite, product)``."""
    rows = []
    for (suite, product), table in tables.items():
        rows.append({"run": pk, "suite": suite, "product": product,
                     "cases": scrub(json.dumps(list(table.cases), ensure_ascii=False,
                                               separators=(",", ":"))),
                     "scores": struct.pack(f"<{len(table.scores)}d", *table.scores),
                     "failed": bytes(table.failed), "provisional": table.provisional})
    return rows


def read_case_scores(conn: Connection, suite: str, product: str,
                     run_ids: Iterable[str]) -> dict[str, CaseScores]:
    """``run id -> CaseScores`` of those runs that have a row (runs recorded before
    schema version 2 have none). Runs with the same cases, or the same failures, share
    one tuple of them."""
    wanted = list(dict.fromkeys(run_ids))
    found: dict[str, CaseScores] = {}
    parsed: dict[str, tuple[Any, ...]] = {}
    flags: dict[bytes, tuple[bool, ...]] = {}
    c = t.case_scores.c
    for start in range(0, len(wanted), _CHUNK):
        query = select(t.runs.c.run_id, c.cases, c.scores, c.failed, c.provisional).join(
            t.runs, t.runs.c.id == c.run).where(
            c.suite == suite, c.product == product,
            t.runs.c.run_id.in_(wanted[start:start + _CHUNK]))
        for run_id, cases, scores, failed, provisional in conn.execute(query):
            if cases not in parsed:
                parsed[cases] = tuple(json.loads(cases))
            failed = bytes(failed)
            if failed not in flags:
                flags[failed] = tuple(map(bool, failed))
            found[run_id] = CaseScores(parsed[cases],
                                       struct.unpack(f"<{len(parsed[cases])}d", scores),
                                       flags[failed], provisional)
    return found
