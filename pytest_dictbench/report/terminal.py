"""The summary table printed at the end of a run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["summary_lines"]

_COLUMNS = ("items", "passed", "failed", "errors", "not_tested", "empty")


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def summary_lines(report: Mapping[str, Any]) -> list[str]:
    """One table: a row per suite x product, with counts, score and headline metric."""
    header = ("suite", "product", *_COLUMNS, "score", "headline")
    rows: list[tuple[str, ...]] = [header]
    for suite in report.get("suites", []):
        for entry in suite["products"]:
            summary = entry.get("tables", {}).get("summary", {})
            headline = suite.get("headline")
            metric = summary.get(headline) if headline else None
            rows.append((
                suite["id"], entry["product"], *(_fmt(entry[c]) for c in _COLUMNS),
                _fmt(entry["score"]), f"{headline}={_fmt(metric)}" if headline else "-",
            ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    notes = []
    for suite in report.get("suites", []):
        if suite["canary"]["status"] != "ok":
            missing = ", ".join(suite["canary"]["missing_in"])
            notes.append(f"{suite['id']}: canary missing in {missing}")
        for entry in suite["products"]:
            if entry["canary_leaks"]:
                notes.append(f"{suite['id']}/{entry['product']}: output contains the canary "
                             f"({', '.join(entry['canary_leaks'])})")
    return lines + notes
