"""Validity of a rig run as the reports show it: schedule violations and block
calibrations, gathered from the item records. Pure.

Each rig record carries its row's cells (``rig``: app, fixture, repetition, status,
``tested_at``, ``processing_path``) and, when a calibration folder was given, the
``block`` it ran in with that block attempt's calibration verdict. Schedule checks
(:mod:`pytest_dictbench.rig.schedule`) run on every import; the kinds in
``RANK_BLOCKING`` make a product not rankable in every table, with the reason.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from ...rig.blocks import parse_time
from ...rig.schedule import CLOUD_PATHS, RunRow, Violation, check_schedule

__all__ = ["rank_blockers", "run_validity"]


def _rows(records: Sequence[Mapping[str, Any]]) -> list[RunRow]:
    rows = []
    for record in records:
        cells = record["rig"]
        try:
            when = parse_time(cells["tested_at"]) if cells.get("tested_at") else None
        except ValueError:
            when = None
        rows.append(RunRow(cells.get("run_id") or f"{record['product']}-{record['case_id']}-"
                           f"{record['repetition']}", record["product"], record["case_id"],
                           int(record["repetition"]), cells["status"], when,
                           cells.get("processing_path", "")))
    return rows


def run_validity(records: Sequence[Mapping[str, Any]], package: Mapping[str, Any]
                 ) -> dict[str, Any]:
    """``{"schedule": [...violations], "calibration": [...block verdicts]}``."""
    rig = [r for r in records if "rig" in r]
    protocol = package.get("protocol", {})
    orders = {block: list(apps) for block, apps in protocol.get("run_order", {}).items()}
    fixtures = [f["id"] for f in package.get("fixtures", [])]
    schedule = check_schedule(_rows(rig), orders, fixtures)
    blocks: dict[str, Mapping[str, Any]] = {}
    for record in rig:
        block = record["rig"].get("block")
        if block and block.get("calibration"):
            blocks[block["attempt"]] = block["calibration"]
        path = record["rig"].get("processing_path", "")
        if block and path in CLOUD_PATHS and not block.get("network_measured", True) \
                and record["rig"]["status"] not in ("", "blank", "not_tested"):
            schedule.append(Violation(
                "network", record["product"],
                f"{block['attempt']}: cloud processing path ({path}) but no network "
                "measurement at the block's start and end"))
    schedule += _selective_reruns(rig)
    schedule = sorted(set(schedule), key=lambda v: (v.app_id, v.kind, v.message))
    speakers = [
        {"app_id": r["product"], "fixture_id": r["case_id"], "repetition": r["repetition"],
         "note": r.get("message", ""),
         "operator_disagrees": bool(r["metrics"].get("speaker_turns_operator_disagrees"))}
        for r in rig if "speaker_turns_correct_computed" in r.get("metrics", {})]
    return {"schedule": [v.to_json() for v in schedule],
            "calibration": [blocks[key] for key in sorted(blocks)],
            "speakers": sorted(speakers, key=lambda s: (s["app_id"], s["fixture_id"],
                                                        s["repetition"]))}


def _selective_reruns(rig: Sequence[Mapping[str, Any]]) -> list[Violation]:
    """Products rerun alone in a block's next attempt after its calibration failed (the
    methodology forbids selective reruns: the whole block is rerun or none of it). Read
    from the block attempt each record ran in; attempts of a block in attempt order."""
    apps: dict[str, set[str]] = defaultdict(set)
    failed: set[str] = set()
    for record in rig:
        block = record["rig"].get("block")
        if not block or record["rig"]["status"] in ("", "blank", "not_tested", "unsupported"):
            continue
        apps[block["attempt"]].add(record["product"])
        if not block.get("calibration", {}).get("accepted", True):
            failed.add(block["attempt"])

    def order(key: str) -> tuple[str, int]:
        name, _, number = key.partition("#")
        return name, int(number or 1)

    found = []
    keys = sorted(apps, key=order)
    for before, after in itertools.pairwise(keys):
        if order(before)[0] != order(after)[0] or before not in failed:
            continue
        rerun, missing = apps[before] & apps[after], apps[before] - apps[after]
        if rerun and missing:
            found += [Violation("selective_rerun", app,
                                f"{after} reran only {', '.join(sorted(rerun))} after "
                                f"{before} failed calibration (not rerun: "
                                f"{', '.join(sorted(missing))})") for app in sorted(rerun)]
    return found


def rank_blockers(validity: Mapping[str, Any]) -> dict[str, list[str]]:
    """Per product, the schedule reasons that keep it out of every ranking."""
    found: dict[str, list[str]] = defaultdict(list)
    for violation in validity.get("schedule", []):
        if violation["blocks_rank"]:
            found[violation["app_id"]].append(
                f"schedule: {violation['kind'].replace('_', ' ')}: {violation['message']}")
    return dict(found)
