"""``--dictbench-split dev|test``: run one half of every suite, and say so in the report.

The halves come from :mod:`pytest_dictbench.split`; items of the other half are
deselected. The report gets a ``split`` entry (half, seed, rule, and per suite its
version, the cases run of how many, the strata counts, a digest of the half's case ids
and one of the whole suite's) that ``dictbench select`` checks, and the report is built
on the half's cases (a product with a result for each is complete). A suite whose half
holds no case is named after collection.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from ..model import Suite
from ..split import DEFAULT_SEED, HALVES, RULE, assign, case_half, split_summary

__all__ = ["SplitPlugin", "add_split_options"]

PLUGIN_NAME = "dictbench-split"


def add_split_options(group: Any) -> None:
    """The split's command-line options."""
    group.addoption(
        "--dictbench-split", dest="dictbench_split", choices=HALVES, default=None,
        help="Run only the dev or the test half of every suite (each case's half fixed by "
        "the seed and its own id); choose configurations on dev with 'dictbench select'. "
        "Default: every case.")
    group.addoption(
        "--dictbench-split-seed", dest="dictbench_split_seed", type=int, default=DEFAULT_SEED,
        metavar="N", help="Seed of the dev/test split. Default: %(default)r.")


class SplitPlugin:
    """Deselects the other half's items and records the split in the report."""

    def __init__(self, half: str, seed: int) -> None:
        self.half, self.seed = half, seed
        self.suites: dict[str, dict[str, Any]] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        keep: list[pytest.Item] = []
        dropped: list[pytest.Item] = []
        halves: dict[str, dict[str, str]] = {}
        for item in items:
            suite, case = getattr(item, "suite", None), getattr(item, "case", None)
            if suite is None or case is None:
                keep.append(item)
                continue
            if suite.id not in halves:
                halves[suite.id] = assign(suite.id, suite.cases, self.seed)
                self.suites[suite.id] = split_summary(suite.id, suite.cases, self.half,
                                                      self.seed, suite.version)
            (keep if halves[suite.id].get(case.id) == self.half else dropped).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep

    def half_of(self, suite: Suite) -> Suite:
        """``suite`` with only this run's half of its cases: what a product needs a
        result for to be complete (and ranked) in this run's report."""
        return replace(suite, cases=tuple(c for c in suite.cases
                                          if case_half(self.seed, suite.id, c.id) == self.half))

    def pytest_report_collectionfinish(self, config: pytest.Config) -> list[str]:
        """``dictbench: suite 'x' (1 case): the test half is empty`` for each such suite."""
        return [f"dictbench: suite {suite_id!r} ({s['of']} case{'' if s['of'] == 1 else 's'}"
                f"): the {self.half} half is empty (seed {self.seed}); no item of it runs"
                for suite_id, s in sorted(self.suites.items()) if s["cases"] == 0]

    def record(self) -> dict[str, Any]:
        """The report's ``split`` entry (the gate compares it with its baseline's)."""
        return {"half": self.half, "seed": self.seed, "rule": RULE,
                "suites": dict(sorted(self.suites.items()))}

    def pytest_dictbench_update_report(self, config: pytest.Config,
                                       report: dict[str, Any]) -> None:
        report["split"] = self.record()
