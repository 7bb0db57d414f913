"""Stores for the tests: a SQLite file, and a fresh database on the throwaway PostgreSQL
server that .ci/postgres starts (``DICTBENCH_TEST_POSTGRES``); in CI a missing server
fails the PostgreSQL tests instead of skipping them."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.store import ProductFacts, RunFacts, SuiteFacts

POSTGRES_ENV = "DICTBENCH_TEST_POSTGRES"


def postgres_server() -> str:
    """The server's URL; fails in CI (CI=true) and skips elsewhere when it is missing."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        message = (f"{POSTGRES_ENV} is not set: start a throwaway server with "
                   "'eval \"$(.ci/postgres start)\"' (.ci/run does)")
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return url


def fresh_database() -> Iterator[str]:
    """A new empty database on the server, dropped afterwards."""
    import psycopg

    server = postgres_server()
    name = f"dictbench_{secrets.token_hex(6)}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base, _, _ = server.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def store_url(kind: str, tmp_path: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield "sqlite:///" + str(tmp_path / "store.sqlite")
    else:
        yield from fresh_database()


def record(case_id: str, score: float | None, *, product: str = "p1", suite: str = "s1",
           status: str | None = None, text: str | None = "hello", repetition: int = 1,
           flags: dict[str, bool] | None = None) -> dict[str, Any]:
    """A small item record (the fields the store and the statistics read)."""
    return {"case_id": case_id, "flags": flags or {}, "product": product,
            "provisional": 0, "repetition": repetition, "score": score,
            "status": status or ("passed" if (score or 0) >= 50 else "failed"),
            "suite": suite, "suite_path": f"cases/{suite}", "text": text,
            "text_sha256": None if text is None else f"sha-{text}"}


def report_for(records: list[dict[str, Any]], version: str = "1.0") -> dict[str, Any]:
    """A dictbench.json body with one entry per suite x product of ``records``."""
    suites: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in records:
        suites.setdefault(r["suite"], {}).setdefault(r["product"], []).append(r)
    body = []
    for suite, products in suites.items():
        entries = []
        for product, rows in products.items():
            scores = [r["score"] for r in rows if r["score"] is not None]
            mean = sum(scores) / len(scores) if scores else None
            entries.append({"product": product, "version": "1", "adapter": "cache",
                            "score": mean, "score_ci": {"low": mean, "high": mean},
                            "items": len(rows),
                            "passed": sum(r["status"] == "passed" for r in rows),
                            "failed": sum(r["status"] == "failed" for r in rows),
                            "errors": 0, "not_tested": 0})
        body.append({"id": suite, "version": version, "title": suite, "locale": "en-US",
                     "method": "error_rate", "products": entries})
    return {"schema_version": 1, "suites": body}


def lines(records: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    return [(r, json.dumps(r, sort_keys=True, separators=(",", ":"))) for r in records]


def facts(run_id: str, records: list[dict[str, Any]], *, finished: str = "2026-12-01T00:00:00Z",
          version: str = "1.0", private: tuple[str, ...] = (), **extra: Any) -> RunFacts:
    suites = sorted({r["suite"] for r in records})
    products = sorted({r["product"] for r in records})
    return RunFacts(run_id=run_id, finished_utc=finished, dictbench_version="0.2.0",
                    host="test", suites=[SuiteFacts(s, version, private=s in private)
                                         for s in suites],
                    products=[ProductFacts(p, "1") for p in products], **extra)


def put(store: Any, run_id: str, records: list[dict[str, Any]], **kw: Any) -> str:
    """Record a run of ``records`` (its report from :func:`report_for`)."""
    report = json.dumps(report_for(records, kw.get("version", "1.0")))
    return store.record_run(facts(run_id, records, **kw), report, "{}\n", lines(records))
