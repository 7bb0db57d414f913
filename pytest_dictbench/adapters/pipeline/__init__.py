"""The ``pipeline`` product kind: recognition, then language-model rewrites (see
``docs/refine.md``)."""

from __future__ import annotations

from .adapter import PipelineAdapter, pipeline_adapter, score_text
from .refiner import RefineCache, Refiner, StepResult, step_key
from .steps import RefineStep, fill_template, read_steps
from .sweep import expand_sweep, load_products

__all__ = ["PipelineAdapter", "RefineCache", "RefineStep", "Refiner", "StepResult",
           "expand_sweep", "fill_template", "load_products", "pipeline_adapter",
           "read_steps", "score_text", "step_key"]
