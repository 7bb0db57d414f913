"""A report set (``dictbench.json``, ``items.jsonl``, ``run-info.json``) into the store:
what ``dictbench store import`` records, and the facts a report set alone tells
(suites, products and their versions; digests and git state are unknown to it)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import DictbenchError
from ..files import read_regular
from ..jsonl import parse_json
from .interface import ProductFacts, RunFacts, Store, StoreError, SuiteFacts

__all__ = ["facts_from_report", "import_report_set", "read_lines"]

#: The largest report file read whole (dictbench.json, run-info.json).
_MAX_BYTES = 512 * 1024 * 1024


def facts_from_report(report: Mapping[str, Any]) -> tuple[list[SuiteFacts],
                                                          list[ProductFacts]]:
    """The suites and products a ``dictbench.json`` names, in its order."""
    suites, products = [], {}
    for suite in report.get("suites", []):
        suites.append(SuiteFacts(id=suite["id"], version=str(suite.get("version", "")),
                                 title=str(suite.get("title", "")),
                                 locale=str(suite.get("locale", "")),
                                 method=str(suite.get("method", ""))))
        for entry in suite.get("products", []):
            products.setdefault(entry["product"], ProductFacts(
                name=entry["product"], version=str(entry.get("version", "")),
                adapter=str(entry.get("adapter", "")),
                environment=dict(entry.get("environment") or {})))
    return suites, list(products.values())


def read_lines(path: Path) -> Iterator[tuple[dict[str, Any], str]]:
    """``(record, line)`` of each line of an ``items.jsonl``, streamed."""
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise StoreError(f"not an item record ({exc})", path=path,
                                 line=number) from None
            if not isinstance(record, dict) or not {"suite", "product", "case_id",
                                                    "status"} <= record.keys():
                raise StoreError("not an item record of a dictbench run", path=path,
                                 line=number)
            yield record, line.rstrip("\n")


def import_report_set(store: Store, folder: Path, run_id: str) -> str:
    """Record the report set in ``folder`` (or beside a ``dictbench.json``) as run
    ``run_id``; its times and options are run-info.json's."""
    folder = folder.parent if folder.name == "dictbench.json" else folder
    try:
        report_text = read_regular(folder / "dictbench.json", StoreError,
                                   max_bytes=_MAX_BYTES).decode("utf-8")
        info_path = folder / "run-info.json"
        info_text = read_regular(info_path, StoreError, max_bytes=_MAX_BYTES).decode(
            "utf-8") if info_path.is_file() else "{}\n"
    except (DictbenchError, UnicodeDecodeError) as exc:
        raise StoreError(f"{folder}: not a report set ({exc})") from None
    report = parse_json(report_text, StoreError, folder / "dictbench.json")
    info = parse_json(info_text, StoreError, info_path)
    if not isinstance(report, dict) or not isinstance(report.get("suites"), list):
        raise StoreError("not a dictbench report (no suites)", path=folder / "dictbench.json")
    items = folder / "items.jsonl"
    if not items.is_file():
        raise StoreError("a report set needs items.jsonl beside dictbench.json", path=items)
    info = info if isinstance(info, dict) else {}
    suites, products = facts_from_report(report)
    facts = RunFacts(
        run_id=run_id, finished_utc=str(info.get("finished_utc") or ""),
        dictbench_version=str(info.get("pytest_dictbench") or ""),
        host=str(info.get("host") or ""), options=[str(a) for a in info.get("args", [])],
        source="import", suites=suites, products=products)
    return store.record_run(facts, report_text, info_text, read_lines(items))
