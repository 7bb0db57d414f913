"""Run-to-run variation: how much one product's results move between two measurements of
the same items, and whether a difference between two products is larger than that.
Item records in, JSON-ready figures out (no pytest); :func:`measure_variation` reads
the records of stored runs from a :class:`~pytest_dictbench.store.Store`, for ``dictbench
variation`` and the reports' ``history.md`` alike.

Items pair by case id and repetition. An output is *identical* to its pair when the two
texts are equal character for character once line breaks are taken out (the rubric
methodology counted 102 of 131 outputs identical between two settings that way); a
private suite keeps no text, so its outputs are compared by their digests (line breaks
then count). Pass/fail *flips* and the paired score difference use the comparison the
reports use (``compare.compare_records``: a case's median over its repetitions, its
seeded bootstrap interval).
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import stats
from .compare import compare_records, compared_pairs, comparison_scope, per_case
from .methods.base import ItemRecord
from .store.interface import CorruptRunError, Store, StoreError

__all__ = ["RunSelection", "beyond_variation", "flips",
           "identical_outputs", "line_free", "measure_variation", "pair_runs",
           "score_spread", "select_runs", "shared_pairs"]

_LINE_BREAKS = re.compile(r"\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]")


def line_free(text: str) -> str:
    """``text`` without its line breaks."""
    return _LINE_BREAKS.sub("", text)


def _key(record: ItemRecord) -> tuple[str, int]:
    return str(record["case_id"]), int(record.get("repetition") or 1)


def identical_outputs(a: Sequence[ItemRecord], b: Sequence[ItemRecord]) -> dict[str, Any]:
    """``{"items": outputs paired, "identical": how many are the same, "by": "text" or
    "digest", "different": [case ids]}``; an item without output on either side is not
    paired."""
    left = {_key(r): r for r in a}
    pairs = [(left[_key(r)], r) for r in b if _key(r) in left]
    by_text = all(x.get("text") is not None and y.get("text") is not None
                  for x, y in pairs if x.get("text_sha256") and y.get("text_sha256"))
    same, different, items = 0, [], 0
    for x, y in pairs:
        if by_text:
            if x.get("text") is None or y.get("text") is None:
                continue
            equal = line_free(x["text"]) == line_free(y["text"])
        else:
            if not x.get("text_sha256") or not y.get("text_sha256"):
                continue
            equal = x["text_sha256"] == y["text_sha256"]
        items += 1
        same += equal
        if not equal:
            different.append(_key(y)[0])
    return {"items": items, "identical": same, "by": "text" if by_text else "digest",
            "different": sorted(set(different))}


def flips(a: Sequence[ItemRecord], b: Sequence[ItemRecord]) -> dict[str, list[str]]:
    """Cases scored on both sides whose pass/fail changed from ``a`` to ``b``."""
    left, right = per_case(a), per_case(b)
    shared = sorted(left.keys() & right.keys())
    return {"passed_to_failed": [c for c in shared if not left[c][1] and right[c][1]],
            "failed_to_passed": [c for c in shared if left[c][1] and not right[c][1]]}


def shared_pairs(left: Any, right: Any) -> list[tuple[str, str]]:
    """The (suite, product) pairs two stored runs both measured, in ``left``'s order."""
    return [(s, p) for s in left.suites if s in right.suites
            for p in left.products if p in right.products]


def pair_runs(a: Sequence[ItemRecord], b: Sequence[ItemRecord], *, resamples: int,
              seed: int, shared: stats.SharedDraws | None = None) -> dict[str, Any]:
    """Everything that moved between two runs (or two products) on the same items:
    identical outputs, flips, and the paired comparison of ``b`` against ``a`` (None
    when no case was scored on both sides; ``shared``: draws shared by many comparisons,
    the same figures)."""
    return {"identical": identical_outputs(a, b), "flips": flips(a, b),
            "comparison": compare_records(a, b, resamples=resamples, seed=seed,
                                          shared=shared)}


def score_spread(runs: Sequence[Sequence[ItemRecord]]) -> dict[str, Any]:
    """The spread of scores over repeated runs of one product: per case (its median
    score in each run), the range and the standard deviation over the runs that scored
    it; per suite, the mean score of each run over the cases every run scored."""
    cases = [per_case(run) for run in runs]
    shared = sorted(set.intersection(*(set(c) for c in cases))) if cases else []
    per_item = {}
    for case in sorted(set().union(*(set(c) for c in cases))) if cases else []:
        scores = [c[case][0] for c in cases if case in c]
        per_item[case] = {"runs": len(scores), "range": max(scores) - min(scores),
                          "sd": statistics.stdev(scores) if len(scores) > 1 else 0.0}
    means = [statistics.fmean(c[case][0] for case in shared) for c in cases] if shared else []
    varying = {case: v for case, v in per_item.items() if v["range"] > 0}
    widest = max(varying.items(), key=lambda kv: (kv[1]["range"], kv[0]), default=None)
    return {"runs": len(runs), "shared_cases": len(shared), "suite_scores": means,
            "suite_range": max(means) - min(means) if means else None,
            "suite_sd": statistics.stdev(means) if len(means) > 1 else None,
            "items_varying": len(varying), "items": len(per_item),
            "widest": {"case": widest[0], **widest[1]} if widest else None,
            "per_item": per_item}


def beyond_variation(between: Mapping[str, Any] | None,
                     within: Sequence[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """Whether a difference between two products (``between``: their paired
    comparison) is larger than what either varies between its own runs (``within``:
    paired comparisons of each product's runs): its interval must lie beyond the
    largest end of every within-product interval, on one side of 0."""
    known = [w for w in within if w]
    if between is None or not known:
        return None
    reach = max(max(abs(w["interval"]["low"]), abs(w["interval"]["high"])) for w in known)
    low, high = between["interval"]["low"], between["interval"]["high"]
    beyond = low > reach or high < -reach
    return {"difference": between["mean_difference"], "interval": [low, high],
            "own_variation": reach, "beyond": bool(beyond) and math.isfinite(reach)}


@dataclass(frozen=True)
class RunSelection:
    """The complete stored runs of a product on a suite version that a variation covers."""

    suite_version: str
    #: the newest ``last`` complete runs (every one without a window), oldest first
    runs: list[str]
    #: the older complete runs the window left out, oldest first
    older: list[str]

    def window(self, last: int | None) -> dict[str, Any]:
        """The window as ``history.json`` and ``dictbench variation --json`` give it:
        ``runs`` (``last``), ``complete_runs``, how many it ``left_out`` and the oldest
        and newest of those."""
        older = self.older
        return {"runs": last, "complete_runs": len(self.runs) + len(older),
                "left_out": len(older), "left_out_oldest": older[0] if older else None,
                "left_out_newest": older[-1] if older else None}


def select_runs(store: Store, suite: str, product: str, *, version: str | None = None,
                last: int | None = None) -> RunSelection:
    """The complete stored runs of ``product`` on ``suite`` version ``version`` (default:
    the suite version of its newest run), oldest first, the newest ``last`` of them when
    given (the reports' history window; ``dictbench variation`` takes every one). A run
    stopped early is left out (its unrun items would count as changes). Reads the runs'
    summaries only (one row per run), never their items."""
    if last is not None and last < 1:
        raise ValueError(f"a window of runs holds at least 1 run, not {last}")
    summaries = store.summaries(suite, product, suite_version=version)
    if not summaries:
        on = f" {version}" if version is not None else ""
        raise StoreError(f"no stored run of {product} on {suite}{on}")
    version = version if version is not None else summaries[-1].suite_version
    found = [s.run_id for s in summaries if s.suite_version == version and s.complete]
    if not found:
        raise StoreError(f"no complete stored run of {product} on {suite} {version}")
    cut = 0 if last is None else max(0, len(found) - last)
    return RunSelection(suite_version=version, runs=found[cut:], older=found[:cut])


def measure_variation(store: Store, suite: str, runs: Mapping[str, Sequence[str]], *,
                      resamples: int, seed: int, leave_out_corrupt: bool = False
                      ) -> dict[str, Any]:
    """Run-to-run variation on ``suite`` of each product over its runs (``runs``:
    ``{product: run ids, oldest first}``): each run against the one before
    (:func:`pair_runs`) and the score spread (:func:`score_spread`); then products'
    newest runs against each other and whether that difference is beyond either's own
    run-to-run variation (:func:`beyond_variation`): every two products, or above
    ``compare.ALL_PAIRS_UP_TO`` products each against the best (the reports' rule,
    ``compare.compared_pairs``; ``comparison_scope`` says which). What ``dictbench
    variation`` prints and the reports' ``history.md`` shows.

    A run the store refuses (:class:`CorruptRunError`) raises, or with
    ``leave_out_corrupt`` is left out and named in the product's ``refused`` with the
    store's reason (its neighbours then pair with each other)."""
    # the draws (and numpy) only when a product has runs to pair: a history whose runs
    # are all too large to measure asks for none
    opts = {"resamples": resamples, "seed": seed,
            "shared": stats.SharedDraws(resamples, seed) if runs else None}
    products: dict[str, Any] = {}
    within: dict[str, list[Any]] = {}
    latest: dict[str, Sequence[ItemRecord]] = {}
    for product, asked in runs.items():
        ids, records, refused = [], [], []
        for run_id in asked:
            try:
                records.append(store.items(run_id, suite=suite, product=product))
            except CorruptRunError as exc:
                if not leave_out_corrupt:
                    raise
                refused.append({"run_id": exc.run_id, "reason": exc.reason})
                continue
            ids.append(run_id)
        pairs = [{"a": ids[i], "b": ids[i + 1], **pair_runs(records[i], records[i + 1],
                                                            **opts)}
                 for i in range(len(ids) - 1)]
        within[product] = [p["comparison"] for p in pairs]
        if records:
            latest[product] = records[-1]
        products[product] = {"runs": ids, "pairs": pairs, "spread": score_spread(records),
                             "refused": refused}
    scope = comparison_scope(latest)
    between = []
    for a, b in compared_pairs(latest, scope):
        moved = pair_runs(latest[a], latest[b], **opts)
        between.append({"a": a, "b": b, **moved, "beyond_own_variation": beyond_variation(
            moved["comparison"], within[a] + within[b])})
    return {"suite": suite, "products": products, "between": between,
            "comparison_scope": scope}
