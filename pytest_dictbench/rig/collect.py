"""Collection of a rig package: one item per results-CSV row (``--dictbench-results``).

Item names read ``<fixture>[<app>-r<n>]`` (``<fixture>[<app>-<profile>-r<n>]`` outside
the default profile), so ``-k <app>`` selects an app. A cell of the default profile
that the CSV does not fill (product x fixture x repetition of the package) is a
``blank`` item: missing evidence, never a number. Pytest outcomes by status:

- ``complete``: scored (passes, or fails below the method's gate: a near-miss
  correction or an incomplete meeting capture);
- ``not_tested``, ``unsupported``, ``blank``: skipped, the status first in the reason;
- ``failed``: a test failure (the run was attempted and did not finish);
- ``invalid``: a test error (the run itself is void).

Without ``--dictbench-results`` and with ``--product``, the package's fixtures are
collected as ordinary cases for live adapters (see :mod:`.export`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..collect import CaseItem, SuiteCollector
from ..model import Output, Product, Suite
from ..session import SESSION_KEY
from .calibration import apply_calibration, calibration_folder
from .live import RigLiveItem, check_live
from .results import COLUMNS, RigRow, read_results

__all__ = ["RigCollector", "RigItem"]


def _blank_rows(suite: Suite, rows: list[RigRow]) -> list[RigRow]:
    package = suite.manifest["package"]
    profile = str(package.get("protocol", {}).get("default_profile", "default"))
    filled = {(r.app_id, r.fixture_id, r.repetition) for r in rows
              if r.test_profile == profile}
    blanks = []
    for app in package["products"]:
        for case in suite.cases:
            need = int(case.data.get("required_repetitions", suite.repetitions))
            for rep in range(1, need + 1):
                if (app, case.id, rep) in filled:
                    continue
                cells = dict.fromkeys(COLUMNS, "")
                cells.update(app_id=app, fixture_id=case.id, repetition=str(rep),
                             test_profile=profile)
                blanks.append(RigRow(number=0, status="blank", app_id=app,
                                     fixture_id=case.id, repetition=rep,
                                     test_profile=profile, cells=cells))
    return blanks


def _product(app: str, rows: list[RigRow], path: Path) -> Product:
    versions = sorted({r.cells["app_version"] for r in rows if r.app_id == app} - {""})
    return Product(name=app, version=", ".join(versions), adapter="results-csv", path=path,
                   description="imported from a rig results CSV")


class RigCollector(SuiteCollector):
    """A rig package: rows of the results CSV, or the fixtures for live products."""

    item_class = RigLiveItem

    def collect(self) -> Iterator[Any]:
        session = self.config.stash[SESSION_KEY]
        suite = session.load_suite(self.path)
        results = self.config.getoption("dictbench_results", None)
        if not results:
            check_live(suite, session.products)
            yield from super().collect()
            return
        path = (self.config.invocation_params.dir / results).resolve()
        rows = read_results(path, suite, max_text_chars=session.max_text_chars)
        blocks: dict[str, dict[str, Any]] = {}
        folder = calibration_folder(suite, self.config.getoption("dictbench_calibration", None),
                                    self.config.invocation_params.dir)
        if folder is not None:
            rows, blocks = apply_calibration(suite, rows, folder)
        rows = sorted(rows + _blank_rows(suite, rows),
                      key=lambda r: (r.app_id, r.test_profile, r.fixture_id, r.repetition))
        products = {app: _product(app, rows, path) for app in sorted({r.app_id for r in rows})}
        default = str(suite.manifest["package"].get("protocol", {}).get(
            "default_profile", "default"))
        for row in rows:
            profile = "" if row.test_profile == default else f"{row.test_profile}-"
            name = f"{row.fixture_id}[{row.app_id}-{profile}r{row.repetition}]"
            yield RigItem.from_parent(
                self, name=name, nodeid=f"{self.nodeid}::{name}",
                suite=suite, case=suite.case(row.fixture_id), product=products[row.app_id],
                repetition=row.repetition, adapter=None, row=row,
                block=blocks.get(row.cells["run_id"]))


class RigItem(CaseItem):
    """One results row, scored by the ``rig`` method."""

    def __init__(self, *, row: RigRow, block: dict[str, Any] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.row = row
        #: The block attempt the row ran in and its calibration verdict (or None).
        self.block = block

    def _rig(self) -> dict[str, Any]:
        case = self.case.data
        return {**self.row.cells, "status": self.row.status, "test_profile":
                self.row.test_profile, "workflow": case["workflow"], "locale": case["locale"],
                **({"block": self.block} if self.block else {})}

    def _record(self, status: str, **fields: Any) -> None:
        extra = {**(fields.pop("extra", None) or {}), "rig": self._rig(),
                 "output_status": self.row.status}
        super()._record(status, extra=extra, **fields)

    def _where(self) -> str:
        return f"row {self.row.number}" if self.row.number else "no row in the results CSV"

    def _prepare(self) -> None:
        status, row = self.row.status, self.row
        detail = f"{self.case.id} from {row.app_id} ({self._where()})"
        if status in ("not_tested", "unsupported", "blank"):
            # row numbers stay out of records: a re-exported CSV orders rows differently
            self._record("not_tested", message=status)
            pytest.skip(f"{status}: {detail}")
        if status == "invalid":
            note = row.cells["notes"] or "no reason given"
            self._record("error", message=f"invalid: {note}")
            pytest.fail(f"invalid run: {detail}: {note}", pytrace=False)
        if status == "failed":
            note = row.cells["notes"] or "no detail given"
            self._record("error", message=f"failed: {note}")
            self.failed_run = f"run failed: {detail}: {note}"
            return
        text = row.values.get("final_transcript" if self.case.data["workflow"] == "correction"
                              else "raw_transcript")
        self.output = Output(case_id=self.case.id, text=text or "",
                             repetition=row.repetition, meta={"rig_values": dict(row.values)},
                             origin=f"{self.product.path}:{self._where()}")
