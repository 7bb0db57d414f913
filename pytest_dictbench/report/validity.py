"""Validity findings of a suite, one row per product and check, for every report format.

Rows come from each product entry's ``processing_path`` (the offline audit) and from the
suite's ``validity`` section (rig calibration blocks and schedule checks), so the
Markdown, HTML and terminal reports list the same findings in the same order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["validity_rows"]


def validity_rows(suite: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(product or "(run)", check, finding)`` rows, sorted for stable output."""
    rows: list[tuple[str, str, str]] = []
    for entry in suite.get("products", []):
        path = entry.get("processing_path")
        if path:
            claimed = path.get("claimed") or "not declared"
            rows.append((entry["product"], "processing path",
                         f"{claimed}: {path.get('note', '')}"))
    validity = (suite.get("rig") or {}).get("validity") or suite.get("validity") or {}
    for block in validity.get("calibration", []):
        verdict = ("invalid_rig: " + "; ".join(block.get("failures", []))
                   if not block.get("accepted") else
                   f"accepted (level {block.get('level_delta_db')} dB, onset "
                   f"{block.get('onset_delta_ms')} ms)")
        notes = "".join(f"; note: {n}" for n in block.get("notes", ()))
        rows.append(("(run)", f"calibration {block['block']}", verdict + notes))
    audio = (suite.get("rig") or {}).get("audio_specification") or {}
    for failure in audio.get("failures", []):
        rows.append(("(run)", f"audio specification {failure['fixture_id']}",
                     "; ".join(failure["failed"]) + " (no ranks published)"))
    if audio.get("blocks_ranks") and not audio.get("failures"):
        rows.append(("(run)", "audio specification", f"{audio['problem']} (no ranks "
                                                     "published)"))
    for found in validity.get("speakers", []):
        rows.append((found["app_id"], f"speaker turns {found['fixture_id']} "
                     f"r{found['repetition']}", found["note"]))
    for violation in validity.get("schedule", []):
        effect = " (not rankable)" if violation.get("blocks_rank") else ""
        rows.append((violation["app_id"], violation["kind"].replace("_", " "),
                     violation["message"] + effect))
    return sorted(rows)
