"""An item's record from the settle verdict and the facts the driver gathered: its
status, its error message and whether the app must be relaunched before the next item
(see ``docs/desktop.md``, "One item, step by step")."""

from __future__ import annotations

from typing import Any

from .config import DesktopConfig
from .settle import Verdict

__all__ = ["item_answer"]


def item_answer(config: DesktopConfig, verdict: Verdict, facts: dict[str, Any],
                attempts: int) -> tuple[dict[str, Any], bool]:
    """(the item's record, relaunch the app before the next item)."""
    can_relaunch = config.relaunch != "never"
    relaunch_for = "isolate_items" if config.isolate_items else None
    answer, relaunch = _record(config, verdict, facts, attempts)
    if "late_text" in facts and can_relaunch:
        relaunch_for = "late text still arriving at late_max_s" if \
            facts.get("late_text_still_arriving") else "late text"
    if relaunch_for is not None:
        facts["relaunch_after"] = relaunch_for  # the next item gets a fresh app
    return answer, (relaunch or relaunch_for is not None) and can_relaunch


def _record(config: DesktopConfig, verdict: Verdict, facts: dict[str, Any], attempts: int
            ) -> tuple[dict[str, Any], bool]:
    rule = config.rule
    if facts.get("stray_text"):
        facts["last_text"] = verdict.text
        after = facts.get("stray_after")
        origin = (f"late text of the item before ({after['item']}, "
                  f"{after['after_its_decision_s']:g} s after it was decided)"
                  if after else "left over from an earlier dictation")
        return {"status": "invalid", "desktop": facts,
                "error": f"text arrived in the fresh document {-facts['first_text_s']:g} s "
                         f"before the first audible sample: {origin} (is the app still "
                         "typing?); not scored"}, True
    if "late_text" in facts:
        facts["last_text"] = facts["late_text"]
        still = (f"; still changing late_max_s ({config.late_max_s:g} s) after the "
                 "decision") if facts.get("late_text_still_arriving") else ""
        after = " (the app is relaunched before the next item)" \
            if config.relaunch != "never" else ""
        return {"status": "invalid", "desktop": facts,
                "error": f"the text changed {facts['late_text_s']:g} s after its final "
                         f"text, before the document had been quiet for late_guard_s "
                         f"({config.late_guard_s:g} s){still}: the app typed late (raise "
                         f"stable_s); not scored{after}"}, True
    if verdict.state == "settled":
        return {"text": verdict.text, "desktop": facts,
                "latency_s": facts["final_text_s"]}, False
    facts["last_text"] = verdict.text
    if verdict.state == "empty":
        error = (f"no text arrived within {rule.empty_wait_s:g} s after the audio, "
                 f"{attempts} time(s) (replay_if_empty = {attempts - 1}): does the "
                 f"hotkey {config.hotkey.spec!r} start the app's dictation?")
        return {"status": "failed", "error": error, "desktop": facts}, True
    if verdict.state == "timeout":
        return {"status": "failed", "desktop": facts,
                "error": f"the text was still changing {rule.max_wait_s:g} s after the "
                         f"audio ended (max_wait_s); its last text is kept as "
                         f"desktop.last_text"}, True
    taker = f" to {facts['focus_taken_by']}" if "focus_taken_by" in facts else \
        " (briefly: it came back)" if facts.get("focus_came_back") else ""
    return {"status": "invalid", "desktop": facts,
            "error": f"the document lost the keyboard focus "
                     f"{facts.get('focus_lost_s', 0):g} s after the first audible "
                     f"sample{taker}: not scored"}, True
