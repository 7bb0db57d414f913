"""The ``pipeline`` product kind: recognition, then language-model rewrites (see
``docs/refine.md``). Each name loads with its own module (the plugin reads products with
``sweep.load_products`` when it starts; the refine clients load only for a pipeline)."""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["PipelineAdapter", "RefineCache", "RefineStep", "Refiner", "StepResult",
           "expand_sweep", "fill_template", "load_products", "pipeline_adapter",
           "read_steps", "score_text", "step_key"]

_WHERE = {"PipelineAdapter": "adapter", "pipeline_adapter": "adapter", "score_text": "adapter",
          "RefineCache": "refiner", "Refiner": "refiner", "StepResult": "refiner",
          "step_key": "refiner", "RefineStep": "steps", "fill_template": "steps",
          "read_steps": "steps", "expand_sweep": "sweep", "load_products": "sweep"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_WHERE[name]}", __name__), name)
