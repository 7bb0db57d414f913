"""Live runs on a rig package: every capture becomes a results row.

A live product (any adapter but ``cache``) may capture a rig package only while its
``execution_gate`` is ready, and only under a product name the package lists. Each live
item turns its capture into the 28 cells of a results row, checked by the same reader as
an imported CSV (:func:`.rows.row_from_cells`), and is then scored from that row
alone. So ``--dictbench-results-out`` writes exactly what the reports were made of, and
importing that CSV gives byte-identical reports.

What a live row holds:

- the product's declared plan, profile, processing path, privacy mode, language
  setting and price (its ``[environment]`` table); the *detected* hardware and OS of the
  capture (:mod:`..environment`), which form the cohorts; the capture's start as
  ``tested_at``;
- dictation, file transcription and meeting: the text as ``raw_transcript`` and the
  capture's seconds (three decimals) as ``elapsed_seconds``;
- meeting: ``capture_complete`` as the adapter reports it (a transcript record's
  ``capture_complete``; a file fed whole to the product whose capture completed counts
  as complete when the adapter says nothing) and the speaker turns counted from the
  labelled transcript (:mod:`.speakers`; a transcript without labels gets
  0 correct);
- correction: the adapter gets the seed and target files and returns the final text as
  ``final_transcript`` with its ``edit_actions``; the capture's seconds are
  ``correction_seconds``;
- a workflow the product does not list in ``workflows`` is ``unsupported`` (the
  methodology: a product without a meeting workflow is not fed the file instead); a
  capture error is ``failed`` with the error as ``notes``; a transcript record's own
  status is kept; a capture whose row the reader refuses for a measured cell (a correction without
  ``edit_actions``) is ``failed`` with the refusal; an empty transcript is complete.

Facts the 28 columns have no cell for travel in ``notes`` as one marked JSON suffix
(:mod:`.notes`): a declared hardware or OS that differs from the detected one, and the
offline audit. An import reads them back, so the reports list the same disagreement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..environment import disagreements
from ..errors import DictbenchError
from ..model import Case, Output, Product, Suite
from .notes import compose_notes
from .protocol import default_profile
from .rows import COLUMNS, ResultsError, RigRow, row_from_cells
from .speakers import Turn, labelled_turns, speaker_metrics

__all__ = ["DECLARED", "DEFAULT_WORKFLOWS", "MEASURED", "check_live", "live_profile", "live_row",
           "unsupported_reason"]

#: Fields a product's ``[environment]`` table may declare for rig rows.
DECLARED = ("plan", "test_profile", "processing_path", "privacy_mode",
            "app_language_setting", "price_snapshot", "pricing_source_url")
#: Workflows of a product that lists none.
DEFAULT_WORKFLOWS = ("dictation", "file_transcription")


def check_live(suite: Suite, products: Sequence[Product]) -> None:
    """Refuse live capture while the gate is closed, and unknown product names."""
    package = suite.manifest["package"]
    live = [p for p in products if p.adapter != "cache"]
    gate = package["execution_gate"]
    if live and not gate["ready"]:
        blocking = "; ".join(gate.get("blocking_items", ())) or "none listed"
        raise DictbenchError(
            f"execution gate of rig package {suite.id!r} is closed: live capture by "
            f"{', '.join(p.name for p in live)} is blocked until these items are done: "
            f"{blocking}", path=suite.root / suite.manifest["cases"])
    unknown = [p.name for p in products if p.name not in package["products"]]
    if unknown:
        raise DictbenchError(
            f"product(s) {', '.join(unknown)} not listed in the package's products "
            f"({', '.join(package['products'])})", path=suite.root / suite.manifest["cases"])


def unsupported_reason(product: Product, case: Case) -> str | None:
    """Why ``product`` cannot run ``case`` live (its workflow is not offered), or None."""
    workflow = case.data["workflow"]
    offered = product.workflows or DEFAULT_WORKFLOWS
    if workflow in offered:
        return None
    return (f"{product.name} offers no {workflow.replace('_', ' ')} workflow (its product "
            f"file's workflows: {', '.join(offered)})")


def live_profile(suite: Suite, product: Product) -> str:
    """The test profile of ``product``'s live rows: its declared one, else the default."""
    return str(product.environment.get("test_profile")
               or default_profile(suite.manifest["package"]))


def _base_cells(suite: Suite, case: Case, product: Product, repetition: int
                ) -> dict[str, str]:
    declared = product.environment
    cells = dict.fromkeys(COLUMNS, "")
    cells.update({k: str(declared[k]) for k in DECLARED if k in declared})
    profile = live_profile(suite, product)
    cells.update(benchmark_version=suite.version, app_id=product.name,
                 run_id=f"{product.name}-{profile}-{case.id}-r{repetition}",
                 fixture_id=case.id, repetition=str(repetition),
                 app_version=product.version, test_profile=profile)
    return cells


def _measured(cells: dict[str, str], case: Case, output: Output) -> None:
    """Fill the cells a complete capture measures (see module doc)."""
    data = case.data
    seconds = "" if output.latency_ms is None else f"{output.latency_ms / 1000:.3f}"
    if data["workflow"] == "correction":
        actions = output.meta.get("edit_actions")
        cells.update(final_transcript=output.text, correction_seconds=seconds,
                     edit_actions="" if actions is None else str(actions))
        return
    cells.update(raw_transcript=output.text, elapsed_seconds=seconds)
    if data["workflow"] == "meeting":
        complete = output.meta.get("capture_complete", True)
        cells["capture_complete"] = "true" if complete else "false"
        if data.get("turns"):
            turns = labelled_turns(output.text, data["turns"]) or [Turn(None, output.text)]
            found = speaker_metrics(data, turns, None, None)
            cells["speaker_turns_correct"] = str(int(found["speaker_turns_correct_computed"]))
            cells["speaker_turns_total"] = str(int(found["speaker_turns_total_computed"]))


#: Cells a capture fills: a row refused for one of them records a product that did not
#: deliver what the methodology needs (``failed``), not a configuration error.
MEASURED = frozenset({"raw_transcript", "final_transcript", "elapsed_seconds",
                      "correction_seconds", "edit_actions", "capture_complete",
                      "speaker_turns_correct", "speaker_turns_total"})


def live_row(suite: Suite, case: Case, product: Product, repetition: int,
             output: Output | None, *, not_offered: str | None = None,
             max_text_chars: int) -> RigRow:
    """The results row of one live item: ``output`` is its capture (None: nothing to
    play); ``not_offered`` why it was not attempted (a workflow the product lacks).

    A complete capture whose row the reader refuses for a measured cell (a correction
    without ``edit_actions``) becomes a ``failed`` row with the
    refusal as its note; any other refusal (the product file's metadata) raises.
    """
    cells = _base_cells(suite, case, product, repetition)
    facts: dict[str, Any] = {}
    if not_offered is not None:
        cells.update(status="unsupported", notes=not_offered)
    elif output is None:
        cells.update(status="not_tested", notes="the fixture has no audio to play")
    else:
        env: Mapping[str, Any] = output.meta.get("environment") or {}
        status = {"error": "failed", "blank": ""}.get(output.status, output.status)
        cells.update(status=status, hardware=str(env.get("hardware", "")),
                     macos_version=str(env.get("macos_version")  # the column's name
                                       or env.get("os_release", "")),
                     tested_at=str(output.meta.get("started_utc") or ""))
        if output.status == "complete":
            _measured(cells, case, output)
        else:
            cells["notes"] = output.error or ""
        found = disagreements(dict(product.environment), dict(env)) if env else []
        if found:
            facts["declared"] = {d["field"]: d["declared"] for d in found}
        if "offline_audit" in output.meta:
            facts["offline_audit"] = output.meta["offline_audit"]
    where = f"live capture of {case.id} by {product.name} (repetition {repetition})"

    def row(notes: str) -> RigRow:
        return row_from_cells({**cells, "notes": compose_notes(notes, facts)}, suite,
                              where=where, path=Path(product.path),
                              max_text_chars=max_text_chars)

    try:
        return row(cells["notes"])
    except ResultsError as exc:
        if cells["status"] != "complete" or exc.column not in MEASURED:
            raise
        for column in MEASURED:
            cells[column] = ""
        cells["status"] = "failed"
        return row(f"the capture cannot make a complete row: {exc.message}")
