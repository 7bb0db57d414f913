"""Tell adapters that capture ahead which items they will be asked for, in run order.

Once collection is final (deselection included), every adapter with a ``plan`` method
(the cloud provider adapters, :mod:`pytest_dictbench.adapters.providers.concurrent`,
and refine pipelines, :mod:`pytest_dictbench.adapters.pipeline`)
gets its (case, repetition) pairs in the order the items will run, so that it can make
the next captures concurrently while keeping the outputs in that order. Under
pytest-xdist all items of a live product run on one worker, in this order.

A key variable that is not set is checked before, by :mod:`.keys`.

At the end of the session each planned adapter with a ``finish`` method is told so: a
run stopped early (``-x``) keeps the captures already made ahead in the cache (an
interrupted run keeps those that had finished). The captures each one made, estimated
and billed, go to the terminal summary and to ``dictbench.json`` (``capture_spend``, PV17),
which the md and html show. Under pytest-xdist the workers capture: each hands its lines
to the controller (``workeroutput``) with the adapter's place in the collection, which
every worker collects alike, so the controller lists them in a serial run's order.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["PLUGIN_NAME", "CapturePlan"]

#: Name under which the plugin is registered.
PLUGIN_NAME = "dictbench-capture-plan"
#: The ``workeroutput`` key of a worker's spend lines.
_WORKER_KEY = "dictbench_capture_spend"


class CapturePlan:
    """The plugin (see module doc)."""

    def __init__(self) -> None:
        self._planned: list[Any] = []
        #: Per adapter that captured, by its place in the collection: captures, estimate
        #: and billed cost (PV17).
        self._spend: list[tuple[int, str]] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        plans: dict[int, tuple[Any, list[tuple[Any, int]]]] = {}
        for item in session.items:
            adapter = getattr(item, "adapter", None)
            if adapter is None or not callable(getattr(adapter, "plan", None)):
                continue
            plans.setdefault(id(adapter), (adapter, []))[1].append((item.case, item.repetition))
        for adapter, items in plans.values():
            adapter.plan(items)
            self._planned.append(adapter)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        wait = exitstatus != pytest.ExitCode.INTERRUPTED
        for place, adapter in enumerate(self._planned):
            finish = getattr(adapter, "finish", None)
            if callable(finish):
                finish(wait=wait)
            line = getattr(adapter, "spend_line", lambda: None)()
            if line:
                self._spend.append((place, line))
        self._planned.clear()
        output = getattr(session.config, "workeroutput", None)
        if output is not None:  # an xdist worker: the controller reports
            output[_WORKER_KEY] = [list(entry) for entry in self._spend]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """A worker's spend lines, on the controller."""
        entries = (getattr(node, "workeroutput", None) or {}).get(_WORKER_KEY) or ()
        self._spend.extend((int(place), str(line)) for place, line in entries)

    def _lines(self) -> list[str]:
        return [line for _, line in sorted(self._spend)]

    def pytest_dictbench_update_report(self, report: dict[str, Any]) -> None:
        """The same lines in ``dictbench.json`` (``capture_spend``), for the md and html;
        left out when nothing was captured."""
        if self._spend:
            report["capture_spend"] = self._lines()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The spend of the captures made, beside what ``--capture-estimate`` would have
        said of them."""
        if self._spend:
            terminalreporter.write_sep("-", "dictbench captures: estimated and billed")
            for line in self._lines():
                terminalreporter.write_line(line)
