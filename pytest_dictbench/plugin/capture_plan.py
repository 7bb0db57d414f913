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
which the md and html show.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["PLUGIN_NAME", "CapturePlan"]

#: Name under which the plugin is registered.
PLUGIN_NAME = "dictbench-capture-plan"


class CapturePlan:
    """The plugin (see module doc)."""

    def __init__(self) -> None:
        self._planned: list[Any] = []
        #: Per product that captured: captures, estimate and billed cost (PV17).
        self._spend: list[str] = []

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
        for adapter in self._planned:
            finish = getattr(adapter, "finish", None)
            if callable(finish):
                finish(wait=wait)
            line = getattr(adapter, "spend_line", lambda: None)()
            if line:
                self._spend.append(line)
        self._planned.clear()

    def pytest_dictbench_update_report(self, report: dict[str, Any]) -> None:
        """The same lines in ``dictbench.json`` (``capture_spend``), for the md and html;
        left out when nothing was captured."""
        if self._spend:
            report["capture_spend"] = list(self._spend)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The spend of the captures made, beside what ``--capture-estimate`` would have
        said of them."""
        if self._spend:
            terminalreporter.write_sep("-", "dictbench captures: estimated and billed")
            for line in self._spend:
                terminalreporter.write_line(line)
