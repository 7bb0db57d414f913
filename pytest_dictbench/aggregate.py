"""Turning item records into per-suite, per-product results. Pure: no pytest, no I/O."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from . import stats
from .adapters.pipeline.summary import pipeline_summary
from .adapters.streaming.summary import paired_batch_product, streaming_summary
from .common_set import common_set
from .compare import adjust_pvalues, comparison_scope
from .components import gap_correction, suite_comparisons
from .judge.report import judges_table
from .methods.base import ItemRecord, Method
from .model import SCORED_STATUSES, Product, Suite
from .pricing import case_durations, cost_summary
from .ranking import RankingRules, provisional_counts, rank_products
from .rig.offline import claim_status
from .stats import DEFAULT_RESAMPLES, DEFAULT_SEED, latency_summary
from .suites import suite_seed

__all__ = ["REPORT_SCHEMA_VERSION", "IntervalSource", "StatsOptions", "case_scores",
           "record_sort_key", "summarize"]

#: Version of the ``dictbench.json`` layout.
REPORT_SCHEMA_VERSION = 1



class IntervalSource(Protocol):
    """Somewhere else that draws the bootstrap interval of a mean with
    ``stats.mean_ci`` itself (a helper process), while this one goes on."""

    def prefetch(self, values: Sequence[float], resamples: int, seed: int) -> None:
        """Start drawing the interval of ``values``; :meth:`interval` asks for it."""

    def interval(self, values: Sequence[float], resamples: int, seed: int
                 ) -> tuple[float, float] | None:
        """``(low, high)`` as ``stats.mean_ci`` gives them, or ``None`` when not drawn
        there (the caller draws it then)."""


@dataclass(frozen=True)
class StatsOptions:
    """Bootstrap settings of a run's intervals and comparisons."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    #: The seed was given on the command line: it wins over a suite's own
    #: ``[seeds] bootstrap`` (which wins over the ini value and the default).
    explicit_seed: bool = False
    #: Where the products' score intervals are drawn while the rest is summarized; the
    #: same numbers either way.
    intervals: IntervalSource | None = field(default=None, compare=False)

    def for_suite(self, suite: Suite) -> StatsOptions:
        """The options a suite's statistics use (its own bootstrap seed, if it sets one
        and the command line does not)."""
        own = suite_seed(suite, "bootstrap")
        if own is None or self.explicit_seed:
            return self
        return replace(self, seed=own)


def record_sort_key(record: ItemRecord) -> tuple[str, str, str, int, str]:
    """Records sort by suite, product, case id, repetition (and a rig row's test
    profile, the one field that tells two rows of a cell apart): every report's order."""
    return (record["suite"], record["product"], record["case_id"], record["repetition"],
            str((record.get("rig") or {}).get("test_profile", "")))


def case_scores(records: Iterable[ItemRecord]) -> list[float]:
    """Per case (in case id order), the median score over its scored repetitions.

    Errors and untested items carry no score and are left out (never counted as 0).
    """
    by_case: dict[str, list[float]] = defaultdict(list)
    for record in records:
        if record["status"] in SCORED_STATUSES and record["score"] is not None:
            by_case[record["case_id"]].append(float(record["score"]))
    return [stats.median(v) for _, v in sorted(by_case.items())]


def _score(records: Sequence[ItemRecord], options: StatsOptions) -> dict[str, Any]:
    """Suite score (mean over cases of the median over repetitions) and its interval."""
    per_case = case_scores(records)
    if not per_case:
        return {"score": None, "score_ci": None}
    if options.intervals is not None:  # drawn there while the rest is summarized
        options.intervals.prefetch(per_case, options.resamples, options.seed)
    return {"score": statistics.fmean(per_case),
            "score_ci": _OwedInterval(per_case, options.resamples, options.seed)}


@dataclass(frozen=True)
class _OwedInterval:
    """A score interval, drawn once the rest of the report is summarized (nothing in
    the summary reads it before)."""

    values: list[float]
    resamples: int
    seed: int

    def drawn(self, source: IntervalSource | None) -> dict[str, float]:
        low_high = source.interval(self.values, self.resamples, self.seed) if source \
            else None
        if low_high is None:
            interval = stats.mean_ci(self.values, resamples=self.resamples, seed=self.seed)
            low_high = (interval.low, interval.high)
        return {"low": low_high[0], "high": low_high[1]}


def _product_entry(records: Sequence[ItemRecord], suite: Suite, product: Product | None,
                   method: Method, options: StatsOptions, cases: int) -> dict[str, Any]:
    statuses = [r["status"] for r in records]
    scored = [r for r in records if r["status"] in SCORED_STATUSES]
    judging = judges_table(records)
    entry = {
        "product": records[0]["product"],
        "version": product.version if product else None,
        "adapter": product.adapter if product else None,
        **_environment(dict(product.environment) if product else {}, records),
        "items": len(records),
        # a provisional item is no pass yet (skipped in the test results, counted in
        # "provisional")
        "passed": sum(1 for r in records if r["status"] == "passed"
                      and not r.get("provisional")),
        "failed": statuses.count("failed"),
        "errors": statuses.count("error"),
        "not_tested": statuses.count("not_tested"),
        "output_statuses": dict(sorted(Counter(
            r.get("output_status") or "none" for r in records).items())),
        "empty": sum(1 for r in scored if r.get("empty")),
        "cases": cases,
        "cases_scored": len({r["case_id"] for r in scored}),
        "canary_leaks": sorted({r["case_id"] for r in records if r.get("canary_leak")}),
        **_redacted(records),
        # a method without an overall ranking has no overall score either
        **(_score(records, options) if getattr(method, "overall_ranking", True)
           else {"score": None, "score_ci": None}),
        "tables": method.aggregate(scored, suite) if scored else {},
        "judging": judging,
        "pending_adjudications": sum(len(r.get("pending", ())) for r in records),
        "provisional": _provisional(records),
        "latency": latency_summary([r["latency_ms"] for r in scored
                                    if r.get("latency_ms") is not None]),
        "speed": _speed(scored),
        "processing_path": _processing_path(product, scored),
    }
    if product is not None and product.claims:  # shown apart, never ranked
        entry["claims"] = [dict(claim) for claim in product.claims]
    streaming = streaming_summary(records, suite, method, options.resamples, options.seed)
    if streaming is not None:  # a streaming product: its timings, pacing, batch pairing
        entry["streaming"] = streaming
    versions = Counter(r["provider_model"] for r in records if r.get("provider_model"))
    if versions:  # the model versions a cloud product ran on, with counts (PV27)
        entry["model_versions"] = dict(sorted(versions.items()))
    if any(r.get("provider_retries") or r.get("provider_holds") for r in records):
        # retries and waits for another request's rate limit, over the captures (PV12)
        entry["provider_retries"] = {k: sum(r.get(f"provider_{k}", 0) for r in records)
                                     for k in ("retries", "holds")}
    refine = pipeline_summary(records)
    if refine is not None:  # a pipeline product: its refine steps' latency and cost
        entry["pipeline"] = refine
    if getattr(method, "reports_cost", False) or any("asr_cost_usd" in r for r in records):
        # journal suites always; any suite when the captures know their cost (cloud APIs)
        entry["cost"] = cost_summary(records, suite, product,
                                     judging["cost_usd"] if judging else 0.0,
                                     judging.get("cost_missing", ()) if judging else ())
    return entry


#: Run facts a method may name in ``leaderboard_columns`` beside its summary figures.
def _facts(entry: Mapping[str, Any]) -> dict[str, Any]:
    latency = entry.get("latency") or {}
    cost = entry.get("cost") or {}
    return {"latency_median_ms": latency.get("median"), "latency_p95_ms": latency.get("p95"),
            "mean_rtf": (entry.get("speed") or {}).get("mean_rtf"),
            **{k: cost.get(k) for k in ("asr_cost_usd", "judge_cost_usd", "total_cost_usd",
                                        "usd_per_audio_hour")}}


def _environment(declared: dict[str, Any], records: Sequence[ItemRecord]) -> dict[str, Any]:
    """The product's environment for cohorts: what its captures recorded (detected on the
    machine) over what its product file declares; disagreements are listed. A field
    recorded with several values keeps them all (`` | ``-joined), so it shares no cohort."""
    seen: dict[str, set[str]] = defaultdict(set)
    for record in records:
        for key, value in (record.get("environment") or {}).items():
            seen[key].add(str(value))
    recorded = {k: " | ".join(sorted(v)) for k, v in sorted(seen.items())}
    entry: dict[str, Any] = {"environment": {**declared, **recorded}}
    if recorded:
        entry["environment_disagreements"] = [
            {"field": k, "declared": str(declared[k]), "recorded": recorded[k]}
            for k in sorted(declared) if k in recorded and str(declared[k]) != recorded[k]]
    return entry


def _provisional(records: Sequence[ItemRecord]) -> dict[str, int] | None:
    """``{"unjudged": n, "items": m}`` when the score is provisional, else ``None``."""
    waiting, items = provisional_counts(records)
    return {"unjudged": waiting, "items": items} if waiting else None


def _processing_path(product: Product | None, scored: Sequence[ItemRecord]
                     ) -> dict[str, Any] | None:
    """The product's processing-path claim against its offline audits; None if neither.
    The claim is its product file's, or else that of its rig rows (several paths, as in
    two profiles, are `` | ``-joined: only a sole ``on_device`` claim can be verified)."""
    claimed = product.environment.get("processing_path") if product else None
    if product is None:
        paths = sorted({str(r["rig"].get("processing_path")) for r in scored if "rig" in r})
        claimed = " | ".join(paths) or None
    audits = [r.get("offline_audit") for r in scored]
    if claimed is None and not any(audits):
        return None
    return claim_status(claimed, audits)


def _speed(scored: Sequence[ItemRecord]) -> dict[str, Any] | None:
    """Mean real-time factor and RTFx (audio seconds / processing seconds) of captures."""
    timed = [r for r in scored if r.get("rtf") is not None and r.get("audio_duration_s")
             and r.get("latency_ms") is not None]
    if not timed:
        return None
    audio = sum(r["audio_duration_s"] for r in timed)
    processing = sum(r["latency_ms"] for r in timed) / 1000.0
    return {"items": len(timed), "mean_rtf": statistics.fmean(r["rtf"] for r in timed),
            "rtfx": audio / processing if processing else None, "audio_seconds": audio}


def _ranked_value(entry: Mapping[str, Any], metric: str) -> Any:
    if metric == "score":
        return entry["score"]
    return entry["tables"].get("summary", {}).get(metric)


def _leaderboard(entries: Sequence[Mapping[str, Any]], method: Method, headline: str,
                 higher_is_better: bool) -> list[dict[str, Any]]:
    """Products sorted by the headline metric; the method's ``leaderboard_columns`` (by
    default every numeric summary figure) are the columns."""
    columns = getattr(method, "leaderboard_columns", None)
    rows = []
    for entry in entries:
        summary = entry["tables"].get("summary", {})
        if columns is not None:
            summary = {**_facts(entry), **summary}
        row = {"product": entry["product"], "score": entry["score"], "rank": entry["rank"]}
        row.update({k: v for k, v in summary.items()
                    if (k in columns if columns is not None else
                        isinstance(v, (int, float)) and not isinstance(v, bool))})
        rows.append(row)
    sign = -1 if higher_is_better else 1

    def key(row: Mapping[str, Any]) -> tuple[bool, float, str]:
        value = _ranked_value({"score": row["score"], "tables": {"summary": row}}, headline)
        return (value is None, sign * value if value is not None else 0.0, row["product"])

    return sorted(rows, key=key)


def _suite_entry(suite: Suite, method: Method, by_product: Mapping[str, list[ItemRecord]],
                 products: Mapping[str, Product], missing_canary: list[str],
                 options: StatsOptions) -> dict[str, Any]:
    headline = getattr(method, "headline", "score")
    rules = RankingRules.from_manifest(
        suite.manifest, metric=headline, higher_is_better=getattr(method, "higher_is_better",
                                                                   True),
        where=suite.root / "suite.toml")
    described = getattr(method, "uses_product_files", True)
    common = common_set(suite, {name: products.get(name) if described else None
                                for name in by_product}, list(case_durations(suite)))
    cases = len(suite.cases)
    if common is not None:  # compare and rank on the cases every product could take
        by_product = {name: [r for r in recs if r["case_id"] in common.cases] or recs
                      for name, recs in by_product.items()}
        cases = len(common.cases)
    entries = [_product_entry(recs, suite, products.get(name) if described else None, method,
                              options, cases) for name, recs in sorted(by_product.items())]
    repetitions = max(r["repetition"] for recs in by_product.values() for r in recs)
    if getattr(method, "overall_ranking", True):
        ranks = rank_products(
            [{"product": e["product"], "environment": e["environment"],
              "value": _ranked_value(e, rules.metric)} for e in entries],
            by_product, cases=cases,
            repetitions=max(repetitions, suite.repetitions), rules=rules)
    else:  # the method ranks per metric table (its suite_tables), never overall
        ranks = {e["product"]: {"rank": None, "reason": method.no_overall_reason,
                                "cohort": {}} for e in entries}
    for entry in entries:
        entry.update(ranks[entry["product"]])
        stream = entry.get("streaming") or {}
        if stream.get("batch_product") in by_product and "batch" not in stream:
            stream["batch"] = paired_batch_product(  # a streaming product and its batch twin
                by_product[entry["product"]], by_product[stream["batch_product"]],
                stream["batch_product"], options.resamples, options.seed)
    leaderboard = _leaderboard(entries, method, headline, getattr(
        method, "higher_is_better", True)) if getattr(method, "overall_ranking", True) else []
    return {
        "id": suite.id,
        "version": suite.version,
        "title": suite.title,
        "method": suite.method,
        "headline": headline,
        "locale": suite.locale,
        "repetitions": repetitions,
        "canary": {"status": "missing" if missing_canary else "ok",
                   "missing_in": missing_canary},
        "ranking": {"metric": rules.metric, "higher_is_better": rules.higher_is_better,
                    "decimals": rules.places, "minimum_products": rules.minimum_products,
                    "same_environment": list(rules.same_environment),
                    "execution_gate": {"ready": rules.gate_ready,
                                       "blocking_items": list(rules.blocking_items)}},
        "products": entries,
        "leaderboard": leaderboard,
        "comparisons": suite_comparisons(suite, by_product, products,
                                         resamples=options.resamples, seed=options.seed)
        if getattr(method, "overall_ranking", True) else [],
        **({"correction": {"method": gap_correction(suite), "family_alpha": 0.05}}
           if gap_correction(suite) else {}),
        **({"common_set": common.as_dict()} if common is not None else {}),
        **({"comparison_scope": comparison_scope(by_product)}
           if getattr(method, "overall_ranking", True) else {}),
        **({"rig": method.suite_tables([r for recs in by_product.values() for r in recs],
                                       suite)} if hasattr(method, "suite_tables") else {}),
    }


def summarize(
    records: Iterable[ItemRecord],
    suites: Mapping[str, Suite],
    products: Mapping[str, Product],
    methods: Mapping[str, Method],
    canary: Mapping[str, Mapping[str, bool]],
    options: StatsOptions = StatsOptions(),
    *,
    ordered: bool = False,
) -> dict[str, Any]:
    """Build the body of ``dictbench.json`` from every item record of a run.

    :param canary: per suite id, each data file and whether it carries the canary.
    :param ordered: the records are in report order already (:func:`record_sort_key`).
    """
    grouped: dict[str, dict[str, list[ItemRecord]]] = defaultdict(lambda: defaultdict(list))
    for record in records if ordered else sorted(records, key=record_sort_key):
        grouped[record["suite"]][record["product"]].append(record)
    entries = []
    for suite_id in sorted(grouped):
        suite = suites[suite_id]
        missing = sorted(f for f, ok in canary.get(suite_id, {}).items() if not ok)
        own = options.for_suite(suite)
        entry = _suite_entry(suite, methods[suite.method], grouped[suite_id], products,
                             missing, own)
        if own is not options:  # only then: other suites' reports stay as they were
            entry["statistics"] = {"seed": own.seed, "from": "suite.toml [seeds] bootstrap"}
        entries.append(entry)
    for entry in entries:  # one family of comparisons per suite, as the seed corrects
        adjust_pvalues(entry["comparisons"])
        for product in entry["products"]:
            if isinstance(product["score_ci"], _OwedInterval):
                product["score_ci"] = product["score_ci"].drawn(options.intervals)
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "statistics": {"resamples": options.resamples, "seed": options.seed,
                       "interval": "percentile bootstrap, 95%",
                       "p_adjustment": "Holm and Bonferroni within each suite"},
        "suites": entries,
    }


def _redacted(records: Sequence[ItemRecord]) -> dict[str, list[str]]:
    """Cases whose output had a secret replaced before scoring (only when there are)."""
    found = sorted({r["case_id"] for r in records if (r.get("flags") or {}).get("redacted")})
    return {"redacted": found} if found else {}
