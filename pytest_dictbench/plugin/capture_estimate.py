"""``--capture-estimate``: how many captures a selection needs and what they would cost.

Registered as its own pytest plugin when the option is given. After collection it
counts every selected item of a live product whose output is not cached (see
:mod:`pytest_dictbench.adapters.providers.estimate`), and for a pipeline product its
recogniser's captures (once per case, however many pipelines share it) and each refine
step's requests (:mod:`pytest_dictbench.adapters.pipeline.estimate`), and the judge
requests of suites with judged rules (the ``--judge-estimate`` plugin's count, local
token estimate); it prints the counts and costs, and deselects every item: nothing is
sent, captured, judged or scored.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["PLUGIN_NAME", "CaptureEstimatePlugin", "add_option"]

#: Name under which the plugin is registered.
PLUGIN_NAME = "dictbench-capture-estimate"


def add_option(group: Any) -> None:
    """Declare ``--capture-estimate`` in the dictbench option group."""
    group.addoption(
        "--capture-estimate", dest="dictbench_capture_estimate", action="store_true",
        default=False,
        help="Send nothing and run no item: print how many captures the selected items of "
        "live products need (cached outputs excluded), the refine and judge requests, and "
        "what they would cost.")


class CaptureEstimatePlugin:
    """The estimate plugin (see module doc)."""

    def __init__(self, recapture: bool, judge: Any, *, show_judge: bool = True) -> None:
        """``judge``: the run's ``JudgeEstimate`` (``show_judge``: False when the
        ``--judge-estimate`` plugin prints it itself)."""
        from ..adapters.providers import PROVIDERS
        from ..adapters.providers.estimate import CaptureEstimate

        self.estimate = CaptureEstimate({k: p.default_model for k, p in PROVIDERS.items()})
        self.recapture = recapture
        self.judge, self.show_judge = judge, show_judge

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        for item in items:
            product = getattr(item, "product", None)
            if product is None or product.adapter == "cache" or not hasattr(item, "case"):
                continue
            adapter = getattr(item, "adapter", None)
            if product.adapter == "pipeline" and hasattr(adapter, "asr_product"):
                self._pipeline(item, adapter)
                continue
            if adapter is None or not hasattr(adapter, "cache"):
                continue
            self.estimate.add(product, item.suite, item.case, item.repetition, adapter,
                              self.recapture)
        self.judge.count(items)
        config.hook.pytest_deselected(items=list(items))
        items[:] = []

    def _pipeline(self, item: Any, adapter: Any) -> None:
        """A pipeline item: its recogniser's capture, then its refine requests."""
        from ..adapters.pipeline.estimate import RefineEstimate
        from ..errors import DictbenchError

        if self.estimate.refine is None:
            self.estimate.refine = RefineEstimate()
        asr, recogniser = adapter.asr_product, adapter.asr
        raw = None
        if asr.adapter == "cache":
            try:
                raw = recogniser.get(item.case, item.repetition)
            except DictbenchError:
                return  # the run reports the recogniser's error; no refine request
            if raw is None:
                return
        elif hasattr(recogniser, "cache"):
            self.estimate.add(asr, item.suite, item.case, item.repetition, recogniser,
                              self.recapture)
            raw = self.estimate.cached_output(asr, item.suite, item.case, item.repetition,
                                              recogniser, self.recapture)
        self.estimate.refine.add(item.product.name, adapter, item.case, raw)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminalreporter.write_sep("=", "dictbench capture estimate")
        for line in self.estimate.lines():
            terminalreporter.write_line(line)
        if self.show_judge and self.judge.needed():
            for line in self.judge.lines():
                terminalreporter.write_line(line)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            session.exitstatus = pytest.ExitCode.OK
