"""``pipeline``: a recogniser's output rewritten by one or more language models.

``[asr] product = "NAME"`` names the recogniser: any product of the same products folder
(cached or live, not another pipeline). Its output is captured once, by one adapter
shared by every pipeline of the run that names it, and kept in its own output file.
The ``[[refine]]`` steps (:mod:`.steps`) then rewrite it, each call cached
(:mod:`.refiner`).

Both texts are kept in the output's ``pipeline`` facts: ``raw`` (the recogniser's) and
``refined`` (after the last step), with each step's latency, cost and cache state. The
text *scored* is ``raw`` for the error-rate and verbatim methods unless the suite says
``score_text = "refined"``, and always ``refined`` for rubric and keypoints.

Failures: a recogniser output that is missing, skipped or an error passes through as it
is; a step that fails makes the item an ``error`` output that keeps the raw text; an
empty rewrite is an empty refined text, scored (and counted as empty).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from ...errors import DictbenchError, ProductError, SuiteError
from ...model import SKIP_STATUSES, Case, Output, Product, Suite
from ..base import Adapter, AdapterFactory, AdapterOptions, scrubbed_output
from ..settings import Settings
from .refiner import RefineCache, Refiner, StepResult
from .steps import read_steps
from .sweep import load_recogniser

__all__ = ["PipelineAdapter", "pipeline_adapter", "score_text"]

#: Methods that judge a rewrite: they always score the refined text.
REFINED_METHODS = frozenset({"rubric", "keypoints"})
_SETTINGS = {"asr", "refine", "concurrency", "refine_cache", "timeout_s", "max_attempts"}

#: One recogniser adapter per (run options, product file, suite): capture once.
_SHARED: dict[tuple[int, str, str, str], tuple[AdapterOptions, Adapter]] = {}

Key = tuple[str, int]


def score_text(suite: Suite) -> str:
    """``raw`` or ``refined``: the text of a pipeline output the suite's method scores."""
    asked = suite.manifest.get("score_text")
    where = suite.root / "suite.toml"
    if suite.method in REFINED_METHODS:
        if asked not in (None, "refined"):
            raise SuiteError(f"score_text = {asked!r}: method {suite.method!r} scores the "
                             "refined text of a pipeline", path=where)
        return "refined"
    if asked not in (None, "raw", "refined"):
        raise SuiteError(f"score_text must be 'raw' or 'refined', got {asked!r}", path=where)
    return str(asked or "raw")


def shared_asr(product: Product, suite: Suite, options: AdapterOptions,
               factory: AdapterFactory) -> Adapter:
    """The run's one adapter for recogniser ``product`` on ``suite``."""
    key = (id(options), str(product.path.resolve()), suite.id, str(suite.root))
    found = _SHARED.get(key)
    if found is None or found[0] is not options:
        found = (options, factory(product, suite, options))
        _SHARED[key] = found
    return found[1]


class PipelineAdapter:
    """Recogniser output, then the refine chain (see the module docstring)."""

    def __init__(self, product: Product, suite: Suite, options: AdapterOptions,
                 factories: Mapping[str, AdapterFactory], *, client_factory: Any = None,
                 retry: Any = None) -> None:
        settings = Settings(product, _SETTINGS)
        asr = settings.get("asr", dict, {})
        unknown = sorted(set(asr) - {"product"})
        if unknown or not isinstance(asr.get("product"), str):
            raise settings.error("[asr] needs product = \"NAME\" and nothing else"
                                 + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
        self.product, self.suite = product, suite
        self.steps = read_steps(settings.get("refine", list, None), product.path)
        self.asr_product = load_recogniser(product, asr["product"])
        if self.asr_product.adapter == "pipeline":
            raise settings.error(f"[asr] product {asr['product']!r} is itself a pipeline; "
                                 "name a recogniser")
        if self.asr_product.adapter not in factories:
            raise settings.error(f"[asr] product {asr['product']!r} has adapter "
                                 f"{self.asr_product.adapter!r}, which is not registered")
        self.score_text = score_text(suite)
        self.asr = shared_asr(self.asr_product, suite, options,
                              factories[self.asr_product.adapter])
        folder = Path(settings.get("refine_cache", str, ".refine-cache"))
        root = product.path.parent.resolve()
        cache = (root / folder).resolve()
        if folder.is_absolute() or not cache.is_relative_to(root):
            raise settings.error(f"[settings] refine_cache {str(folder)!r} leaves the "
                                 "products folder")
        concurrency = settings.get("concurrency", int, 4)
        if concurrency < 1:
            raise settings.error(f"[settings] concurrency must be >= 1, got {concurrency}")
        if retry is None:
            from ...judge.records import RetryPolicy

            retry = RetryPolicy(max_attempts=settings.get("max_attempts", int, 4))
        self.refiner = Refiner(self.steps, RefineCache(cache), factory=client_factory,
                               retry=retry, concurrency=concurrency,
                               timeout=settings.positive("timeout_s", 60.0))
        self._planned: list[tuple[Case, int]] = []
        self._done: dict[Key, Output | None] = {}

    def plan(self, items: Iterable[tuple[Case, int]]) -> None:
        """The (case, repetition) pairs the run will ask for: the first miss refines all
        of them together, ``concurrency`` calls at a time."""
        self._planned = list(items)

    def get(self, case: Case, repetition: int) -> Output | None:
        key = (case.id, repetition)
        if key not in self._done:
            batch = [(c, r) for c, r in self._planned if (c.id, r) not in self._done]
            if not any((c.id, r) == key for c, r in batch):
                batch = [(case, repetition)]
            self._resolve(batch, key)
        return self._done.pop(key)

    def template_values(self, case: Case) -> dict[str, str]:
        """The template values of ``case`` besides ``{text}``."""
        return {"context": str(case.get("context", "") or ""), "genre": str(case.genre or ""),
                "locale": str(case.get("locale") or self.suite.locale)}

    # -- private -------------------------------------------------------------------------

    def _resolve(self, batch: list[tuple[Case, int]], wanted: Key) -> None:
        jobs: list[tuple[Key, Output, dict[str, str], Case]] = []
        for case, repetition in batch:
            key = (case.id, repetition)
            try:
                # scrubbed before it is filled into a prompt or kept (flagged if changed)
                raw = scrubbed_output(self.asr.get(case, repetition))
            except DictbenchError:
                if key == wanted:
                    raise
                continue  # its own item asks again and reports the error
            if raw is None or raw.status in SKIP_STATUSES or raw.is_error:
                self._done[key] = raw
                continue
            jobs.append((key, raw, self.template_values(case), case))
        results = self.refiner.run([(raw.text, values) for _, raw, values, _ in jobs])
        for (key, raw, _, case), steps in zip(jobs, results, strict=True):
            self._done[key] = self._output(raw, steps, case)

    def _asr_cost(self, raw: Output, case: Case) -> Decimal | None:
        """What the recogniser's output cost: a cloud capture's own cost, else its list
        price (``[pricing] usd_per_audio_minute``) times the audio length; else None."""
        provider = raw.meta.get("provider")
        if isinstance(provider, Mapping) and provider.get("cost_usd") is not None:
            return Decimal(str(provider["cost_usd"]))
        price = self.asr_product.pricing.get("usd_per_audio_minute")
        seconds = raw.meta.get("audio_duration_s") or case.get("duration_s")
        if price is None or not isinstance(seconds, int | float) or isinstance(seconds, bool):
            return None
        return Decimal(str(price)) * Decimal(str(seconds)) / 60

    def _output(self, raw: Output, steps: list[StepResult], case: Case) -> Output:
        failed = next((s for s in steps if s.error is not None), None)
        refined = steps[-1].text if failed is None else None
        latencies = [s.latency_ms for s in steps if s.latency_ms is not None]
        refine_cost = sum((Decimal(str(s.cost_usd)) for s in steps), Decimal(0))
        asr_cost = self._asr_cost(raw, case)
        facts = {"asr": self.asr_product.name, "raw": raw.text, "refined": refined,
                 "scored": self.score_text, "steps": [s.to_json() for s in steps],
                 "asr_latency_ms": raw.latency_ms,
                 "refine_latency_ms": round(sum(latencies), 3) if latencies else None,
                 "refine_cost_usd": float(refine_cost),
                 "refine_calls": sum(s.calls for s in steps),
                 "asr_cost_usd": float(asr_cost) if asr_cost is not None else None,
                 "total_cost_usd": float(asr_cost + refine_cost)
                 if asr_cost is not None else None}
        meta = {**raw.meta, "pipeline": facts}
        origin = f"pipeline {self.product.name!r} over {raw.origin}"
        if failed is not None:
            return Output(raw.case_id, raw.text, raw.repetition, status="error",
                          error=f"refine step {failed.step!r} (model {failed.model}) "
                                f"failed: {failed.error}",
                          meta=meta, origin=origin)
        assert refined is not None
        latency = None
        if raw.latency_ms is not None and len(latencies) == len(steps):
            latency = round(raw.latency_ms + sum(latencies), 3)
        text = refined if self.score_text == "refined" else raw.text
        return Output(raw.case_id, text, raw.repetition, latency_ms=latency, meta=meta,
                      origin=origin)


def pipeline_adapter(product: Product, suite: Suite, options: AdapterOptions
                     ) -> PipelineAdapter:
    """Adapter factory for ``adapter = "pipeline"``: the recogniser's kind is looked up
    among every registered adapter kind (``pytest_dictbench_adapters``)."""
    if options.hook is None:
        raise ProductError("the pipeline adapter needs pytest's hook relay "
                           "(AdapterOptions.hook) to find its recogniser's adapter",
                           path=product.path)
    factories: dict[str, AdapterFactory] = {}
    for mapping in options.hook.pytest_dictbench_adapters():
        factories.update(mapping)
    return PipelineAdapter(product, suite, options, factories)
