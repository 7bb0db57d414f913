"""JUnit: per-testcase properties from an item record, and results of the run's end."""

from __future__ import annotations

from typing import Literal

import pytest

from ..methods.base import ItemRecord
from ..report.files import natural_key
from ..report.record import record_verdict

__all__ = ["junit_properties", "session_result"]

#: The per-item streaming figures given as properties (docs/streaming.md).
STREAMING_PROPERTIES = ("ttfp_audible_ms", "ttfp_onset_ms", "ttff_ms", "final_latency_ms",
                        "partial_lag_mean_ms", "flicker_count", "first_form_share")


def junit_properties(record: ItemRecord) -> list[tuple[str, str]]:
    """``dictbench.*`` properties: status, verdict (``pass``, ``fail``, ``provisional``
    for a score still waiting for a verdict, or the status), the provisional count,
    score, a streaming capture's timings and one per rule."""
    verdict = record_verdict(record["status"], record.get("provisional") or 0)
    props = [("dictbench.status", record["status"]), ("dictbench.verdict", verdict)]
    if record.get("provisional"):
        props.append(("dictbench.provisional", str(record["provisional"])))
    if record.get("output_status"):
        props.append(("dictbench.output_status", record["output_status"]))
    if record.get("score") is not None:
        props.append(("dictbench.score", f"{record['score']:.6g}"))
    streaming = record.get("streaming") or {}
    for name in STREAMING_PROPERTIES:  # a streaming capture's measured timings
        if isinstance(streaming.get(name), (int, float)):
            props.append((f"dictbench.streaming.{name}", f"{streaming[name]:.6g}"))
    for rule, value in sorted(record.get("rules", {}).items(),
                              key=lambda kv: natural_key(kv[0])):  # rubric order
        score = value.get("score")
        props.append((f"dictbench.rule.{rule}", "unjudged" if score is None else str(score)))
    return props


def session_result(nodeid: str, path: str, title: str, failure: str | None
                   ) -> list[pytest.TestReport]:
    """The setup, call and teardown reports of a result found at the end of the run (a
    gate verdict, a report-writing problem), so that it is a test result of its own: a
    JUnit testcase, a line in pytest's summary and its final counts."""

    def report(when: Literal["setup", "call", "teardown"], failed: bool) -> pytest.TestReport:
        return pytest.TestReport(nodeid, (path, None, title), {}, "failed" if failed
                                 else "passed", failure if failed else None, when)

    return [report("setup", False), report("call", failure is not None),
            report("teardown", False)]
