"""What a selection's refine steps would ask, with nothing sent (``--capture-estimate``).

For each selected item of a pipeline product, each step is looked up in the refine
cache with the text it would rewrite: the recogniser's cached output for the first
step, the previous step's cached rewrite for the next. A hit is counted as cached; a
miss, or a text not known before the run (the recogniser has not captured the case
yet), as a request. The requests' cost is not estimated: a step's tokens are known only
after its call. The recogniser's captures are counted by the capture estimate, once per
case whatever the number of pipelines over it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...model import SKIP_STATUSES, Case
from .refiner import step_key

__all__ = ["RefineEstimate", "StepEstimate"]


@dataclass
class StepEstimate:
    """One step of one pipeline product."""

    product: str
    step: str
    model: str
    requests: int = 0
    cached: int = 0

    def line(self) -> str:
        return (f"  {self.product} [pipeline] step {self.step} ({self.model}): "
                f"{self.requests} refine requests, {self.cached} cached; cost not "
                "estimated (a step's tokens are known only after its call)")


class RefineEstimate:
    """Adds up the refine requests of a selection (see module doc)."""

    def __init__(self) -> None:
        self.steps: dict[tuple[str, int], StepEstimate] = {}

    def add(self, product: str, adapter: Any, case: Case, raw: Any) -> None:
        """Count one item of pipeline ``adapter``; ``raw`` is the recogniser's output
        known before the run (``None`` when it will be captured)."""
        if raw is not None and (raw.status in SKIP_STATUSES or raw.is_error):
            return  # passed through: no refine request
        text = raw.text if raw is not None else None
        values = adapter.template_values(case)
        for index, step in enumerate(adapter.steps):
            entry = self.steps.setdefault((product, index), StepEstimate(
                product, step.name, step.model))
            hit = adapter.refiner.cache.get(step_key(step, text, values)) \
                if text is not None else None
            if hit is None:
                entry.requests += 1
                text = None
            else:
                entry.cached += 1
                text = hit["text"]

    @property
    def requests(self) -> int:
        return sum(e.requests for e in self.steps.values())

    def lines(self) -> list[str]:
        return [entry.line() for _, entry in sorted(self.steps.items())]
