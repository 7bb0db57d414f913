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
from ..files import NOT_REGULAR
from ..gate import (
    ANALYSER_KEYS,
    GateOptions,
    baseline_comparisons,
    gate_failures,
    gate_notes,
    gate_verdicts,
)
from ..jsonl import read_json, read_jsonl
from ..schemas import validate
from ..stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..store.baseline import StoreBaseline, is_store_baseline
from ..suites import MANIFEST
from ..text.japanese import analyser_info
from .store import read_store_baseline

__all__ = ["Gating", "baseline_analyser", "baseline_split", "load_baseline"]


class Gating:
    """The gate of one run: ``options`` is ``None`` when the run is not gated."""

    def __init__(self, config: pytest.Config, products: Sequence[str] = ()) -> None:
        option = config.getoption
        value = option("dictbench_baseline")
        if is_store_baseline(value):  # read from the results store (the controller only)
            found = read_store_baseline(config, value, products) if not hasattr(
                config, "workerinput") else StoreBaseline([], {}, None)
            self.baseline: list[dict[str, Any]] | None = found.records
            self.baseline_versions: dict[str, str] = found.versions
            self.baseline_analyser: dict[str, Any] | None = found.analyser
            self.baseline_split: dict[str, Any] | None = None
            self.split_known = False  # a stored run keeps no split record: not compared
        else:
            self.baseline = load_baseline(value, config.invocation_params.dir)
            self.baseline_versions = baseline_versions(value, config.invocation_params.dir)
            self.baseline_analyser = baseline_analyser(value, config.invocation_params.dir)
            self.baseline_split = baseline_split(value, config.invocation_params.dir)
            self.split_known = True
        self.options: GateOptions | None = None
        if self.baseline is None:  # a drop is measured against a baseline run (CF8)
            for name in ("max_drop", "max_drop_abs"):
                if option(f"dictbench_{name}") is not None:
                    flag = "--dictbench-" + name.replace("_", "-")
                    raise DictbenchError(
                        f"{flag} needs --dictbench-baseline: the drop is measured against "
                        "a baseline run's reports folder, and without one the limit would "
                        "never be applied")
        if self.baseline is not None or option("dictbench_min_score") is not None or \
                option("dictbench_max_drop") is not None or \
                option("dictbench_max_drop_abs") is not None:
            self.options = GateOptions(max_drop=option("dictbench_max_drop") or 0.0,
                                       min_score=option("dictbench_min_score"),
                                       allow_missing=option("dictbench_allow_missing"),
                                       max_drop_abs=option("dictbench_max_drop_abs"))
        self.verdicts: list[dict[str, Any]] = []
        self.failures: list[str] = []
        #: drops above max-drop let through as unresolved, ``suite/product: note``
        self.notes: list[str] = []

    def apply(self, records: Sequence[Mapping[str, Any]], report: dict[str, Any],
              products: Sequence[str] = (), *, split: Mapping[str, Any] | None = None
              ) -> None:
        """Compare with the baseline and judge the gate; both go into ``report``
        (``products``: the products named for the run; ``split``: its
        ``--dictbench-split`` record, if any)."""
        comparisons: list[dict[str, Any]] = []
        if self.baseline is not None:
            stats = report.get("statistics", {})
            comparisons = baseline_comparisons(
                records, self.baseline, resamples=stats.get("resamples", DEFAULT_RESAMPLES),
                seed=stats.get("seed", DEFAULT_SEED))
            now = {s["id"]: s.get("version") for s in report.get("suites", [])}
            report["baseline"] = {"comparisons": comparisons, "suite_versions": {
                sid: {"baseline": version, "now": now[sid]}
                for sid, version in sorted(self.baseline_versions.items()) if sid in now}}
            if self.baseline_analyser is not None:
                report["baseline"]["analyser"] = {
                    "baseline": self.baseline_analyser, "now": analyser_info(),
                    "same": all(self.baseline_analyser.get(k) == analyser_info().get(k)
                                for k in ANALYSER_KEYS)}
        if self.options is None:
            return
        self.verdicts = gate_verdicts(report, comparisons, self.options, baseline=self.baseline,
                                      records=records, products=products,
                                      baseline_versions=self.baseline_versions,
                                      analysers=(self.baseline_analyser, analyser_info()),
                                      splits=(self.baseline_split, split)
                                      if self.split_known else None)
        self.failures = gate_failures(self.verdicts)
        self.notes = gate_notes(self.verdicts)
        report["gate"] = {
            "passed": not self.failures, "failures": self.failures, "accepted": self.notes,
            "max_drop": self.options.max_drop, "max_drop_abs": self.options.max_drop_abs,
            "min_score": self.options.min_score,
            "allow_missing": self.options.allow_missing,
            "settings": self.options.describe(baseline=self.baseline is not None),
            "verdicts": self.verdicts}

    def apply_empty(self, products: Sequence[str]) -> None:
        """A gated run in which no item ran at all: each named product fails."""
        if self.options is None:
            return
        self.verdicts = [{"suite": None, "product": name, "passed": False,
                          "failures": ["no item of this product ran (the selection is empty), so "
                                       "the gate has nothing to pass"]}
                         for name in products]
        self.failures = [f"{v['product']}: {v['failures'][0]}" for v in self.verdicts]

    def results(self, records: Sequence[Mapping[str, Any]]
                ) -> list[tuple[str, str, str, str | None]]:
        """Per verdict ``(node id, path, title, failure text or None)``; the node id is
        ``<suite path>/suite.toml::dictbench-gate[<product>]`` (``dictbench::...`` when
        no item ran, so no suite is known)."""
        paths: dict[str | None, str] = {
            r["suite"]: f"{r['suite_path']}/{MANIFEST}" for r in records}
        paths[None] = "dictbench"
        return [(f"{paths[v['suite']]}::dictbench-gate[{v['product']}]", paths[v["suite"]],
                 f"dictbench gate {v['suite'] or ''}/{v['product']}".replace(" /", " "),
                 "\n".join(v["failures"]) or None) for v in self.verdicts]


def load_baseline(value: str | None, cwd: Path) -> list[dict[str, Any]] | None:
    """Item records of a baseline run (``dictbench.json`` path or its folder), each
    checked against the item-record schema (errors name ``items.jsonl:line``)."""
    if value is None:
        return None
    path = cwd / value
    folder = path if path.is_dir() else path.parent
    items = folder / "items.jsonl"
    for needed in (folder / "dictbench.json", items):
        if needed.exists() and not needed.is_file():
            raise DictbenchError(NOT_REGULAR, path=needed)
    if not (folder / "dictbench.json").is_file() or not items.is_file():
        raise DictbenchError("a baseline needs dictbench.json and items.jsonl", path=path)
    records = []
    for number, record in read_jsonl(items, DictbenchError):
        validate(record, "item-record.schema.json", DictbenchError, path=items, line=number,
                 prefix="not an item record of a dictbench run: ")
        records.append(record)
    return records


def _baseline_report(value: str, cwd: Path) -> Any:
    path = cwd / value
    return read_json((path if path.is_dir() else path.parent) / "dictbench.json",
                     DictbenchError)


def baseline_versions(value: str | None, cwd: Path) -> dict[str, str]:
    """Suite id -> version of each suite in a baseline run's ``dictbench.json``."""
    if value is None:
        return {}
    report = _baseline_report(value, cwd)
    suites = report.get("suites", []) if isinstance(report, dict) else []
    return {s["id"]: s["version"] for s in suites if isinstance(s, dict)
            and isinstance(s.get("id"), str) and isinstance(s.get("version"), str)}


def baseline_split(value: str | None, cwd: Path) -> dict[str, Any] | None:
    """The ``split`` record of a baseline run's ``dictbench.json`` (``None``: no
    baseline, or a run of every case)."""
    if value is None:
        return None
    report = _baseline_report(value, cwd)
    split = report.get("split") if isinstance(report, dict) else None
    return dict(split) if isinstance(split, dict) else None


def baseline_analyser(value: str | None, cwd: Path) -> dict[str, Any] | None:
    """The morphological analyser a baseline run recorded in its ``run-info.json``
    (``None``: no baseline, no such file, or a run from before it was recorded)."""
    if value is None:
        return None
    path = cwd / value
    run_info = (path if path.is_dir() else path.parent) / "run-info.json"
    if not run_info.is_file():
        return None
    info = read_json(run_info, DictbenchError)
    analyser = info.get("analyser") if isinstance(info, dict) else None
    return dict(analyser) if isinstance(analyser, dict) else None
