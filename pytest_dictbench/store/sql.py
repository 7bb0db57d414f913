"""The store over SQLAlchemy Core: one implementation of :class:`Store` for SQLite and
PostgreSQL (``engines`` sets each up). Every write is one transaction; every error is a
:class:`StoreError` naming the store (password redacted) and, for a corrupt row, the run.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, and_, func, select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from ..compare import CaseScores
from ..redact import scrub
from . import schema as t
from .cases import read_case_scores
from .engines import Backend
from .interface import (
    Condition,
    CorruptRunError,
    Declaration,
    RunFacts,
    StoredRun,
    StoreError,
    Summary,
)
from .migrations import migrate
from .writing import json_text, write_items, write_suites_products

__all__ = ["SqlStore"]

class SqlStore:
    """A results store (see :class:`~.interface.Store`)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.location = backend.location
        with self._write() as conn:
            backend.lock_schema(conn)
            migrate(conn, self.location, own_database=backend.own_database)

    # -- plumbing ------------------------------------------------------------------

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except StoreError:
            raise
        except (SQLAlchemyError, OSError, *self.backend.driver_errors) as exc:
            detail = getattr(exc, "orig", None) or exc
            message = self.backend.words(str(detail).strip().splitlines()[0] if str(detail)
                                         else type(detail).__name__)
            if "file is not a database" in message:
                message = "not a dictbench results store (not a SQLite database)"
            raise StoreError(f"{self.location}: {message}") from None

    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        with self._errors(), self.backend.engine.connect() as conn:
            conn = conn.execution_options(dictbench_write=True)
            with conn.begin():
                yield conn

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._errors(), self.backend.engine.connect() as conn, conn.begin():
            yield conn

    def close(self) -> None:
        self.backend.engine.dispose()

    # -- writing a run -------------------------------------------------------------

    def record_run(self, facts: RunFacts, report_text: str, run_info_text: str,
                   items: Iterable[tuple[Mapping[str, Any], str]], *,
                   before_commit: Callable[[], None] | None = None) -> str:
        try:
            report = json.loads(report_text)
        except ValueError as exc:
            raise StoreError(f"run {facts.run_id}: its dictbench.json is not JSON ({exc})"
                             ) from None
        private = {s.id for s in facts.suites if s.private}
        with self._write() as conn:
            taken = conn.execute(select(t.runs.c.id).where(
                t.runs.c.run_id == facts.run_id)).first()
            if taken:
                raise StoreError(f"{self.location}: run {facts.run_id} is already recorded")
            pk = conn.execute(t.runs.insert().values(
                run_id=facts.run_id, started_utc=facts.started_utc,
                finished_utc=facts.finished_utc, git_commit=facts.git_commit,
                git_dirty=facts.git_dirty, dictbench_version=facts.dictbench_version,
                host=facts.host, cohort=facts.cohort, environment=json_text(facts.environment),
                options=json_text(list(facts.options)), exit_status=facts.exit_status,
                complete=facts.complete, stop_reason=scrub(facts.stop_reason),
                source=facts.source, item_count=0, report=scrub(report_text),
                run_info=scrub(run_info_text))).inserted_primary_key[0]
            write_suites_products(conn, pk, facts, report)
            count = write_items(conn, pk, facts.run_id, items, private)
            conn.execute(t.runs.update().where(t.runs.c.id == pk).values(item_count=count))
            if before_commit is not None:
                before_commit()
        return facts.run_id

    # -- reading runs --------------------------------------------------------------

    def runs(self, *, suite: str | None = None, product: str | None = None,
             suite_version: str | None = None, cohort: str | None = None,
             commit: str | None = None, since: str | None = None, until: str | None = None,
             limit: int | None = None) -> list[StoredRun]:
        query = select(t.runs)
        if suite is not None or suite_version is not None:
            inner = select(t.run_suites.c.run)
            if suite is not None:
                inner = inner.where(t.run_suites.c.suite == suite)
            if suite_version is not None:
                inner = inner.where(t.run_suites.c.version == suite_version)
            query = query.where(t.runs.c.id.in_(inner))
        if product is not None:
            query = query.where(t.runs.c.id.in_(
                select(t.run_products.c.run).where(t.run_products.c.product == product)))
        if cohort is not None:
            query = query.where(t.runs.c.cohort == cohort)
        if commit:
            query = query.where(t.runs.c.git_commit.startswith(commit, autoescape=True))
        if since:
            query = query.where(t.runs.c.finished_utc >= since)
        if until:
            query = query.where(t.runs.c.finished_utc <= _day_end(until))
        query = query.order_by(t.runs.c.finished_utc.desc(), t.runs.c.id.desc())
        if limit is not None:
            query = query.limit(limit)
        with self._read() as conn:
            rows = list(conn.execute(query).mappings())[::-1]
            return self._stored(conn, rows)

    def _stored(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> list[StoredRun]:
        pks = [row["id"] for row in rows]
        suites: dict[int, dict[str, str]] = {pk: {} for pk in pks}
        products: dict[int, list[str]] = {pk: [] for pk in pks}
        official: dict[int, list[tuple[str, str]]] = {pk: [] for pk in pks}
        for start in range(0, len(pks), 500):
            chunk = pks[start:start + 500]
            for run, suite, version in conn.execute(select(
                    t.run_suites.c.run, t.run_suites.c.suite, t.run_suites.c.version).where(
                    t.run_suites.c.run.in_(chunk)).order_by(t.run_suites.c.suite)):
                suites[run][suite] = version
            for run, product in conn.execute(select(
                    t.run_products.c.run, t.run_products.c.product).where(
                    t.run_products.c.run.in_(chunk)).order_by(t.run_products.c.product)):
                products[run].append(product)
        in_force = self._in_force(conn)
        for (suite, product), pk in in_force.items():
            if pk in official:
                official[pk].append((suite, product))
        return [StoredRun(
            run_id=row["run_id"], finished_utc=row["finished_utc"],
            started_utc=row["started_utc"], git_commit=row["git_commit"],
            git_dirty=row["git_dirty"], dictbench_version=row["dictbench_version"],
            host=row["host"], cohort=row["cohort"],
            environment=self._loads(row["environment"], row["run_id"], "environment"),
            options=self._loads(row["options"], row["run_id"], "options"),
            complete=bool(row["complete"]), stop_reason=row["stop_reason"],
            exit_status=row["exit_status"], source=row["source"],
            suites=suites[row["id"]], products=products[row["id"]],
            items=row["item_count"], official=sorted(official[row["id"]]))
            for row in rows]

    def _in_force(self, conn: Connection) -> dict[tuple[str, str], int]:
        """``(suite, product)`` -> the run pk of the newest declaration."""
        found: dict[tuple[str, str], int] = {}
        for suite, product, run in conn.execute(select(
                t.official_runs.c.suite, t.official_runs.c.product, t.official_runs.c.run
                ).order_by(t.official_runs.c.id)):
            found[(suite, product)] = run
        return found

    def _loads(self, text: str, run_id: str, what: str) -> Any:
        try:
            return json.loads(text)
        except ValueError:
            raise CorruptRunError(self.location, run_id,
                                  f"its {what} is corrupt (not JSON)") from None

    def _pk(self, conn: Connection, run_id: str) -> tuple[int, str]:
        """The row id and full id of a run named by its id or a unique prefix."""
        found = list(conn.execute(select(t.runs.c.id, t.runs.c.run_id).where(
            t.runs.c.run_id.startswith(run_id, autoescape=True)).limit(2)))
        exact = [row for row in found if row[1] == run_id]
        if exact:
            return exact[0][0], exact[0][1]
        if not found or not run_id:
            raise StoreError(f"{self.location}: no run {run_id!r} in the store")
        if len(found) > 1:
            raise StoreError(f"{self.location}: {run_id!r} names more than one run; give "
                             "more of its id")
        return found[0][0], found[0][1]

    def run(self, run_id: str) -> StoredRun:
        with self._read() as conn:
            pk, _ = self._pk(conn, run_id)
            rows = list(conn.execute(select(t.runs).where(t.runs.c.id == pk)).mappings())
            return self._stored(conn, rows)[0]

    def report(self, run_id: str) -> str:
        return self._text(run_id, t.runs.c.report)

    def run_info(self, run_id: str) -> str:
        return self._text(run_id, t.runs.c.run_info)

    def _text(self, run_id: str, column: Any) -> str:
        with self._read() as conn:
            pk, _ = self._pk(conn, run_id)
            return str(conn.execute(select(column).where(t.runs.c.id == pk)).scalar_one())

    def item_lines(self, run_id: str) -> list[str]:
        with self._read() as conn:
            pk, _ = self._pk(conn, run_id)
            return [row[0] for row in conn.execute(select(t.items.c.record).where(
                t.items.c.run == pk).order_by(t.items.c.ordinal))]

    def items(self, run_id: str, *, suite: str | None = None,
              product: str | None = None) -> list[dict[str, Any]]:
        with self._read() as conn:
            pk, full = self._pk(conn, run_id)
            query = select(t.items.c.ordinal, t.items.c.record).where(t.items.c.run == pk)
            if suite is not None:
                query = query.where(t.items.c.suite == suite)
            if product is not None:
                query = query.where(t.items.c.product == product)
            rows = list(conn.execute(query.order_by(t.items.c.ordinal)))
        records = []
        for ordinal, text in rows:
            try:
                record = json.loads(text)
            except ValueError:
                record = None
            if not isinstance(record, dict):
                raise CorruptRunError(self.location, full, f"item {ordinal + 1} is corrupt "
                                      "(not a JSON object)")
            records.append(record)
        return records

    def item_scores(self, run_id: str, suite: str, product: str) -> list[dict[str, Any]]:
        with self._read() as conn:
            pk, _ = self._pk(conn, run_id)
            i = t.items.c
            rows = conn.execute(select(i.case_id, i.repetition, i.status, i.score,
                                       i.provisional).where(
                i.run == pk, i.suite == suite, i.product == product).order_by(i.ordinal))
            return [{"case_id": case, "repetition": repetition, "status": status,
                     "score": score, "provisional": provisional}
                    for case, repetition, status, score, provisional in rows]

    def case_scores(self, suite: str, product: str,
                    run_ids: Sequence[str]) -> dict[str, CaseScores]:
        with self._read() as conn:
            return read_case_scores(conn, suite, product, run_ids)

    def summaries(self, suite: str, product: str, *, suite_version: str | None = None,
                  cohort: str | None = None) -> list[Summary]:
        s, r = t.summaries, t.runs
        query = select(r.c.run_id, r.c.finished_utc, r.c.git_commit, r.c.cohort,
                       r.c.complete, s).join(
            r, r.c.id == s.c.run).where(and_(s.c.suite == suite, s.c.product == product))
        if suite_version is not None:
            query = query.where(s.c.suite_version == suite_version)
        if cohort is not None:
            query = query.where(r.c.cohort == cohort)
        with self._read() as conn:
            rows = list(conn.execute(query.order_by(r.c.finished_utc, r.c.id)).mappings())
        return [Summary(run_id=row["run_id"], finished_utc=row["finished_utc"],
                        git_commit=row["git_commit"], suite=row["suite"],
                        suite_version=row["suite_version"], product=row["product"],
                        product_version=row["product_version"], score=row["score"],
                        low=row["score_low"], high=row["score_high"], items=row["items"],
                        passed=row["passed"], failed=row["failed"], errors=row["errors"],
                        not_tested=row["not_tested"], cohort=row["cohort"],
                        complete=bool(row["complete"])) for row in rows]

    # -- official runs -------------------------------------------------------------

    def register_condition(self, condition: Condition) -> Condition:
        with self._write() as conn:
            query = select(func.count()).select_from(t.summaries).where(
                t.summaries.c.suite == condition.suite)
            if condition.product:
                query = query.where(t.summaries.c.product == condition.product)
            if conn.execute(query).scalar_one():
                whose = f"{condition.suite}/{condition.product}" if condition.product \
                    else condition.suite
                raise StoreError(f"{self.location}: results of {whose} are stored already; "
                                 "an official-run condition is registered before any "
                                 "result exists")
            try:
                with conn.begin_nested():
                    conn.execute(t.official_conditions.insert().values(
                        suite=condition.suite, product=condition.product,
                        max_items=condition.max_items, status=condition.status,
                        flag=condition.flag, registered_utc=condition.registered_utc,
                        note=condition.note))
            except IntegrityError:
                raise StoreError(f"{self.location}: a condition for {condition.suite}"
                                 f"{'/' + condition.product if condition.product else ''} "
                                 "is registered already (a registered condition does not "
                                 "change)") from None
        return condition

    def conditions(self, suite: str, product: str) -> list[Condition]:
        c = t.official_conditions
        with self._read() as conn:
            rows = list(conn.execute(select(c).where(
                and_(c.c.suite == suite, c.c.product.in_([product, ""]))).order_by(
                c.c.product.desc())).mappings())
        return [Condition(suite=row["suite"], product=row["product"],
                          max_items=row["max_items"], status=row["status"], flag=row["flag"],
                          registered_utc=row["registered_utc"], note=row["note"])
                for row in rows]

    def declare_official(self, declaration: Declaration) -> Declaration:
        with self._write() as conn:
            pk, _ = self._pk(conn, declaration.run_id)
            conn.execute(t.official_runs.insert().values(
                run=pk, suite=declaration.suite, product=declaration.product,
                declared_utc=declaration.declared_utc, reason=scrub(declaration.reason),
                condition=json_text(declaration.condition) if declaration.condition else None,
                passed_over=json_text(list(declaration.passed_over))))
        return declaration

    def declarations(self, *, suite: str | None = None,
                     product: str | None = None) -> list[Declaration]:
        o = t.official_runs
        query = select(o, t.runs.c.run_id).join(t.runs, t.runs.c.id == o.c.run)
        if suite is not None:
            query = query.where(o.c.suite == suite)
        if product is not None:
            query = query.where(o.c.product == product)
        with self._read() as conn:
            rows = list(conn.execute(query.order_by(o.c.id)).mappings())
        return [Declaration(run_id=row["run_id"], suite=row["suite"], product=row["product"],
                            declared_utc=row["declared_utc"], reason=row["reason"],
                            condition=self._loads(row["condition"], row["run_id"], "condition")
                            if row["condition"] else None,
                            passed_over=self._loads(row["passed_over"], row["run_id"],
                                                    "declaration"))
                for row in rows]


def _day_end(until: str) -> str:
    """``2026-12-04`` reaches to the end of that day; a full time stays as it is."""
    return until + "T23:59:59Z" if len(until) == 10 else until
