"""Records for items that never ran: the run stopped early (``-x``, ``--maxfail``), or
pytest-xdist gave up after crashed workers, or a worker crashed while running the item.

Every collected item appears in every report whatever happens to the run; an item that
did not run is ``not_tested`` with the reason, so counts, reasons and the gate agree
(the gate counts ``not_tested`` items as missing).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, NamedTuple

import pytest

from ..errors import DictbenchError
from ..model import Case, Product, Suite
from .nodeids import split_item_id

__all__ = ["UnrunItem", "item_record", "stop_reason", "unrun_reports", "xdist_stop"]


class UnrunItem(NamedTuple):
    """What an item record needs, for an item that the controller never ran itself."""

    suite: Suite
    case: Case
    product: Product
    repetition: int


def item_record(session: Any, nodeid: str, status: str, message: str
                ) -> tuple[dict[str, Any], tuple[str, int, str]] | None:
    """The record of the dictbench item ``nodeid`` (``session`` is the run's
    ``DictbenchSession``, which imports this module) and its report location (as
    ``reportinfo`` gives it), or None when the id names no case of a loaded suite."""
    products = {p.name: p for p in session.products}
    parts = split_item_id(nodeid, tuple(products))
    if parts is None:
        return None
    path, case_id, product, repetition = parts
    try:
        suite = session.load_suite(session.config.rootpath / path)
    except DictbenchError:
        return None
    try:
        case = suite.case(case_id)
    except KeyError:
        return None
    record = session.make_record(UnrunItem(suite, case, products[product], repetition),
                                 status, message=message)
    cases_file = PurePosixPath(path).parent / suite.manifest.get("cases", "cases.jsonl")
    name = nodeid.split("::", 1)[1]
    return record, (str(cases_file), case.line - 1, f"{suite.id}::{name}")


def xdist_stop(config: pytest.Config) -> str | None:
    """Why pytest-xdist's controller stopped the run before its end (``-x``,
    ``--maxfail``, crashed workers past ``--max-worker-restart``), else None. A
    keyboard interrupt is not such a stop."""
    dsession = config.pluginmanager.getplugin("dsession")
    if dsession is None:
        return None
    crashed = getattr(dsession, "_summary_report", None)
    if isinstance(crashed, str) and crashed:
        return f"the run gave up after worker crashes ({crashed})"
    stop = getattr(dsession, "shouldstop", None)
    if isinstance(stop, str) and stop.startswith("stopping after"):
        return f"the run stopped early ({stop})"
    return None


def stop_reason(session: pytest.Session) -> str:
    """Why collected items were not run, in words, for their records."""
    xdist = xdist_stop(session.config)
    if xdist is not None:
        return xdist
    stop = session.shouldfail or session.shouldstop
    if isinstance(stop, str) and stop:
        return f"the run stopped early ({stop})"
    return "the run ended before this item ran"


def unrun_reports(session: Any, nodeids: list[str], reason: str,
                  record_property: str, line: Any) -> list[pytest.TestReport]:
    """Skipped setup and teardown reports for each item of ``nodeids`` that never ran;
    the teardown report carries its ``not_tested`` record (``line`` encodes it), so it
    is counted like any item, a JUnit testcase included."""
    reports = []
    for nodeid in nodeids:
        found = item_record(session, nodeid, "not_tested", f"not run: {reason}")
        if found is None:
            continue
        record, location = found
        skip = (location[0], location[1] + 1, f"Skipped: not run: {reason}")
        reports.append(pytest.TestReport(nodeid, location, {}, "skipped", skip, "setup"))
        reports.append(pytest.TestReport(
            nodeid, location, {}, "passed", None, "teardown",
            user_properties=[(record_property, line(record))]))
    return reports
