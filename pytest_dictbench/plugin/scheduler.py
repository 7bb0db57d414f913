"""pytest-xdist glue: capture groups scheduled by dictbench, crashed workers' items as errors.

Registered from ``plugin.pytest_configure`` on the controller of an active xdist run
(pytest-xdist's ``dist`` mode is not ``no``: ``-n N``, ``--dist``, ``--tx``); every hook
here is the controller's, and a serial run does not import this module. The scheduler
finds each item's capture group from its node id on the controller, so it does not
depend on workers rewriting node ids (``--dist loadgroup`` does, and that stopped
working with pytest 9, pytest-xdist issue 1386).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

from ..errors import DictbenchError
from .collect import capture_group, split_item_id
from .keys import Need, check_keys
from .session import RECORD_PROPERTY, SESSION_KEY, record_line
from .unrun import item_record

__all__ = ["CaptureGroupScheduling", "XdistHooks"]

#: ``--dist`` modes dictbench leaves to xdist even when live products run.
_OWN_MODES = ("no", "each")


class CaptureGroupScheduling(LoadScopeScheduling):
    """Load scheduling where all items of one capture group form one work unit: they run
    on one worker, in collection order. Other items are units of their own.

    A worker that dies (an engine that segfaults or calls ``os._exit``) loses only the
    item it was running: that item is not sent again, the rest of its unit is."""

    def __init__(self, config: pytest.Config, log: Any, groups: Mapping[str, str]) -> None:
        super().__init__(config, log)
        self.groups = dict(groups)
        self._products = tuple(groups)
        #: per worker: its collection's node ids and their positions
        self._positions: dict[Any, dict[str, int]] = {}

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.rfind("@") > nodeid.rfind("]"):  # a worker still tagged it (--dist loadgroup)
            return nodeid.rsplit("@", 1)[1]
        parts = split_item_id(nodeid, self._products)
        return self.groups[parts[2]] if parts else nodeid

    def _assign_work_unit(self, node: Any) -> None:
        """As in xdist, with the item positions looked up in a table, not by list search."""
        scope, work_unit = self.workqueue.popitem(last=False)
        self.assigned_work.setdefault(node, {})[scope] = work_unit
        positions = self._positions.get(node)
        if positions is None:
            collection = self.registered_collections[node]
            positions = self._positions[node] = {n: i for i, n in enumerate(collection)}
        node.send_runtest_some([positions[n] for n, done in work_unit.items() if not done])

    def remove_node(self, node: Any) -> str | None:
        workload = self.assigned_work.pop(node)
        self._positions.pop(node, None)
        pending = [(scope, nodeid) for scope, unit in workload.items()
                   for nodeid, done in unit.items() if not done]
        if not pending:
            return None
        crashed = pending[0][1]
        requeue: dict[str, dict[str, bool]] = {}
        for scope, nodeid in pending[1:]:
            requeue.setdefault(scope, {})[nodeid] = False
        # the rest of the crashed worker's units go first, so a group resumes at once
        for scope, unit in reversed(requeue.items()):
            self.workqueue[scope] = unit
            self.workqueue.move_to_end(scope, last=False)
        for other in self.assigned_work:
            self._reschedule(other)
        return crashed


class XdistHooks:
    """Controller-side xdist hooks of an active dictbench run."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        #: The run's budget ledger (see ``judge.estimate.SharedBudget``), made on demand.
        self._ledger: Path | None = None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Every worker gets the path of the run's budget ledger, so that a suite's
        ``budget_usd`` holds for the whole run, not per worker."""
        if self._ledger is None:
            self._ledger = Path(tempfile.mkdtemp(prefix="dictbench-budget-")) / "budget.json"
        node.workerinput["dictbench_budget_ledger"] = str(self._ledger)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        """The workers are done: the ledger goes."""
        if self._ledger is not None:
            shutil.rmtree(self._ledger.parent, ignore_errors=True)

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        session = config.stash.get(SESSION_KEY, None)
        if session is None or getattr(config.option, "dist", "no") in _OWN_MODES:
            return None
        groups = {p.name: capture_group(p) for p in session.products}
        if not any(groups.values()):
            return None  # cached products only: xdist's own scheduling
        return CaptureGroupScheduling(config, log, {k: v for k, v in groups.items() if v})

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport) -> None:
        """The item a worker was running when it died becomes an error item: its report
        is a setup error, followed by a teardown report that carries its record."""
        found = self._crash_record(crashitem, report)
        if found is None:
            return
        record, report.location = found
        report.when = "setup"  # type: ignore[assignment]
        teardown = pytest.TestReport(
            nodeid=crashitem, location=report.location, keywords={}, outcome="passed",
            longrepr=None, when="teardown", user_properties=[(RECORD_PROPERTY,
                                                              record_line(record))])
        # the same worker as the crash report: JUnit XML keys its testcases by both
        teardown.node = getattr(report, "node", None)  # type: ignore[attr-defined]
        report.dictbench_teardown = teardown  # type: ignore[attr-defined]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """Keep the draft counts and suite checks a worker's collection found (the
        controller collects nothing), and its share of each suite's judge budget."""
        session = self.config.stash.get(SESSION_KEY, None)
        output = getattr(node, "workeroutput", None) or {}
        found = output.get("dictbench_drafts")
        if session is not None and isinstance(found, dict):
            session.worker_drafts.update(found)
        checks = output.get("dictbench_checks")
        if session is not None and isinstance(checks, dict):
            session.suite_checks.update(checks)
        if session is not None:
            session.judging.merge_budgets(output.get("dictbench_budgets"))

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        teardown = report.__dict__.pop("dictbench_teardown", None)
        if teardown is not None:
            self.config.hook.pytest_runtest_logreport(report=teardown)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """The items of the run, as the workers collected them (the controller collects
        none): those that never run get records at the end."""
        session = self.config.stash.get(SESSION_KEY, None)
        if session is not None and not session.collected:
            if not self.config.option.collectonly:  # before any item is scheduled (CF24)
                check_keys(_needs(session, ids), session.options)
            session.items_collected(list(ids))

    def _crash_record(self, crashitem: str, report: pytest.TestReport
                      ) -> tuple[dict[str, Any], tuple[str, int, str]] | None:
        """The crashed item's error record and report location (as ``reportinfo``)."""
        session = self.config.stash.get(SESSION_KEY, None)
        if session is None:
            return None
        worker = getattr(getattr(report, "node", None), "gateway", None)
        message = (f"worker {getattr(worker, 'id', '?')} crashed while running this item "
                   "(its process ended without a result, e.g. a segfault or os._exit in the "
                   "engine); it was not run again")
        return item_record(session, crashitem, "error", message)


def _needs(session: Any, ids: list[str]) -> Iterator[Need]:
    """The (product, suite, case id, repetition) of each dictbench item among ``ids``."""
    products = {p.name: p for p in session.products}
    for nodeid in ids:
        parts = split_item_id(nodeid, tuple(products))
        if parts is None:
            continue
        path, case_id, product, repetition = parts
        try:
            suite = session.load_suite(session.config.rootpath / path)
        except DictbenchError:
            continue  # the worker's collection said it
        yield products[product], suite, case_id, repetition
