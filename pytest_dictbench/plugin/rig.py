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
captured live by those products, each fixture as often as it requires (``--repetitions
N`` runs only the first N): each capture becomes a row (:mod:`.live`) and is scored from
it as an imported row is. The cells a live run leaves empty (the package's other
products, repetitions not run) are ``blank`` items, as an import of its export shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..environment import disagreements
from ..errors import SuiteError, install_hint
from ..model import Case, Output, Product, Suite
from ..rig.calibration import BlockCalibration, calibration_folder, load_calibration
from ..rig.checks import exclusion_facts, missing_packages, package_checks
from ..rig.live import check_live, live_profile, live_row, unsupported_reason
from ..rig.notes import split_notes
from ..rig.package import unknown_keys
from ..rig.protocol import default_profile, required_repetitions
from ..rig.results import Exclusion, read_results
from ..rig.rows import COLUMNS, RigRow
from .collect import CaseItem, SuiteCollector
from .session import SESSION_KEY

__all__ = ["RigCollector", "RigItem"]

#: A cell of the methodology: app, test profile, fixture, repetition.
Cell = tuple[str, str, str, int]


def _blank_rows(suite: Suite, filled: set[Cell]) -> list[RigRow]:
    """A ``blank`` row for every cell of the default profile that is not ``filled``."""
    package = suite.manifest["package"]
    profile = default_profile(package)
    blanks = []
    for app in package["products"]:
        for case in suite.cases:
            for rep in range(1, required_repetitions(package, case.data) + 1):
                if (app, profile, case.id, rep) in filled:
                    continue
                cells = dict.fromkeys(COLUMNS, "")
                cells.update(app_id=app, fixture_id=case.id, repetition=str(rep),
                             test_profile=profile)
                blanks.append(RigRow(number=0, status="blank", app_id=app,
                                     fixture_id=case.id, repetition=rep,
                                     test_profile=profile, cells=cells))
    return blanks


def _block_order(suite: Suite, items: list[CaseItem]) -> list[CaseItem]:
    """Live items in the methodology's order: block by block (repetition n is block n),
    inside a block the products in the block's ``run_order``, then the fixtures."""
    protocol = suite.manifest["package"].get("protocol", {})
    orders = protocol.get("run_order", {})
    fixtures = {case.id: index for index, case in enumerate(suite.cases)}

    def key(item: CaseItem) -> tuple[int, int, int]:
        order = list(orders.get(f"block_{item.repetition}", ()))
        place = order.index(item.product.name) if item.product.name in order else len(order)
        return item.repetition, place, fixtures[item.case.id]

    return sorted(items, key=key)


def _row_name(suite: Suite, fixture: str, app: str, profile: str, repetition: int) -> str:
    """``<fixture>[<app>-r<n>]``, with ``-<profile>`` before ``-r<n>`` outside the default
    profile: one name per cell, live or imported."""
    shown = "" if profile == default_profile(suite.manifest["package"]) else f"{profile}-"
    return f"{fixture}[{app}-{shown}r{repetition}]"


def _product(app: str, rows: list[RigRow], path: Path) -> Product:
    versions = sorted({r.cells["app_version"] for r in rows if r.app_id == app} - {""})
    return Product(name=app, version=", ".join(versions), adapter="results-csv", path=path,
                   description="imported from a rig results CSV")


class RigItem(CaseItem):
    """One results row, scored by the ``rig`` method: an imported row, or the row a live
    capture makes once it has run (see :mod:`.live`)."""

    def __init__(self, *, row: RigRow | None = None, block: dict[str, Any] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: The row; for a live item (``adapter`` set) it is made in setup.
        self.row = row
        #: The block attempt the row ran in and its calibration verdict (or None).
        self.block = block

    @property
    def live(self) -> bool:
        return self.adapter is not None

    def _rig(self, row: RigRow, facts: dict[str, Any]) -> dict[str, Any]:
        case = self.case.data
        declared = facts.get("declared")
        found = disagreements(declared, {f: row.cells[f] for f in ("hardware", "macos_version")}
                              ) if isinstance(declared, dict) else []
        return {**row.cells, "status": row.status, "test_profile": row.test_profile,
                "workflow": case["workflow"], "locale": case["locale"],
                **({"environment_disagreements": found} if found else {}),
                **({"block": self.block} if self.block else {})}

    def _record(self, status: str, **fields: Any) -> None:
        extra = dict(fields.pop("extra", None) or {})
        if self.row is not None:  # a capture error before the row: an item error only
            facts = split_notes(self.row.cells["notes"])[1]
            extra.update(rig=self._rig(self.row, facts), output_status=self.row.status)
            if facts.get("offline_audit") is not None:
                extra["offline_audit"] = facts["offline_audit"]
        super()._record(status, extra=extra, **fields)

    def _where(self) -> str:
        if self.live:
            return "live capture"
        return f"row {self.row.number}" if self.row and self.row.number else \
            "no row in the results CSV"

    def _capture_row(self) -> RigRow:
        """Capture (unless the product lacks the workflow), make the row, and place it in
        its calibration block."""
        reason = unsupported_reason(self.product, self.case)
        if reason is None and hasattr(self.adapter, "start_block"):
            self.adapter.start_block(self.repetition)  # repetition n runs in block n
        output = self._get_output() if reason is None else None
        row = live_row(self.suite, self.case, self.product, self.repetition, output,
                       not_offered=reason, max_text_chars=self.session_state.max_text_chars)
        calibration: BlockCalibration | None = getattr(self.parent, "calibration", None)
        if calibration is not None:
            [row], blocks = calibration.apply([row])
            self.block = blocks.get(row.cells["run_id"])
        return row

    def _prepare(self) -> None:
        if self.row is None:
            self.row = self._capture_row()
        status, row = self.row.status, self.row
        detail = f"{self.case.id} from {row.app_id} ({self._where()})"
        note = split_notes(row.cells["notes"])[0]
        if status in ("not_tested", "unsupported", "blank"):
            # row numbers stay out of records: a re-exported CSV orders rows differently
            self._record("not_tested", message=status)
            pytest.skip(f"{status}: {detail}" + (f": {note}" if note else ""))
        if status == "invalid":
            note = note or "no reason given"
            self._record("error", message=f"invalid: {note}")
            pytest.fail(f"invalid run: {detail}: {note}", pytrace=False)
        if status == "failed":
            note = note or "no detail given"
            self._record("error", message=f"failed: {note}")
            self.failed_run = f"run failed: {detail}: {note}"
            return
        text = row.values.get("final_transcript" if self.case.data["workflow"] == "correction"
                              else "raw_transcript")
        self.output = Output(case_id=self.case.id, text=text or "",
                             repetition=row.repetition, meta={"rig_values": dict(row.values)},
                             origin=f"{self.product.path}:{self._where()}")


class RigCollector(SuiteCollector):
    """A rig package: rows of the results CSV, or the fixtures for live products."""

    item_class = RigItem

    def collect(self) -> Iterator[Any]:
        session = self.config.stash[SESSION_KEY]
        missing = missing_packages()
        if missing:  # one line naming them all, before a traceback halfway through a run
            raise SuiteError(f"a rig package run {install_hint(missing, 'rig')}",
                             path=self.path)
        suite = session.load_suite(self.path)
        # as the scorer does: no score from a changed package; then its canonical audio
        checks = session.suite_checks[suite.id] = package_checks(suite)
        for note in unknown_keys(suite):
            self.warn(pytest.PytestWarning(f"dictbench: {suite.manifest['manifest_file']}: "
                                           f"{note}"))
        results = self.config.getoption("dictbench_results", None)
        folder = calibration_folder(suite, self.config.getoption("dictbench_calibration", None),
                                    self.config.invocation_params.dir)
        #: The block calibration, read by live items when their rows are made.
        self.calibration = load_calibration(suite, folder) if folder is not None else None
        if not results:
            check_live(suite, session.products)
            items = list(super().collect())
            yield from _block_order(suite, items)
            filled = {(i.product.name, live_profile(suite, i.product), i.case.id, i.repetition)
                      for i in items}
            yield from self._row_items(suite, _blank_rows(suite, filled),
                                       suite.root / suite.manifest["cases"])
            return
        path = (self.config.invocation_params.dir / results).resolve()
        excluded: list[Exclusion] = []
        rows = read_results(path, suite, max_text_chars=session.max_text_chars,
                            exclusions=excluded)
        for exclusion in excluded:  # listed, never scored (the scorer's exclusions)
            self.warn(pytest.PytestWarning(f"dictbench: {results}: {exclusion.describe()}"))
        checks["exclusions"] = exclusion_facts(excluded)
        blocks: dict[str, dict[str, Any]] = {}
        if self.calibration is not None:
            rows, blocks = self.calibration.apply(rows)
        filled = {(r.app_id, r.test_profile, r.fixture_id, r.repetition) for r in rows}
        yield from self._row_items(suite, rows + _blank_rows(suite, filled), path, blocks)

    def item_name(self, case: Case, product: Product, repetition: int, repetitions: int,
                  suite: Suite) -> str:
        """A live item is named as its row will be (:func:`_row_name`)."""
        return _row_name(suite, case.id, product.name, live_profile(suite, product),
                         repetition)

    def repetitions_of(self, case: Case, suite: Suite, requested: int | None) -> int:
        """A fixture's required repetitions (at most ``--repetitions``, if given)."""
        need = required_repetitions(suite.manifest["package"], case.data)
        return min(requested, need) if requested else need

    def _row_items(self, suite: Suite, rows: list[RigRow], path: Path,
                   blocks: dict[str, dict[str, Any]] | None = None) -> Iterator[RigItem]:
        """One item per row, in app, profile, fixture and repetition order."""
        rows = sorted(rows, key=lambda r: (r.app_id, r.test_profile, r.fixture_id,
                                           r.repetition))
        products = {app: _product(app, rows, path) for app in sorted({r.app_id for r in rows})}
        for row in rows:
            name = _row_name(suite, row.fixture_id, row.app_id, row.test_profile,
                             row.repetition)
            yield RigItem.from_parent(
                self, name=name, nodeid=f"{self.nodeid}::{name}",
                suite=suite, case=suite.case(row.fixture_id), product=products[row.app_id],
                repetition=row.repetition, adapter=None, row=row,
                block=(blocks or {}).get(row.cells["run_id"]))
