"""Recording the run in the results store (docs/store.md): ``--dictbench-store`` and ini
``dictbench_store``, and one record per run, on the controller, once its report set is
written (so the reports are the same bytes with or without a store). A store that
cannot be written is a problem of the run (it exits non-zero, naming the store error);
the report set stands.
"""

from __future__ import annotations

import contextlib
import hashlib
import platform
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from .. import __version__
from ..environment import detect_environment
from ..errors import DictbenchError
from ..jsonl import canonical_line
from ..model import Product, Suite
from ..private import is_private
from ..redact import public_args, register_secret, url_password
from ..report.files import write_report_set
from ..report.history import DEFAULT_HISTORY_RUNS, HISTORY_FILES
from ..report.items import PARSED_ITEMS
from ..report.recorder import Recorded, StoreRecorder, history_for
from ..store import (
    ProductFacts,
    RunFacts,
    StoreError,
    SuiteFacts,
    import_backend,
    new_run_id,
    open_store,
    redact_url,
    store_location,
)
from ..store.baseline import StoreBaseline, load_store_baseline
from ..store.git import git_state, resolve_ref
from ..suites import MANIFEST

__all__ = ["HISTORY_FILES", "StoreRecording", "add_store_options", "read_store_baseline"]

#: The environment fields that make a run's cohort (runs are compared within one).
COHORT_FIELDS = ("hardware", "os_release")


def add_store_options(group: Any, parser: pytest.Parser) -> None:
    group.addoption(
        "--dictbench-store", dest="dictbench_store", metavar="URL", default=None,
        help="Results store every run is recorded in: a SQLite file path, "
        "postgresql://USER:PASSWORD@HOST/DB (extra 'postgres'), or 'off'. Default: ini "
        "dictbench_store, else .dictbench/store.sqlite under the rootdir.")
    parser.addini("dictbench_store", "Results store of every run (--dictbench-store); a "
                  "relative path is under the rootdir.", default="")
    parser.addini("dictbench_history_runs", "The newest complete stored runs of a suite "
                  "version whose variation the reports' history.md shows (at least 2; "
                  f"default {DEFAULT_HISTORY_RUNS}).", default=str(DEFAULT_HISTORY_RUNS))


def location(config: pytest.Config) -> str | None:
    """The store this run records in (None: off); its password is scrubbed from every
    file written from now on."""
    value = config.getoption("dictbench_store", None) or config.getini("dictbench_store")
    found = store_location(str(value or ""), config.rootpath)
    if found:
        register_secret(url_password(found))
    return found


def history_runs(config: pytest.Config) -> int:
    """ini ``dictbench_history_runs``: the window of runs the history covers."""
    value = str(config.getini("dictbench_history_runs")).strip()
    if not value.isdigit() or int(value) < 2:
        raise DictbenchError(f"ini dictbench_history_runs = {value}: give a whole number of "
                             "runs, at least 2 (the variation pairs each run with the one "
                             "before)")
    return int(value)


def read_store_baseline(config: pytest.Config, value: str,
                        products: Sequence[str]) -> StoreBaseline:
    """``--dictbench-baseline store:...`` read from this run's store."""
    where = location(config)
    if where is None:
        raise StoreError(f"--dictbench-baseline {value} needs a results store, and "
                         "--dictbench-store is off")
    store = open_store(where)
    try:
        return load_store_baseline(store, value, products,
                                   lambda ref: resolve_ref(config.rootpath, ref))
    finally:
        store.close()


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def suite_facts(suite: Suite) -> SuiteFacts:
    """A suite's facts; its digest covers its manifest and cases file."""
    try:
        paths = [p for p in (suite.root / MANIFEST, suite.cases_file) if p.is_file()]
        digest = _digest(*(p.read_bytes() for p in paths)) if paths else None
    except OSError:
        digest = None
    return SuiteFacts(id=suite.id, version=suite.version, digest=digest,
                      private=is_private(suite), title=suite.title, locale=suite.locale,
                      method=suite.method)


def product_facts(product: Product) -> ProductFacts:
    """A product's facts; its settings digest covers version, adapter and settings."""
    settings = canonical_line({"adapter": product.adapter, "settings": product.settings,
                               "version": product.version})
    return ProductFacts(name=product.name, version=product.version, adapter=product.adapter,
                        settings_digest=_digest(settings.encode("utf-8")),
                        environment=dict(product.environment))


def cohort(environment: Mapping[str, Any]) -> str:
    """A short digest of the cohort fields of the machine's environment."""
    fields = canonical_line({k: environment.get(k, "") for k in COHORT_FIELDS})
    return hashlib.sha256(fields.encode("utf-8")).hexdigest()[:12]


def _import_quietly() -> None:
    """:func:`import_backend`; a failure shows where the store is opened, not here."""
    with contextlib.suppress(Exception):
        import_backend()


class StoreRecording:
    """One run's record in the store (the controller's)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.location = location(config)
        #: the newest complete runs the history's variation covers
        self.history_runs = history_runs(config)
        self.started = time.time()
        #: the run id once recorded
        self.recorded: str | None = None
        #: history.md once written
        self.history: Path | None = None
        #: the child that records the run (``report.recorder``), in a large enough run
        self.recorder: StoreRecorder | None = None
        #: the facts the child records the run with, until it commits
        self._begun: RunFacts | None = None

    def start(self, items: int, spool_fd: Callable[[], int]) -> None:
        """A run of ``items`` items large enough for report helpers (the session starts
        them together) records through a child process (``report.recorder``), which
        imports and opens the store while the tests run and reads the item spool
        (``spool_fd()``): as the lines come in a run that keeps its records parsed, else
        as it writes the run."""
        if self.location is not None and self.recorder is None:
            self.recorder = StoreRecorder.start(self.location, spool_fd(),
                                                follow=items <= PARSED_ITEMS)

    def prepare(self) -> None:
        """Import the store's modules in a thread while the report set is built: the
        build spends about as long waiting on its helper processes as the import takes,
        and the import fills those waits instead of following the build. (Not a daemon:
        the interpreter lets it finish; :meth:`record` waits on the import lock.) A run
        with a recorder child imports nothing here."""
        if self.location is not None and self.recorder is None:
            threading.Thread(target=_import_quietly, name="dictbench-store-import").start()

    def begin(self, report_text: str, run_info_text: str,
              records: Sequence[Mapping[str, Any]], places: Callable[[], Sequence[int]],
              suites: Sequence[Suite], products: Sequence[Product], *, exit_status: int,
              stop_reason: str) -> None:
        """The run's ``dictbench.json`` and ``run-info.json`` are made: a recorder child
        writes the run now (``places()``: where the item lines lie in the spool, in
        report order), while the pages are drawn, and commits in :meth:`record`."""
        if self.recorder is None or self.location is None:
            return
        facts = self._facts(records, suites, products, exit_status=exit_status,
                            stop_reason=stop_reason)
        if self.recorder.record(facts, report_text, run_info_text, places(),
                                self.history_runs):
            self._begun = facts

    def record(self, report_dir: Path, texts: Mapping[str, Any],
               records: Sequence[Mapping[str, Any]], suites: Sequence[Suite],
               products: Sequence[Product], *, exit_status: int, stop_reason: str
               ) -> str | None:
        """Record the run whose report set was just written into ``report_dir`` (the
        recorder child commits what it wrote at :meth:`begin`, else this process writes
        it); returns the problem in words, or None."""
        if self.location is None or "dictbench.json" not in texts:
            return None
        begun, self._begun = self._begun, None
        done = self._finish_child(begun, int(exit_status))
        if done is not None:  # the child recorded the run, or failed to, in its words
            if done.store_error is not None:
                return self._not_recorded(done.store_error)
            self.recorded = done.run_id
            if done.history_error is not None:
                return self._history_problem(done.history_error)
            return self._write_history(report_dir, done.history or {})
        facts = self._facts(records, suites, products, exit_status=exit_status,
                            stop_reason=stop_reason)
        if begun is not None:  # the child's run id: a run it committed after all (and
            facts = replace(facts, run_id=begun.run_id)  # died) is refused, not doubled
        try:
            store = open_store(self.location)
            try:
                with (report_dir / "items.jsonl").open(encoding="utf-8") as lines:
                    pairs = zip(records, lines, strict=True)
                    self.recorded = store.record_run(facts, texts["dictbench.json"],
                                                     texts["run-info.json"], pairs)
                try:
                    history = history_for(store, self.recorded, texts["dictbench.json"],
                                          self.history_runs)
                except (DictbenchError, OSError, ValueError) as exc:
                    return self._history_problem(str(exc))
                return self._write_history(report_dir, history)
            finally:
                store.close()
        except (DictbenchError, OSError, ValueError) as exc:
            return self._not_recorded(str(exc))

    def _finish_child(self, begun: RunFacts | None, exit_status: int) -> Recorded | None:
        """The recorder child's run: committed when the exit status is still the one it
        was ``begun`` with (else rolled back, to be recorded here); None: record it
        here."""
        if self.recorder is None or begun is None:
            return None
        return self.recorder.finish(commit=begun.exit_status == exit_status)

    def _facts(self, records: Sequence[Mapping[str, Any]], suites: Sequence[Suite],
               products: Sequence[Product], *, exit_status: int, stop_reason: str
               ) -> RunFacts:
        environment = detect_environment()
        commit, dirty = git_state(self.config.rootpath)
        seen = {r["suite"] for r in records}
        return RunFacts(
            run_id=new_run_id(), finished_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                            time.gmtime()),
            started_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
            git_commit=commit, git_dirty=dirty, dictbench_version=__version__,
            host=platform.node(),
            options=public_args(self.config.invocation_params.args),
            environment=environment, cohort=cohort(environment),
            exit_status=int(exit_status), complete=not stop_reason, stop_reason=stop_reason,
            suites=[suite_facts(s) for s in suites if s.id in seen],
            products=[product_facts(p) for p in products])

    def _not_recorded(self, words: str) -> str:
        return (f"the run was not recorded in the results store "
                f"{redact_url(self.location or '')}: {words} (the report set was written)")

    def _history_problem(self, words: str) -> str:
        return (f"run {self.recorded} was recorded in the results store "
                f"{redact_url(self.location or '')}, but its history files were not "
                f"written: {words} (the report set was written)")

    def _write_history(self, report_dir: Path, texts: Mapping[str, str]) -> str | None:
        """``history.md`` and ``history.json`` beside the report set when the store holds
        this run's history (a stale pair was removed with the report set's swap)."""
        if not texts:
            return None
        try:
            write_report_set(report_dir, texts)
        except (DictbenchError, OSError) as exc:
            return self._history_problem(str(exc))
        self.history = report_dir / "history.md"
        return None

    def close(self, wait: bool = True) -> None:
        """End the recorder child, if any (what it did not commit rolls back)."""
        if self.recorder is not None:
            self.recorder.close(wait)
            self.recorder = None

    def summary_line(self) -> str | None:
        if self.recorded is None or self.location is None:
            return None
        where = self.location.removeprefix("sqlite:///")
        history = f"; its history: {self.history}" if self.history else ""
        return f"dictbench: recorded run {self.recorded} in {redact_url(where)}{history}"

