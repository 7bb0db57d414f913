"""Plugin-side glue of the vendor-CI gate: options, baseline file, verdicts as results.

``gate.py`` decides (pure); this module reads the options and the baseline run, puts
the comparisons and the verdict into the report, and turns each verdict into a test
result of its own (see ``plugin.junit.session_result``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..errors import DictbenchError
from ..gate import GateOptions, baseline_comparisons, gate_failures, gate_verdicts
from ..jsonl import read_jsonl
from ..schemas import validate
from ..stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..suites import MANIFEST

__all__ = ["Gating", "load_baseline"]


class Gating:
    """The gate of one run: ``options`` is ``None`` when the run is not gated."""

    def __init__(self, config: pytest.Config) -> None:
        option = config.getoption
        self.baseline = load_baseline(option("dictbench_baseline"), config.invocation_params.dir)
        self.options: GateOptions | None = None
        if self.baseline is not None or option("dictbench_min_score") is not None or \
                option("dictbench_max_drop") is not None:
            self.options = GateOptions(max_drop=option("dictbench_max_drop") or 0.0,
                                       min_score=option("dictbench_min_score"),
                                       allow_missing=option("dictbench_allow_missing"))
        self.verdicts: list[dict[str, Any]] = []
        self.failures: list[str] = []

    def apply(self, records: Sequence[Mapping[str, Any]], report: dict[str, Any]) -> None:
        """Compare with the baseline and judge the gate; both go into ``report``."""
        comparisons: list[dict[str, Any]] = []
        if self.baseline is not None:
            stats = report.get("statistics", {})
            comparisons = baseline_comparisons(
                records, self.baseline, resamples=stats.get("resamples", DEFAULT_RESAMPLES),
                seed=stats.get("seed", DEFAULT_SEED))
            report["baseline"] = {"comparisons": comparisons}
        if self.options is None:
            return
        self.verdicts = gate_verdicts(report, comparisons, self.options, baseline=self.baseline)
        self.failures = gate_failures(self.verdicts)
        report["gate"] = {
            "passed": not self.failures, "failures": self.failures,
            "max_drop": self.options.max_drop, "min_score": self.options.min_score,
            "allow_missing": self.options.allow_missing,
            "settings": self.options.describe(baseline=self.baseline is not None),
            "verdicts": self.verdicts}

    def results(self, records: Sequence[Mapping[str, Any]]
                ) -> list[tuple[str, str, str, str | None]]:
        """Per verdict ``(node id, path, title, failure text or None)``; the node id is
        ``<suite path>/suite.toml::dictbench-gate[<product>]``."""
        paths = {r["suite"]: f"{r['suite_path']}/{MANIFEST}" for r in records}
        return [(f"{paths[v['suite']]}::dictbench-gate[{v['product']}]", paths[v["suite"]],
                 f"dictbench gate {v['suite']}/{v['product']}",
                 "\n".join(v["failures"]) or None) for v in self.verdicts]


def load_baseline(value: str | None, cwd: Path) -> list[dict[str, Any]] | None:
    """Item records of a baseline run (``dictbench.json`` path or its folder), each
    checked against the item-record schema (errors name ``items.jsonl:line``)."""
    if value is None:
        return None
    path = cwd / value
    folder = path if path.is_dir() else path.parent
    items = folder / "items.jsonl"
    if not (folder / "dictbench.json").is_file() or not items.is_file():
        raise DictbenchError("a baseline needs dictbench.json and items.jsonl", path=path)
    records = []
    for number, record in read_jsonl(items, DictbenchError):
        validate(record, "item-record.schema.json", DictbenchError, path=items, line=number,
                 prefix="not an item record of a dictbench run: ")
        records.append(record)
    return records
