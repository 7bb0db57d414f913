"""What a results store holds and the one interface every backend fulfils.

A *run* is recorded once, whole, in one transaction (:meth:`Store.record_run`): its facts
(:class:`RunFacts`: id, times, git commit, options, environment, suites and products
with their digests), its ``dictbench.json`` and ``run-info.json`` texts, and every item
record as its ``items.jsonl`` line. Reading gives runs (:class:`StoredRun`), a run's
item records and report, per suite and product summaries over runs
(:class:`Summary`, what trends are drawn from) and official-run declarations.
Pure: no pytest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..compare import CaseScores
from ..errors import DictbenchError

__all__ = ["Condition", "CorruptRunError", "Declaration", "ProductFacts", "RunFacts", "Store",
           "StoreError", "StoredRun", "SuiteFacts", "Summary"]


class StoreError(DictbenchError):
    """The results store cannot be opened, read or written (the store is named, its
    password never)."""


class CorruptRunError(StoreError):
    """A row of one stored run cannot be read: the store refuses that run by id (the
    others read as before). ``reason`` is the store's one line on what is wrong."""

    def __init__(self, location: str, run_id: str, reason: str) -> None:
        super().__init__(f"{location}: run {run_id}: {reason}; the other runs are intact")
        self.run_id = run_id
        self.reason = reason


@dataclass(frozen=True)
class SuiteFacts:
    """A suite as one run measured it."""

    id: str
    version: str
    #: sha256 over the suite's manifest and cases file (None for an imported report set)
    digest: str | None = None
    private: bool = False
    title: str = ""
    locale: str = ""
    method: str = ""


@dataclass(frozen=True)
class ProductFacts:
    """A product as one run measured it."""

    name: str
    version: str
    adapter: str = ""
    #: sha256 of the product's version, adapter and settings (None when unknown)
    settings_digest: str | None = None
    environment: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunFacts:
    """What a run knows besides its report set."""

    run_id: str
    finished_utc: str
    started_utc: str | None = None
    git_commit: str | None = None
    git_dirty: bool | None = None
    dictbench_version: str = ""
    host: str = ""
    #: the command line, secrets redacted (as run-info.json ``args``)
    options: Sequence[str] = ()
    #: the machine's environment fields (``environment.detect_environment``)
    environment: Mapping[str, Any] = field(default_factory=dict)
    #: the environment cohort: a short digest of the fields runs are compared within
    cohort: str | None = None
    exit_status: int | None = None
    #: every collected item ran (False: stopped early, with ``stop_reason``)
    complete: bool = True
    stop_reason: str = ""
    #: ``run`` (recorded by pytest) or ``import`` (``dictbench store import``)
    source: str = "run"
    suites: Sequence[SuiteFacts] = ()
    products: Sequence[ProductFacts] = ()


@dataclass(frozen=True)
class StoredRun:
    """A run as the store lists it."""

    run_id: str
    finished_utc: str
    started_utc: str | None
    git_commit: str | None
    git_dirty: bool | None
    dictbench_version: str
    host: str
    cohort: str | None
    environment: Mapping[str, Any]
    options: Sequence[str]
    complete: bool
    stop_reason: str
    exit_status: int | None
    source: str
    #: ``{suite id: suite version}``
    suites: Mapping[str, str]
    products: Sequence[str]
    items: int
    #: ``(suite, product)`` pairs this run is the official run of
    official: Sequence[tuple[str, str]] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "started_utc": self.started_utc,
                "finished_utc": self.finished_utc, "git_commit": self.git_commit,
                "git_dirty": self.git_dirty, "dictbench_version": self.dictbench_version,
                "host": self.host, "cohort": self.cohort, "environment": dict(self.environment),
                "options": list(self.options), "complete": self.complete,
                "stop_reason": self.stop_reason, "exit_status": self.exit_status,
                "source": self.source, "suites": dict(self.suites),
                "products": list(self.products), "items": self.items,
                "official": [list(p) for p in self.official]}


@dataclass(frozen=True)
class Summary:
    """One suite x product of one run: its suite score and interval (dictbench.json)."""

    run_id: str
    finished_utc: str
    git_commit: str | None
    suite: str
    suite_version: str
    product: str
    product_version: str
    score: float | None
    low: float | None
    high: float | None
    items: int
    passed: int
    failed: int
    errors: int
    not_tested: int
    cohort: str | None = None
    #: False for a run that stopped early (``-x``, ``--maxfail``)
    complete: bool = True


@dataclass(frozen=True)
class Condition:
    """An official-run condition registered before any result of its suite (and
    product) was stored: at most ``max_items`` items with ``status`` (an item status) or
    with ``flag`` true in their output's metadata (``flags`` of the record)."""

    suite: str
    product: str  # "" for every product of the suite
    max_items: int
    status: str | None = None
    flag: str | None = None
    registered_utc: str = ""
    note: str = ""

    def describe(self) -> str:
        what = f"status {self.status}" if self.status else f"flag {self.flag}"
        return f"at most {self.max_items} item(s) with {what}"

    def as_dict(self) -> dict[str, Any]:
        return {"suite": self.suite, "product": self.product, "max_items": self.max_items,
                "status": self.status, "flag": self.flag,
                "registered_utc": self.registered_utc, "note": self.note}


@dataclass(frozen=True)
class Declaration:
    """A run declared the official run of a product on a suite."""

    run_id: str
    suite: str
    product: str
    declared_utc: str
    reason: str
    condition: Mapping[str, Any] | None
    #: the earlier runs of the product on the suite that were not declared, and why:
    #: ``[{"run_id": ..., "why": ...}]``
    passed_over: Sequence[Mapping[str, Any]] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "suite": self.suite, "product": self.product,
                "declared_utc": self.declared_utc, "reason": self.reason,
                "condition": dict(self.condition) if self.condition else None,
                "passed_over": [dict(p) for p in self.passed_over]}


class Store(Protocol):
    """A results store: SQLite (a file) or PostgreSQL (a server), the same calls."""

    #: where the store is, its password redacted
    location: str

    def record_run(self, facts: RunFacts, report_text: str, run_info_text: str,
                   items: Iterable[tuple[Mapping[str, Any], str]], *,
                   before_commit: Callable[[], None] | None = None) -> str:
        """Record one run whole, in one transaction, or nothing; ``items`` are
        ``(record, its items.jsonl line)`` in report order. ``before_commit`` is called
        once every row is written, inside the transaction: an exception it raises
        rolls the run back and comes out of here. Returns the run id."""

    def runs(self, *, suite: str | None = None, product: str | None = None,
             suite_version: str | None = None, cohort: str | None = None,
             commit: str | None = None, since: str | None = None, until: str | None = None,
             limit: int | None = None) -> list[StoredRun]:
        """Runs, oldest first, filtered (``commit``: a prefix of the git commit;
        ``since``/``until``: UTC times or dates compared as text); ``limit`` keeps the
        newest that many."""

    def run(self, run_id: str) -> StoredRun:
        """One run (a unique prefix of its id is enough); StoreError when unknown."""

    def report(self, run_id: str) -> str:
        """The run's ``dictbench.json`` text, as it was written."""

    def run_info(self, run_id: str) -> str:
        """The run's ``run-info.json`` text, as it was written."""

    def items(self, run_id: str, *, suite: str | None = None,
              product: str | None = None) -> list[dict[str, Any]]:
        """The run's item records in report order (filtered)."""

    def item_lines(self, run_id: str) -> list[str]:
        """The run's ``items.jsonl`` lines (without newlines), as they were written."""

    def item_scores(self, run_id: str, suite: str, product: str) -> list[dict[str, Any]]:
        """What a paired comparison reads of each item of a suite x product (``case_id``,
        ``repetition``, ``status``, ``score``, ``provisional``), without parsing the
        records: fast enough for a trend over a thousand runs."""

    def case_scores(self, suite: str, product: str,
                    run_ids: Sequence[str]) -> dict[str, CaseScores]:
        """``run id -> CaseScores`` of a suite x product in those runs, read in one go
        (runs recorded before schema version 2 are missing: read their items)."""

    def summaries(self, suite: str, product: str, *, suite_version: str | None = None,
                  cohort: str | None = None) -> list[Summary]:
        """The suite x product entry of every run that has it, oldest first."""

    def register_condition(self, condition: Condition) -> Condition:
        """Pre-register an official-run condition; refused once a run of the suite
        (and product) is stored."""

    def conditions(self, suite: str, product: str) -> list[Condition]:
        """The conditions that apply to ``product`` on ``suite``."""

    def declare_official(self, declaration: Declaration) -> Declaration:
        """Record a declaration (checked by the caller, see ``store.official``)."""

    def declarations(self, *, suite: str | None = None,
                     product: str | None = None) -> list[Declaration]:
        """Declarations, oldest first; the newest of a suite x product is in force."""

    def close(self) -> None:
        """Let go of the store's connections."""
