"""``dictbench select``: choose a configuration on the dev half, report it on the test
half. Pure apart from reading the two reports.

For each suite the products (configurations) scored in both reports are ranked by their
dev-half ``score`` (the suite score: mean over cases, higher is better). The winner's
test-half score is reported with its interval, with the *optimism gap* (dev score minus
test score: how much choosing on dev flattered it), and the choice is flagged when its
test interval overlaps the runner-up's (the test half does not confirm the order).

The reports must say which half they ran (``split``, written by ``--dictbench-split``):
a dev report given as test, two seeds, or a report without a split is refused, so the
halves cannot be mixed silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import DictbenchError
from .jsonl import read_json

__all__ = ["SelectError", "load_report", "render_selection", "select", "select_paths"]


class SelectError(DictbenchError):
    """The reports cannot be used for a selection."""


def load_report(path: Path, half: str) -> dict[str, Any]:
    """A ``dictbench.json`` (or the report folder holding it) that ran ``half``."""
    file = path / "dictbench.json" if path.is_dir() else path
    report = read_json(file, SelectError)
    if not isinstance(report, dict) or not isinstance(report.get("suites"), list):
        raise SelectError("not a dictbench report (no suites list)", path=file)
    split = report.get("split")
    if not isinstance(split, dict) or "half" not in split:
        raise SelectError(f"the report records no split: run it with --dictbench-split "
                          f"{half}", path=file)
    if split["half"] != half:
        raise SelectError(f"the report ran the {split['half']!r} half, but is given as the "
                          f"{half!r} half", path=file)
    report["_path"] = str(file)
    return report


def _entries(report: Mapping[str, Any]) -> dict[str, dict[str, Mapping[str, Any]]]:
    """Suite id -> product -> product entry."""
    return {s["id"]: {e["product"]: e for e in s.get("products", [])}
            for s in report["suites"]}


def _interval(entry: Mapping[str, Any]) -> tuple[float, float] | None:
    ci = entry.get("score_ci")
    return (float(ci["low"]), float(ci["high"])) if isinstance(ci, Mapping) else None


def _overlap(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool | None:
    if a is None or b is None:
        return None
    return a[0] <= b[1] and b[0] <= a[1]


def select(dev: Mapping[str, Any], test: Mapping[str, Any]) -> dict[str, Any]:
    """The selection of every suite both reports hold (see the module docstring)."""
    dev_split, test_split = dev["split"], test["split"]
    if dev_split.get("seed") != test_split.get("seed"):
        raise SelectError(f"the halves come from different seeds ({dev_split.get('seed')} "
                          f"in {dev['_path']}, {test_split.get('seed')} in {test['_path']})")
    dev_entries, test_entries = _entries(dev), _entries(test)
    suites = []
    for suite_id in sorted(dev_entries.keys() & test_entries.keys()):
        suites.append(_select_suite(suite_id, dev_entries[suite_id], test_entries[suite_id],
                                    dev_split, test_split))
    if not suites:
        raise SelectError("the two reports share no suite")
    return {"metric": "score", "higher_is_better": True, "seed": dev_split.get("seed"),
            "dev_report": dev["_path"], "test_report": test["_path"], "suites": suites}


def _select_suite(suite_id: str, dev: Mapping[str, Mapping[str, Any]],
                  test: Mapping[str, Mapping[str, Any]], dev_split: Mapping[str, Any],
                  test_split: Mapping[str, Any]) -> dict[str, Any]:
    for split, half in ((dev_split, "dev"), (test_split, "test")):
        recorded = (split.get("suites") or {}).get(suite_id)
        if recorded is not None and recorded.get("half") != half:
            raise SelectError(f"suite {suite_id!r}: its {half} report ran the "
                              f"{recorded.get('half')!r} half")
    candidates = sorted(
        (p for p in dev.keys() & test.keys() if dev[p].get("score") is not None
         and test[p].get("score") is not None),
        key=lambda p: (-float(dev[p]["score"]), p))
    rows = [{"product": p, "dev_score": dev[p]["score"], "dev_ci": dev[p].get("score_ci"),
             "test_score": test[p]["score"], "test_ci": test[p].get("score_ci"),
             "optimism_gap": float(dev[p]["score"]) - float(test[p]["score"]),
             "dev_cases": dev[p].get("cases_scored"), "test_cases": test[p].get("cases_scored")}
            for p in candidates]
    result: dict[str, Any] = {"suite": suite_id, "candidates": rows,
                              "not_in_both": sorted(dev.keys() ^ test.keys())}
    if not rows:
        return {**result, "winner": None, "reason": "no product has a score in both halves"}
    winner = rows[0]
    result["winner"] = winner
    result["runner_up"] = rows[1] if len(rows) > 1 else None
    result["dev_tie"] = len(rows) > 1 and rows[1]["dev_score"] == winner["dev_score"]
    overlap = _overlap(_interval(test[winner["product"]]),
                       _interval(test[rows[1]["product"]])) if len(rows) > 1 else None
    result["test_overlaps_runner_up"] = overlap
    return result


def _fmt(value: Any) -> str:
    return "-" if value is None else f"{float(value):.2f}"


def _ci(ci: Any) -> str:
    return "-" if not isinstance(ci, Mapping) else f"[{ci['low']:.2f}, {ci['high']:.2f}]"


def render_selection(selection: Mapping[str, Any]) -> str:
    """The selection as Markdown (also what the command prints)."""
    lines = ["# Configuration chosen on the dev half, scored on the test half", "",
             f"Split seed {selection['seed']}; dev report `{selection['dev_report']}`, test "
             f"report `{selection['test_report']}`. Metric: suite score (higher is better).",
             ""]
    for suite in selection["suites"]:
        lines += [f"## {suite['suite']}", ""]
        winner = suite.get("winner")
        if winner is None:
            lines += [suite["reason"], ""]
            continue
        lines.append(f"Chosen: **{winner['product']}**: dev {_fmt(winner['dev_score'])}, "
                     f"test {_fmt(winner['test_score'])} {_ci(winner['test_ci'])}, optimism "
                     f"gap {winner['optimism_gap']:+.2f}.")
        if suite.get("dev_tie"):
            lines.append("FLAG: the dev half ties the winner with the runner-up; the choice "
                         "was made by name.")
        if suite.get("test_overlaps_runner_up"):
            lines.append(f"FLAG: the test interval overlaps the runner-up's "
                         f"({suite['runner_up']['product']} "
                         f"{_ci(suite['runner_up']['test_ci'])}): the test half does not "
                         "confirm the choice.")
        lines += ["", "| product | dev | test | test 95% CI | gap (dev - test) |",
                  "|---|---:|---:|---|---:|"]
        for row in suite["candidates"]:
            lines.append(f"| {row['product']} | {_fmt(row['dev_score'])} | "
                         f"{_fmt(row['test_score'])} | {_ci(row['test_ci'])} | "
                         f"{row['optimism_gap']:+.2f} |")
        if suite["not_in_both"]:
            lines.append("")
            lines.append(f"Not in both halves (not compared): {', '.join(suite['not_in_both'])}")
        lines.append("")
    return "\n".join(lines)


def select_paths(dev: Path, test: Path) -> dict[str, Any]:
    """:func:`select` on two report paths."""
    return select(load_report(dev, "dev"), load_report(test, "test"))

