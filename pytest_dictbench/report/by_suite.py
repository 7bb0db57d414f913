"""Each suite's records as both pages read them: sorted as they list them, with the
group tables worked out once (:func:`records_by_suite`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..methods.base import ItemRecord
from .sections import GroupTable, group_tables

__all__ = ["SuiteRecords", "records_by_suite", "suite_records"]


class SuiteRecords:
    """One suite's records, sorted as the pages list them, and its group tables: worked
    out once for both pages (``records_by_suite``)."""

    def __init__(self, records: list[ItemRecord]) -> None:
        self.records = records
        self._tables: list[GroupTable] | None = None

    def group_tables(self, suite: Mapping[str, Any]) -> list[GroupTable]:
        """:func:`group_tables` of ``suite`` (none for a rig suite)."""
        if self._tables is None:
            self._tables = [] if "rig" in suite else group_tables(suite, self.records)
        return self._tables


def records_by_suite(report: Mapping[str, Any], records: Iterable[ItemRecord]
                     ) -> dict[str, SuiteRecords]:
    """The :class:`SuiteRecords` of each suite of ``report``, by suite id."""
    return {s["id"]: SuiteRecords(suite_records(records, s["id"]))
            for s in report.get("suites", [])}


def suite_records(records: Iterable[ItemRecord], suite_id: str) -> list[ItemRecord]:
    """The records of one suite, sorted by product, case id and repetition."""
    chosen = [r for r in records if r.get("suite") == suite_id]
    return sorted(chosen, key=lambda r: (str(r.get("product")), str(r.get("case_id")),
                                         int(r.get("repetition") or 1)))
