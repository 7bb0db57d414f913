"""Each suite's ``budget_usd`` during a run, and the figures dictbench.json gives of it.

One :class:`~pytest_dictbench.judge.estimate.Budget` per suite and process (under xdist a
``SharedBudget`` over the run's ledger file, so the limit holds for the whole run). Each
worker hands its share of the figures to the controller (``workeroutput``), which adds
them up and writes one ``judge_budget`` field per budgeted suite.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..judge.estimate import Budget, SharedBudget, budget_report, merge_budget_figures
from ..judge.settings import JudgeSettings

__all__ = ["SuiteBudgets"]


class SuiteBudgets:
    """The budgets part of :class:`~.judge.Judging`."""

    #: The file in which xdist workers share each suite's budget (None: one process).
    budget_ledger: Path | None
    _budgets: dict[str, Any]
    #: The budget figures of the run's xdist workers, per suite (controller only).
    worker_budgets: dict[str, dict[str, Any]]

    def budget(self, suite_id: str, settings: JudgeSettings) -> Any:
        """The suite's ``budget_usd`` (shared by its groups, and under xdist by every
        worker through the run's ledger file)."""
        if suite_id not in self._budgets:
            limit = settings.budget_usd
            self._budgets[suite_id] = Budget(limit) if self.budget_ledger is None or \
                limit is None else SharedBudget(limit, ledger=self.budget_ledger, key=suite_id)
        return self._budgets[suite_id]

    def budget_figures(self) -> dict[str, dict[str, Any]]:
        """Each limited suite budget's figures in this process (an xdist worker hands
        them to the controller, which adds its workers' with :meth:`merge_budgets`)."""
        figures: dict[str, dict[str, Any]] = {}
        merge_budget_figures(figures, self.worker_budgets)
        merge_budget_figures(figures, {suite: budget.figures() for suite, budget
                                       in sorted(self._budgets.items()) if budget.limited})
        return figures

    def merge_budgets(self, figures: Any) -> None:
        """Add a worker's :meth:`budget_figures` (ignored unless a mapping)."""
        if isinstance(figures, Mapping):
            merge_budget_figures(self.worker_budgets, figures)

    def add_budgets(self, summary: dict[str, Any]) -> dict[str, Any]:
        """``summary`` with a ``judge_budget`` field on each suite that had a budget:
        the limit, the spend, the requests not sent, the worst case held (J12)."""
        figures = self.budget_figures()
        for suite in summary.get("suites", ()):
            if isinstance(suite, dict) and suite.get("id") in figures:
                suite["judge_budget"] = budget_report(figures[suite["id"]])
        return summary
