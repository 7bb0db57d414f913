"""``dictbench select``: choose a configuration on the dev half, report it on the test
half. Pure apart from reading the two reports.

For each suite the products (configurations) scored in both reports are ranked by their
dev-half ``score`` (the suite score: mean over cases, higher is better). Only a
*final* product can be chosen: one that is neither provisional (a score waiting for
judges or a person) nor incomplete (fewer cases scored than its half holds) in either
half; the others are listed with the reason. The winner's test-half score is reported
with its interval, with the *optimism gap* (dev score minus test score: how much
choosing on dev flattered it), and every product whose test interval overlaps the
winner's is named (the test half does not confirm the order). With one final product
nothing is chosen; with none, nothing either.

The reports must say which half they ran (``split``, written by ``--dictbench-split``):
a dev report given as test, two seeds or split rules, a report without a split, and per
suite two versions, two case totals or two case lists (digest of every case id) are
refused, so the halves cannot be mixed silently.
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
    file = path / "dictbench.json" if path.is_dir() or not path.exists() else path
    if not file.exists():
        raise SelectError(f"no report: the run wrote none (was its half empty? a run "
                          f"whose {half} half holds no case selects no item, says so after "
                          "collection, and writes no report)", path=file)
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
    for key, what in (("seed", "seeds"), ("rule", "split rules")):
        if dev_split.get(key) != test_split.get(key):
            raise SelectError(f"the halves come from different {what} "
                              f"({dev_split.get(key)} in {dev['_path']}, "
                              f"{test_split.get(key)} in {test['_path']})")
    dev_entries, test_entries = _entries(dev), _entries(test)
    suites = []
    for suite_id in sorted(dev_entries.keys() & test_entries.keys()):
        halves = {half: _suite_split(suite_id, split, half)
                  for split, half in ((dev_split, "dev"), (test_split, "test"))}
        _same_suite(suite_id, halves["dev"], halves["test"])
        suites.append(_select_suite(suite_id, dev_entries[suite_id], test_entries[suite_id],
                                    halves))
    if not suites:
        raise SelectError("the two reports share no suite")
    return {"metric": "score", "higher_is_better": True, "seed": dev_split.get("seed"),
            "dev_report": dev["_path"], "test_report": test["_path"], "suites": suites}


def _suite_split(suite_id: str, split: Mapping[str, Any], half: str) -> Mapping[str, Any]:
    recorded = (split.get("suites") or {}).get(suite_id)
    if not isinstance(recorded, Mapping):
        raise SelectError(f"suite {suite_id!r}: its {half} report records no split of it")
    if recorded.get("half") != half:
        raise SelectError(f"suite {suite_id!r}: its {half} report ran the "
                          f"{recorded.get('half')!r} half")
    if not recorded.get("suite_cases_sha256"):
        raise SelectError(f"suite {suite_id!r}: the {half} report records no digest of the "
                          "suite's case list (written by an older dictbench): run both "
                          "halves again")
    return recorded


def _same_suite(suite_id: str, dev: Mapping[str, Any], test: Mapping[str, Any]) -> None:
    """Refuse halves of two suite versions, case totals or case lists: their halves
    may overlap and leave cases out."""
    where = "in the dev report, {} in the test report"
    if dev.get("version") != test.get("version"):
        raise SelectError(f"suite {suite_id!r}: version {dev.get('version')} "
                          f"{where.format(test.get('version'))}: run both halves on one "
                          "version")
    if dev.get("of") != test.get("of"):
        raise SelectError(f"suite {suite_id!r}: {dev.get('of')} cases "
                          f"{where.format(test.get('of'))}: run both halves on one case list")
    if dev["suite_cases_sha256"] != test["suite_cases_sha256"]:
        raise SelectError(f"suite {suite_id!r}: the case lists differ (digest "
                          f"{str(dev['suite_cases_sha256'])[:12]} "
                          f"{where.format(str(test['suite_cases_sha256'])[:12])}): the "
                          "halves may overlap; run both halves on one case list")


def _status(entry: Mapping[str, Any], half_cases: Any, half: str) -> str | None:
    """Why a product's score in one half is not final, or None."""
    waiting = entry.get("provisional")
    if isinstance(waiting, Mapping) and waiting.get("unjudged"):
        return f"provisional: {waiting['unjudged']} unjudged judgement(s) ({half})"
    if entry.get("pending_adjudications"):
        return f"provisional: {entry['pending_adjudications']} pending adjudication(s) ({half})"
    scored = entry.get("cases_scored")
    if isinstance(half_cases, int) and isinstance(scored, int) and scored < half_cases:
        return f"incomplete: {scored} of {half_cases} cases scored ({half})"
    return None


def _select_suite(suite_id: str, dev: Mapping[str, Mapping[str, Any]],
                  test: Mapping[str, Mapping[str, Any]],
                  halves: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    candidates = sorted(
        (p for p in dev.keys() & test.keys() if dev[p].get("score") is not None
         and test[p].get("score") is not None),
        key=lambda p: (-float(dev[p]["score"]), p))
    rows = [{"product": p, "dev_score": dev[p]["score"], "dev_ci": dev[p].get("score_ci"),
             "test_score": test[p]["score"], "test_ci": test[p].get("score_ci"),
             "optimism_gap": round(float(dev[p]["score"]) - float(test[p]["score"]), 6),
             "dev_cases": dev[p].get("cases_scored"), "test_cases": test[p].get("cases_scored"),
             "status": _status(dev[p], halves["dev"].get("cases"), "dev")
             or _status(test[p], halves["test"].get("cases"), "test") or "final"}
            for p in candidates]
    result: dict[str, Any] = {"suite": suite_id, "candidates": rows,
                              "not_in_both": sorted(dev.keys() ^ test.keys()),
                              "winner": None, "runner_up": None, "dev_tie": False,
                              "test_overlaps": [], "test_overlaps_runner_up": None,
                              "only_candidate": False}
    final = [row for row in rows if row["status"] == "final"]
    if not rows:
        return {**result, "reason": "no product has a score in both halves"}
    if not final:
        return {**result, "reason": "Nothing was chosen: every configuration is provisional "
                "or incomplete (see the table)."}
    winner = final[0]
    result["winner"] = winner
    result["only_candidate"] = len(final) == 1
    if len(final) == 1:
        return result
    result["runner_up"] = final[1]
    result["dev_tie"] = final[1]["dev_score"] == winner["dev_score"]
    mine = _interval(test[winner["product"]])
    result["test_overlaps"] = [row["product"] for row in final[1:]
                               if _overlap(mine, _interval(test[row["product"]]))]
    result["test_overlaps_runner_up"] = _overlap(mine, _interval(test[final[1]["product"]]))
    return result


def _fmt(value: Any) -> str:
    return "-" if value is None else f"{float(value):.2f}"


def _ci(ci: Any) -> str:
    return "-" if not isinstance(ci, Mapping) else f"[{ci['low']:.2f}, {ci['high']:.2f}]"


def _n(value: Any) -> str:
    return "-" if value is None else str(value)


def _verdict(suite: Mapping[str, Any]) -> list[str]:
    """The chosen line and its flags."""
    winner = suite.get("winner")
    if winner is None:
        return [suite["reason"]]
    figures = (f"dev {_fmt(winner['dev_score'])}, test {_fmt(winner['test_score'])} "
               f"{_ci(winner['test_ci'])}, optimism gap {winner['optimism_gap']:+.2f}.")
    if suite.get("only_candidate"):
        return [f"Only one configuration (**{winner['product']}**) was scored in both halves: "
                f"nothing was chosen between configurations. {figures}"]
    lines = [f"Chosen: **{winner['product']}**: {figures}"]
    if suite.get("dev_tie"):
        lines.append("FLAG: the dev half ties the winner with the runner-up; the choice "
                     "was made by name.")
    overlaps = [row for row in suite["candidates"] if row["product"] in suite["test_overlaps"]]
    if overlaps:
        named = ", ".join(f"{row['product']} {_ci(row['test_ci'])}" for row in overlaps)
        lines.append(f"FLAG: the test interval overlaps that of {named}: the test half "
                     "does not confirm the choice.")
    return lines


def render_selection(selection: Mapping[str, Any]) -> str:
    """The selection as Markdown (also what the command prints)."""
    lines = ["# Configuration chosen on the dev half, scored on the test half", "",
             f"Split seed {selection['seed']}; dev report `{selection['dev_report']}`, test "
             f"report `{selection['test_report']}`. Metric: suite score (higher is better); "
             "only a final configuration (neither provisional nor incomplete) is chosen.",
             ""]
    for suite in selection["suites"]:
        lines += [f"## {suite['suite']}", "", *_verdict(suite)]
        if suite["candidates"]:
            lines += ["", "| product | dev | n dev | test | n test | test 95% CI | "
                      "gap (dev - test) | status |",
                      "|---|---:|---:|---:|---:|---|---:|---|"]
        for row in suite["candidates"]:
            lines.append(f"| {row['product']} | {_fmt(row['dev_score'])} | "
                         f"{_n(row['dev_cases'])} | {_fmt(row['test_score'])} | "
                         f"{_n(row['test_cases'])} | {_ci(row['test_ci'])} | "
                         f"{row['optimism_gap']:+.2f} | {row['status']} |")
        if suite["not_in_both"]:
            lines.append("")
            lines.append(f"Not in both halves (not compared): {', '.join(suite['not_in_both'])}")
        lines.append("")
    return "\n".join(lines)


def select_paths(dev: Path, test: Path) -> dict[str, Any]:
    """:func:`select` on two report paths."""
    return select(load_report(dev, "dev"), load_report(test, "test"))
