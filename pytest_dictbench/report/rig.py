"""The rig section of a suite as plain tables, shared by the Markdown and HTML reports.

Pure: :func:`rig_tables_text` turns ``suites[].rig`` of ``dictbench.json`` into titled
tables of unescaped text cells (each renderer escapes them). Values are printed with
the 6 places they are ranked on; every product that is not ranked is listed with all
its reasons.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["RigTable", "example_lines", "rig_notes", "rig_tables_text", "table_title"]

_STATUSES = ("complete", "not_tested", "unsupported", "failed", "invalid", "blank")


@dataclass(frozen=True)
class RigTable:
    """One table: a title, a header and rows of text cells (numeric columns listed)."""

    title: str
    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[int, ...] = ()


def _value(value: Any) -> str:
    return "-" if value is None else f"{value:.6f}"


def table_title(table: Mapping[str, Any]) -> str:
    """``dictation, profile default: wer (lower is better)``."""
    scope = table["workflow"] + (f" {table['locale']}" if table["locale"] else "")
    return (f"{scope}, profile {table['test_profile']}: {table['metric']} "
            f"({table['direction']})")


def _metric_table(table: Mapping[str, Any]) -> RigTable:
    rows = []
    for cohort in table["cohorts"]:
        environment = ", ".join(f"{k}={v}" for k, v in cohort["environment"].items())
        for entry in cohort["entries"]:
            medians = "; ".join(f"{m['fixture_id']} {_value(m['median'])}"
                                for m in entry["fixture_medians"])
            rows.append((str(entry["rank"]), entry["app_id"], _value(entry["value"]),
                         environment, medians))
    for entry in table["not_ranked"]:
        partial = entry.get("partial")
        value = _value(entry["value"]) if partial is None else \
            f"{_value(partial['value'])} ({partial['fixtures']})"
        medians = [f"{m['fixture_id']} {_value(m['median'])}"
                   + (f" (incomplete: {m['incomplete']})" if m.get("incomplete") else "")
                   for m in entry.get("fixture_medians", ())]
        rows.append(("not ranked", entry["app_id"], value, "",
                     "; ".join([*entry["reasons"], *(
                         [f"fixture medians: {', '.join(medians)}"] if medians else [])])))
    return RigTable(table_title(table), ("Rank", "Product", "Value", "Cohort",
                                    "Fixture medians / reasons not ranked"),
                    tuple(rows), numeric=(2,))


def rig_tables_text(rig: Mapping[str, Any]) -> list[RigTable]:
    """Statuses per product, one table per metric, then the descriptive metadata."""
    statuses = RigTable(
        "Rows by status (only complete rows are scored)", ("Product", *_STATUSES),
        tuple((app, *(str(counts[s]) for s in _STATUSES))
              for app, counts in sorted(rig["statuses"].items())),
        numeric=tuple(range(1, len(_STATUSES) + 1)))
    observed = RigTable(
        "Descriptive metadata of complete rows (never part of a score)",
        ("Product", "Complete rows", "Locales", "App versions", "Processing paths",
         "Privacy modes", "Language settings", "Price snapshots", "Pricing sources"),
        tuple((o["app_id"], str(o["complete_runs"]), *(", ".join(o[k]) or "-" for k in (
            "tested_locales", "app_versions", "processing_paths", "privacy_modes",
            "app_language_settings", "price_snapshots", "pricing_source_urls")))
              for o in rig["observations"]), numeric=(1,))
    excluded = [RigTable(
        "Rows excluded from scoring (not imported; only complete rows are held to every "
        "column rule)", ("Row", "Status", "Product", "Fixture", "Reason"),
        tuple((str(e["row"]), e["status"], e["app_id"] or "-", e["fixture_id"] or "-",
               e["reason"]) for e in rig["exclusions"]), numeric=(0,))
        ] if rig.get("exclusions") else []
    return [statuses, *excluded, *(_metric_table(t) for t in rig["tables"]), observed]


def _integrity_note(rig: Mapping[str, Any]) -> str:
    integrity = rig.get("integrity") or {}
    if rig.get("integrity_verified"):
        return (f"Package integrity verified before scoring: every listed file's "
                f"{integrity.get('algorithm', 'sha256')} matched "
                f"({integrity.get('files', '?')} files).")
    return "Package integrity not verified in this run."


def example_lines(rig: Mapping[str, Any]) -> list[str]:
    """What an example package's run says of its failures: which are intended."""
    example = rig.get("example")
    if not example:
        return []
    lines = [example["statement"] or "Example package: example data."]
    intended = example["intended_faults"]
    if intended:
        seen = len(intended) - len(example["intended_not_seen"])
        lines.append(f"{seen} of the {len(intended)} intended example faults failed as "
                     f"intended (so the run exits 1): {', '.join(intended)}.")
    if example["unexpected_faults"]:
        lines.append("Not intended, so a real problem: "
                     f"{', '.join(example['unexpected_faults'])}.")
    if example["intended_not_seen"]:
        lines.append("Intended faults that did not fail: "
                     f"{', '.join(example['intended_not_seen'])}.")
    return lines


def rig_notes(rig: Mapping[str, Any]) -> list[str]:
    """Sentences printed above the tables: gate, normalisation, no overall ranking and
    environment disagreements."""
    gate = rig["execution_gate"]
    notes = [f"Normalisation {rig['normalization']}; per table, the median of each "
             "fixture's complete repetitions, then the unweighted mean over fixtures, "
             "rounded to 6 places; competition ranks within an environment cohort.",
             f"There is {rig['overall_ranking_reason']}."]
    if not gate["ready"]:
        notes.insert(0, "Execution gate closed: no ranks are published (blocking: "
                     f"{'; '.join(gate['blocking_items']) or 'none listed'}).")
    notes[:0] = example_lines(rig)
    notes.append(_integrity_note(rig))
    audio = rig.get("audio_specification")
    if audio and audio.get("blocks_ranks"):
        notes.insert(0, "Canonical audio " + (
            "fails the specification, so no ranks are published: " + "; ".join(
                f"{f['fixture_id']} ({f['audio_path']}): {', '.join(f['failed'])}"
                for f in audio["failures"]) if audio["failures"] else
            f"was not checked, so no ranks are published: {audio['problem']}") + ".")
    elif audio and audio.get("checked"):
        notes.append("Canonical audio meets the package's audio specification.")
    if rig.get("exclusions"):
        notes.append(f"{len(rig['exclusions'])} row(s) of the results CSV excluded from "
                     "scoring, listed below with their reasons.")
    for item in rig.get("environment_disagreements", []):
        notes.append(f"{item['app_id']}: declared {item['field']} {item['declared']!r} "
                     f"differs from the detected {item['detected']!r}; cohorts use the "
                     "detected value.")
    return notes
