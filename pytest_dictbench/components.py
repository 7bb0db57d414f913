"""Per-component paired comparisons and relative spend and latency. Pure: no pytest, no I/O.

A suite's overall score is one number; each method builds it from parts (its
*components*): the keypoints method from names F1 and proposition recall, precision and
F-beta, the rubric from its four layers, the verbatim method from typed F1s and its
error rates, error rates from WER and CER. For a pair of products, every component is
compared on the cases both scored (the cases :func:`compare.compare_records` uses), with
a paired bootstrap interval of ``b - a``: both sides' figures are recomputed on the same
resampled cases.

A component is a ratio of sums over cases, ``sum(num) / sum(den)``, so each is the
figure the method's own summary reports, restricted to the shared cases: a mean over
cases has ``den`` 1 (0 where the figure does not apply, as names F1 on a case with no
name on either side); a pooled F1 has ``num = 2 TP``, ``den = 2 TP + FP + FN``; a pooled
error rate has ``num`` the edits and ``den`` the reference length. A case's ``num`` and
``den`` are the means over its final repetitions.

Beside the components: the relative change ``b / a - 1`` of the ASR cost per item (the
mean over the shared cases with a known cost on both sides) and of the median and 95th
percentile latency (over the shared cases timed on both sides, a case's latency the
median of its repetitions), each with its paired bootstrap interval.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import stats
from .compare import compare_products, correct_gaps, per_case
from .methods.base import ItemRecord
from .model import SCORED_STATUSES, Product, Suite
from .pricing import case_durations, item_asr_cost

__all__ = ["COMPONENTS", "Component", "component_comparisons", "gap_correction",
           "relative_changes", "suite_comparisons"]

Parts = Callable[[Mapping[str, Any]], "tuple[float, float] | None"]


@dataclass(frozen=True)
class Component:
    """One part of a method's score, as a ratio of sums over cases."""

    name: str
    label: str
    #: ``(num, den)`` of one item from its ``metrics``, or ``None`` (no figure yet).
    parts: Parts
    higher_is_better: bool = True
    #: A ratio's value when ``den`` sums to 0 (None: undefined then).
    empty: float | None = None
    #: ``fraction`` (0-1, 3 places) or ``score`` (0-100, 1 place).
    unit: str = "fraction"


def _mean_of(name: str, applies: str | None = None, scale: float = 1.0) -> Parts:
    def parts(m: Mapping[str, Any]) -> tuple[float, float] | None:
        if m.get(name) is None:
            return None
        if applies is not None and not m.get(applies):
            return (0.0, 0.0)
        return (scale * float(m[name]), 1.0)
    return parts


def _f1_of(kind: str) -> Parts:
    def parts(m: Mapping[str, Any]) -> tuple[float, float] | None:
        if f"{kind}_tp" not in m:
            return None
        tp, fp, fn = (float(m.get(f"{kind}_{k}", 0)) for k in ("tp", "fp", "fn"))
        return (2 * tp, 2 * tp + fp + fn)
    return parts


def _rate_of(edits: Sequence[str], reference: str) -> Parts:
    def parts(m: Mapping[str, Any]) -> tuple[float, float] | None:
        if reference not in m:
            return None
        return (sum(float(m.get(k, 0)) for k in edits), float(m[reference]))
    return parts


_VERBATIM_TYPES = ("filler", "sound", "cutoff", "repetition", "other")

#: The components compared for each built-in method, in the order reports list them.
COMPONENTS: Mapping[str, tuple[Component, ...]] = {
    "keypoints": (
        Component("names_f1", "names F1", _mean_of("names_f1", "names_applies")),
        Component("recall", "proposition recall", _mean_of("recall")),
        Component("precision", "proposition precision", _mean_of("precision")),
        Component("fbeta", "proposition F-beta", _mean_of("fbeta")),
    ),
    "rubric": tuple(
        Component(f"layer_{layer}", f"layer {layer} ({meaning})",
                  _mean_of(f"layer_{layer}", scale=50.0), unit="score")
        for layer, meaning in (("A", "meaning"), ("B", "disfluencies"), ("C", "structure"),
                               ("D", "notation"))),
    "verbatim": (
        Component("disfluency_f1", "disfluency F1", _f1_of("disfluency"), empty=1.0),
        *(Component(f"{t}_f1", f"{t} F1", _f1_of(t), empty=1.0) for t in _VERBATIM_TYPES),
        Component("vwer", "vWER", _rate_of(("vwer_edits",), "vwer_ref_words"), False),
        Component("iwer", "iWER", _rate_of(("iwer_edits",), "iwer_ref_words"), False),
    ),
    "error_rate": (
        Component("wer", "WER", _rate_of(("word_sub", "word_del", "word_ins"), "word_ref"),
                  False),
        Component("cer", "CER", _rate_of(("char_sub", "char_del", "char_ins"), "char_ref"),
                  False),
    ),
}


def _final(record: ItemRecord) -> bool:
    return record["status"] in SCORED_STATUSES and record["score"] is not None \
        and not record.get("provisional")


def _case_parts(records: Iterable[ItemRecord], component: Component
                ) -> dict[str, tuple[float, float]]:
    """Case id -> mean ``(num, den)`` over its final repetitions that have the figure."""
    found: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for record in records:
        if _final(record):
            parts = component.parts(record.get("metrics") or {})
            if parts is not None:
                found[str(record["case_id"])].append(parts)
    return {case: (statistics.fmean(p[0] for p in v), statistics.fmean(p[1] for p in v))
            for case, v in found.items()}


def _ratio(num: float, den: float, empty: float | None) -> float | None:
    return num / den if den else empty


def _moved(low: float, high: float, higher_is_better: bool) -> str:
    """``better`` / ``worse`` for b against a when the interval excludes 0, else ``-``."""
    if low > 0 or high < 0:
        return "better" if (low > 0) == higher_is_better else "worse"
    return "-"


def component_comparisons(a: Sequence[ItemRecord], b: Sequence[ItemRecord], method: str, *,
                          resamples: int, seed: int) -> list[dict[str, Any]]:
    """Each component of ``method`` for B against A on the cases both scored."""
    shared = per_case(a).keys() & per_case(b).keys()
    rows = []
    for component in COMPONENTS.get(method, ()):
        left, right = _case_parts(a, component), _case_parts(b, component)
        cases = sorted(shared & left.keys() & right.keys())
        if not cases:
            continue
        num_a, den_a = [left[c][0] for c in cases], [left[c][1] for c in cases]
        num_b, den_b = [right[c][0] for c in cases], [right[c][1] for c in cases]
        value_a = _ratio(sum(num_a), sum(den_a), component.empty)
        value_b = _ratio(sum(num_b), sum(den_b), component.empty)
        row: dict[str, Any] = {"component": component.name, "label": component.label,
                               "unit": component.unit,
                               "higher_is_better": component.higher_is_better,
                               "n": len(cases), "a": value_a, "b": value_b}
        if value_a is None or value_b is None:
            rows.append({**row, "difference": None, "interval": None, "moved": "-"})
            continue
        interval = stats.paired_ratio_difference(
            num_a, den_a, num_b, den_b, resamples=resamples, seed=seed,
            empty=float("nan") if component.empty is None else component.empty)
        rows.append({**row, "difference": value_b - value_a,
                     **_interval_fields(interval.low, interval.high,
                                        component.higher_is_better)})
    return rows


def _interval_fields(low: float, high: float, higher_is_better: bool) -> dict[str, Any]:
    """``interval`` and ``moved``; no interval when no resample defined it (NaN)."""
    if math.isnan(low) or math.isnan(high):
        return {"interval": None, "moved": "-"}
    return {"interval": {"low": low, "high": high},
            "moved": _moved(low, high, higher_is_better)}


def _statistic(values: Sequence[float], statistic: str) -> float:
    if statistic == "p95":
        return stats.percentile(values, 95)
    return statistics.fmean(values) if statistic == "mean" else statistics.median(values)


def _per_case_values(records: Iterable[ItemRecord], value: Callable[[ItemRecord], Any]
                     ) -> dict[str, float]:
    found: dict[str, list[float]] = defaultdict(list)
    for record in records:
        if _final(record):
            v = value(record)
            if v is not None:
                found[str(record["case_id"])].append(float(v))
    return {case: statistics.median(v) for case, v in found.items()}


#: Relative figures: (name, label, statistic, where the per-item value comes from).
_RELATIVE = (("cost_per_item", "ASR cost per item", "mean", "cost"),
             ("latency_median", "median latency", "median", "latency"),
             ("latency_p95", "p95 latency", "p95", "latency"))


def relative_changes(a: Sequence[ItemRecord], b: Sequence[ItemRecord],
                     cost_a: Callable[[ItemRecord], float | None],
                     cost_b: Callable[[ItemRecord], float | None], *, resamples: int,
                     seed: int) -> list[dict[str, Any]]:
    """ASR cost per item and median / p95 latency of B relative to A (``b / a - 1``), on
    the shared scored cases where both sides have the figure; lower is better for all."""
    shared = per_case(a).keys() & per_case(b).keys()
    sources = {"cost": (_per_case_values(a, cost_a), _per_case_values(b, cost_b)),
               "latency": (_per_case_values(a, lambda r: r.get("latency_ms")),
                           _per_case_values(b, lambda r: r.get("latency_ms")))}
    rows = []
    for source in ("cost", "latency"):
        figures = [f for f in _RELATIVE if f[3] == source]
        left, right = sources[source]
        cases = sorted(shared & left.keys() & right.keys())
        if not cases:
            continue
        xs, ys = [left[c] for c in cases], [right[c] for c in cases]
        intervals = stats.relative_changes(xs, ys, [f[2] for f in figures],
                                           resamples=resamples, seed=seed)
        for (name, label, statistic, _), interval in zip(figures, intervals, strict=True):
            change = None if math.isnan(interval.estimate) else interval.estimate
            rows.append({"figure": name, "label": label, "n": len(cases),
                         "a": _statistic(xs, statistic), "b": _statistic(ys, statistic),
                         "change": change,
                         **(_interval_fields(interval.low, interval.high, False)
                            if change is not None else {"interval": None, "moved": "-"})})
    return rows


def gap_correction(suite: Suite) -> str | None:
    """The correction a suite chose for its score gaps (``[comparisons] correction``),
    or ``None`` (the default: unadjusted intervals, Holm and Bonferroni McNemar p)."""
    chosen = (suite.manifest.get("comparisons") or {}).get("correction", "none")
    return None if chosen == "none" else str(chosen)


def suite_comparisons(suite: Suite, by_product: Mapping[str, Sequence[ItemRecord]],
                      products: Mapping[str, Product], *, resamples: int, seed: int
                      ) -> list[dict[str, Any]]:
    """Every pair's paired comparison (``compare.py``), corrected as the suite chose,
    with its components and its relative spend and latency."""
    comparisons = compare_products(by_product, resamples=resamples, seed=seed)
    correction = gap_correction(suite)
    if correction is not None:
        correct_gaps(comparisons, by_product, correction, resamples=resamples,
                     seed=seed)
    durations = case_durations(suite) if comparisons else {}

    def cost_of(name: str) -> Any:
        product = products.get(name)
        pricing = product.pricing if product else {}
        return lambda record: item_asr_cost(record, pricing, durations)

    for c in comparisons:
        a, b = by_product[c["a"]], by_product[c["b"]]
        parts = component_comparisons(a, b, suite.method, resamples=resamples,
                                      seed=seed)
        if parts:
            c["components"] = parts
        relative = relative_changes(a, b, cost_of(c["a"]), cost_of(c["b"]),
                                    resamples=resamples, seed=seed)
        if relative:
            c["relative"] = relative
    return comparisons
