"""Per-testcase JUnit properties from an item record."""

from __future__ import annotations

from ..methods.base import ItemRecord

__all__ = ["junit_properties"]


def junit_properties(record: ItemRecord) -> list[tuple[str, str]]:
    """``dictbench.*`` properties: status, verdict, score and one per rule."""
    verdict = {"passed": "pass", "failed": "fail"}.get(record["status"], record["status"])
    props = [("dictbench.status", record["status"]), ("dictbench.verdict", verdict)]
    if record.get("output_status"):
        props.append(("dictbench.output_status", record["output_status"]))
    if record.get("score") is not None:
        props.append(("dictbench.score", f"{record['score']:.6g}"))
    for rule, value in sorted(record.get("rules", {}).items()):
        score = value.get("score")
        props.append((f"dictbench.rule.{rule}", "unjudged" if score is None else str(score)))
    return props
