"""State of one dictbench run: products, loaded suites, adapters, collected records.

On xdist workers it serves collection and scoring; on the controller (or a run without
xdist) it also gathers every item record from the test reports and writes the reports.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ..adapters.base import Adapter, AdapterOptions
from ..aggregate import StatsOptions, summarize
from ..errors import ProductError, SuiteError
from ..heap import HeldHeap
from ..judge.settings import JudgeSettings, parse_judge_settings
from ..methods.base import Method
from ..model import ItemLike, ItemResult, Output, Product, Suite
from ..private import is_private
from ..redact import scrub
from ..registry import Registry
from ..report import plots
from ..report.files import natural_line, natural_record
from ..report.helper import HELPER_ITEMS, ReportHelper
from ..report.items import ItemStore
from ..report.record import item_record
from ..rig.package import is_package, load_package
from ..suites import MANIFEST, canary_status, load_suite
from .ahead import ScoredRecords
from .gate import Gating
from .interval_sizes import expected_samples, prefetch_intervals
from .judge import Judging, has_judged_rules
from .junit import junit_properties
from .options import bootstrap_seed, ini_folder, judge_default, max_text_chars
from .session_reports import ReportSet
from .split import PLUGIN_NAME as SPLIT_PLUGIN
from .store import StoreRecording
from .terminate import Termination
from .unrun import stop_reason, unrun_reports, xdist_stop

__all__ = ["CAPTURED_PROPERTY", "HEAP_KEY", "RECORD_PROPERTY", "SESSION_KEY", "DictbenchSession"]

#: Name of the user property that carries an item record to the controller.
RECORD_PROPERTY = "dictbench.record"

#: User property marking an item whose output was captured in this run (not cached).
CAPTURED_PROPERTY = "dictbench.captured"

#: The run's :class:`HeldHeap`, let go by a config cleanup.
HEAP_KEY = pytest.StashKey[HeldHeap]()
#: Where the run's state lives in ``config.stash``.
SESSION_KEY = pytest.StashKey["DictbenchSession"]()

#: Exit statuses after which reports are not (over)written.
_NO_REPORT = (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.USAGE_ERROR,
              pytest.ExitCode.INTERNAL_ERROR)


def record_line(record: Mapping[str, Any]) -> str:
    """An item record as its line of ``items.jsonl`` (one line, keys in natural order,
    so rules read in rubric order, A4 before A10)."""
    return natural_line(record)


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


class DictbenchSession(ReportSet):
    """Registered as a plugin while dictbench is active (see ``plugin.pytest_configure``)."""

    def __init__(self, config: pytest.Config, registry: Registry,
                 products: Sequence[Product], report_dir: Path) -> None:
        self.config = config
        self.registry = registry
        self.products = tuple(products)
        self.report_dir = report_dir
        self.repetitions: int | None = config.getoption("dictbench_repetitions")
        self.item_failures: str = config.getoption("dictbench_item_failures")
        self.seed = bootstrap_seed(config)  # a bad ini value stops the run before it starts
        # testcase properties only matter when a JUnit XML file is written
        self.junit_properties: bool = bool(getattr(config.option, "xmlpath", None)) and \
            config.getini("dictbench_junit_properties")
        self.worker = is_worker(config)
        self.max_text_chars = max_text_chars(config)
        self.options = AdapterOptions(max_text_chars=self.max_text_chars,
                                      recapture=config.getoption("dictbench_recapture"),
                                      warmup=config.getoption("dictbench_warmup"),
                                      hook=config.hook, repetitions=self.repetitions,
                                      offline_audit=config.getoption("dictbench_offline_audit"))
        self.judging = Judging.from_config(
            config, ini_folder(config, config.getini("dictbench_judge_dir")))
        #: Item records by node id, spooled to disk until the reports are built.
        self.records = ItemStore()
        #: node id -> its latest record line and the value it was written from, until
        #: the item's teardown report hands both to the store.
        self._written: dict[str, tuple[str, dict[str, Any]]] = {}
        #: Node ids of the run's items (on the controller; from a worker under xdist).
        self.collected: list[str] = []
        #: Draws the score intervals and the HTML report's figures in a helper process,
        #: and a second one the figures beside it (large runs only).
        self.report_helper: ReportHelper | None = None
        self.figure_helper: ReportHelper | None = None
        #: Frozen from the start of the tests to pytest's last cleanup (see
        #: :class:`HeldHeap` and ``pytest_load_initial_conftests``).
        self.heap = config.stash.get(HEAP_KEY, None) or HeldHeap()
        self.report: dict[str, Any] | None = None
        self.written: list[Path] = []
        self.gating = Gating(config, [p.name for p in self.products])
        #: the run's record in the results store (the controller's; None: off)
        self.recording = StoreRecording(config) if not self.worker else None
        #: Problems found at the end of the run (reports not written, a hook failed).
        self.problems: list[str] = []
        self.termination = Termination()  #: installed by ``plugin.pytest_configure``
        self.judge_default = judge_default(config)
        self._suites: dict[Path, Suite] = {}
        #: Draft cases per suite that xdist workers collected (see ``scheduling``).
        self.worker_drafts: dict[str, int] = {}
        #: What collection checked of a suite before scoring, by suite id, reported with
        #: it (a rig package's integrity, audio and excluded rows; from the workers
        #: under xdist).
        self.suite_checks: dict[str, dict[str, Any]] = {}
        #: Parsed ``[judge]`` tables by suite id (checked when the suite is loaded).
        self.judge_settings: dict[str, JudgeSettings] = {}
        self._suite_paths: dict[str, str] = {}
        self._adapters: dict[tuple[str, str], Adapter] = {}
        for product in self.products:
            if product.adapter not in registry.adapters:
                raise ProductError(
                    f"unknown adapter kind {product.adapter!r} (known: "
                    f"{', '.join(sorted(registry.adapters))})", path=product.path)
            # an adapter kind that needs the machine (a display, a device) checks it
            # here, before collection: a usage error, not a collection error per item
            preflight = getattr(registry.adapters[product.adapter], "preflight", None)
            if preflight is not None and not self.worker:
                preflight(product)

    # -- used by collection and items (workers and controller alike) --------------------

    def load_suite(self, path: Path) -> Suite:
        """The suite at ``path``, loaded once per process."""
        key = (path / MANIFEST if path.is_dir() else path).resolve()
        if key not in self._suites:
            suite = (load_package(path) if is_package(path) else
                     load_suite(path, self.registry.case_schema,
                                max_text_chars=self.max_text_chars))
            method = self.registry.method(suite.method)
            check_params = getattr(method, "check_params", None)
            if check_params is not None:
                check_params(suite)
            if "judge" not in suite.manifest and self.judge_default and \
                    has_judged_rules(method):
                suite = replace(suite, manifest={**suite.manifest, "judge": self.judge_default})
            if "judge" in suite.manifest:
                self.judge_settings[suite.id] = parse_judge_settings(
                    suite.manifest["judge"], path=suite.root / MANIFEST)
            for other in self._suites.values():
                if other.id == suite.id:
                    raise SuiteError(f"suite id {suite.id!r} is also used by {other.root}",
                                     path=path)
            self._suites[key] = suite
            self._suite_paths[suite.id] = _relative(
                key if is_package(key) else suite.root, self.config.rootpath)
        return self._suites[key]

    def method(self, suite: Suite) -> Method:
        return self.registry.method(suite.method)

    def adapter(self, product: Product, suite: Suite) -> Adapter:
        key = (product.name, suite.id)
        if key not in self._adapters:
            factory = self.registry.adapters[product.adapter]
            self._adapters[key] = factory(product, suite, self.options)
        return self._adapters[key]

    def release_adapters(self) -> None:
        """Every item has run: adapters let go of the outputs they keep (``release``)."""
        for adapter in self._adapters.values():
            release = getattr(adapter, "release", None)
            if callable(release):
                release()

    def make_record(self, item: ItemLike, status: str, *, result: ItemResult | None = None,
                    output: Output | None = None, message: str = "",
                    extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The item's record (see :func:`report.record.item_record`)."""
        return item_record(item, status, suite_path=self._suite_paths[item.suite.id],
                           result=result, output=output, message=message, extra=extra)

    def item_line(self, nodeid: str, record: Mapping[str, Any]) -> str:
        """The ``items.jsonl`` line of an item's record; a serial run also keeps the
        value the line was written from, for the store (see ``ItemStore.expect``)."""
        line, written = natural_record(record)
        clean = scrub(line)  # the record leaves here (for a worker: to the controller)
        if clean != line:
            line, written = natural_record(json.loads(clean))
        if not self.worker:
            self._written[nodeid] = (line, written)
        return line

    # -- controller side ---------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Take the item record off the report; leave JUnit-friendly properties instead.

        Every phase's report carries the same properties; the teardown report has the
        final record, and it is the one JUnit XML reads properties from.
        """
        if self.worker:
            return
        blobs = [v for k, v in report.user_properties if k == RECORD_PROPERTY]
        if not blobs:
            return
        others = [(k, v) for k, v in report.user_properties
                  if k not in (RECORD_PROPERTY, CAPTURED_PROPERTY)]
        if report.when != "teardown":
            report.user_properties = others
            return
        written = self._written.pop(report.nodeid, None)
        self.records.add(report.nodeid, blobs[-1],
                         written[1] if written and written[0] is blobs[-1] else None)
        if self.junit_properties:
            others += junit_properties(json.loads(blobs[-1]))
        report.user_properties = others

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        """The collected items, suites and adapters live until the run ends: while the
        tests run, the full collections their own objects set off skip them (the heap
        is held until ``pytest_unconfigure``)."""
        self.heap.hold()
        return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Any:
        """Once the item's reports are made, its record leaves the item: the store (or,
        under xdist, the controller) holds it, and 100,000 items do not hold it twice."""
        try:
            return (yield)
        finally:
            item.user_properties[:] = [p for p in item.user_properties
                                       if p[0] != RECORD_PROPERTY]

    def summarize(self, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Default report body (see ``pytest_dictbench_generate_report``)."""
        suites: dict[str, Suite] = {}
        for record in records:
            if record["suite"] not in suites:
                suite = self.load_suite(self.config.rootpath / record["suite_path"])
                if suite.id in self.suite_checks:
                    suite = replace(suite, manifest={**suite.manifest,
                                                     "checks": self.suite_checks[suite.id]})
                split = self.config.pluginmanager.get_plugin(SPLIT_PLUGIN)
                if split is not None:  # --dictbench-split: the half is the run's suite
                    suite = split.half_of(suite)
                suites[suite.id] = suite
        report = self.judging.add_budgets(summarize(
            records, suites, {p.name: p for p in self.products}, self.registry.methods,
            {sid: canary_status(suite) for sid, suite in suites.items()},
            self._stats_options(), ordered=True))
        unused = self.judging.unused(records, {i: frozenset(c.id for c in s.cases) for i, s
                                               in suites.items() if not is_private(s)},
                                     self.config.rootpath)
        if unused:
            report = {**report, "decisions_unused": unused}
        ran = {record["product"] for record in records}  # CF16: named, yet no item ran
        idle = [{"product": p.name, "reason": "no item selected"}
                for p in self.products if p.name not in ran]
        return {**report, "products_without_items": idle} if idle else report

    def _stats_options(self) -> StatsOptions:
        return StatsOptions(resamples=self.config.getoption("dictbench_resamples"),
                            seed=self.seed, explicit_seed=self.config.getoption(
                                "dictbench_seed", None) is not None,
                            intervals=self.report_helper)

    def scored_ahead(self, records: ScoredRecords) -> None:
        """Every item's score is known before the last ones have run (``ahead.py``): the
        report helper, if the run has one, starts on the score intervals now."""
        if self.report_helper is not None:
            prefetch_intervals(self.report_helper, records, self.method,
                               {s.id: s for s in self._suites.values()},
                               self._stats_options())

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not self.worker and session.items:
            self.items_collected([item.nodeid for item in session.items])
            if self.report_helper is not None:  # drawn while the tests run
                options = self._stats_options()
                for n, seed in expected_samples(session.items, self.method, options):
                    self.report_helper.predraw(n, options.resamples, seed)

    def items_collected(self, nodeids: list[str]) -> None:
        """The run's items are known (collected here, or by an xdist worker): a large
        run starts its report helpers, which import numpy and matplotlib while the tests
        run."""
        self.collected = nodeids
        self.records.expect(len(nodeids))
        if len(nodeids) >= HELPER_ITEMS and self.report_helper is None and \
                not self.config.option.collectonly:
            self.report_helper = ReportHelper.start()
            self.figure_helper = ReportHelper.start() if plots.available() else None
            if self.recording is not None:
                self.recording.start(len(nodeids), self.records.spool_fd)

    @pytest.hookimpl(tryfirst=True)  # before junitxml writes its file
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        try:
            self._finish(session, exitstatus)
        finally:
            for helper in (self.report_helper, self.figure_helper, self.recording):
                if helper is not None:
                    helper.close(wait=False)  # waited for at unconfigure, side by side
            self.heap.hold()  # what the run made stays out of later plugins' passes

    def _finish(self, session: pytest.Session, exitstatus: int) -> None:
        self.release_adapters()
        if is_worker(self.config):  # the controller collects nothing: tell it the drafts
            self.config.workeroutput["dictbench_drafts"] = self._draft_counts()  # type: ignore[attr-defined]
            self.config.workeroutput["dictbench_budgets"] = self.judging.budget_figures()  # type: ignore[attr-defined]
            self.config.workeroutput["dictbench_checks"] = self.suite_checks  # type: ignore[attr-defined]
            return
        if exitstatus == pytest.ExitCode.INTERRUPTED and xdist_stop(self.config):
            # -x, --maxfail or crashed workers under xdist: a stop like a serial run's
            session.exitstatus = exitstatus = pytest.ExitCode.TESTS_FAILED
        stopped = self.termination.stopped(session, exitstatus)  # SIGTERM: reports (PL11)
        if (exitstatus in _NO_REPORT and not stopped) or self.config.option.collectonly:
            return  # (nothing ran under --collect-only: the last run's reports stand)
        unrun = [nodeid for nodeid in self.collected if nodeid not in self.records]
        for report in unrun_reports(self, unrun, stop_reason(session), RECORD_PROPERTY,
                                    record_line) if unrun else ():
            self.config.hook.pytest_runtest_logreport(report=report)
        if not self.records:
            if self.gating.options is not None:  # a gated run over zero items fails
                self.gating.apply_empty([p.name for p in self.products])
                self._report_results(session, [])
            return
        self.heap.hold()  # the records, too, stay out of the report's full passes
        try:
            self._write_reports(session, unrun)
        finally:
            self.records.close()  # a large run's records are read from it until here

    def _draft_counts(self) -> dict[str, int]:
        """Draft cases per loaded suite (by manifest path)."""
        return {str(path): len(suite.drafts) for path, suite in self._suites.items()}


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()
