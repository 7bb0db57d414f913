"""Per-metric tables of a rig suite: median of repetitions, mean of fixture medians,
rank eligibility, environment cohorts and competition ranks. Pure: no pytest, no I/O.

A table is one metric of one scope: a workflow (all its fixtures) or a workflow x
locale, within one test profile. A product's value is the unweighted mean over the
scope's fixtures of the median over that fixture's complete repetitions (each run's
rates already rounded to 6 places, as the scorer does), rounded to 6 places (halves away
from zero) again after the mean. A product is ranked only when the
execution gate is open, the canonical audio meets the package's specification
(:mod:`pytest_dictbench.rig.checks`), it has every required complete repetition of
every fixture, its corrections are exact, its meeting captures complete, every run
shares one environment, and at least ``minimum_apps`` eligible products share that
environment (its cohort). Ties are competition ranks on the rounded value. There is
never an overall ranking.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...rig.checks import audio_blocking
from ...rig.protocol import WORKFLOWS, default_profile, gate_open, required_repetitions
from ...stats import round_half_away
from .validity import rank_blockers, run_validity

__all__ = ["DECIMALS", "NO_OVERALL", "WORKFLOW_METRICS", "RigRules",
           "rig_tables"]

#: Places every published figure is rounded to.
DECIMALS = 6
#: Why a rig suite never has an overall ranking.
NO_OVERALL = ("no overall ranking: the methodology publishes one table per metric and "
              "forbids a weighted overall score, because readers weigh accuracy, speed, "
              "privacy and price differently")
#: Ranked metrics per workflow: (metric, higher is better).
WORKFLOW_METRICS: Mapping[str, tuple[tuple[str, bool], ...]] = {
    "dictation": (("wer", False), ("cer", False), ("strict_edit_distance", False),
                  ("elapsed_seconds", False)),
    "file_transcription": (("wer", False), ("cer", False), ("strict_edit_distance", False),
                           ("elapsed_seconds", False)),
    "meeting": (("capture_complete", True), ("speaker_turn_accuracy", True), ("wer", False),
                ("cer", False), ("elapsed_seconds", False)),
    "correction": (("correction_seconds", False), ("edit_actions", False)),
}
#: Metrics of the workflow x locale tables.
LOCALE_METRICS = (("wer", False), ("cer", False))
#: Descriptive fields listed per product beside the tables (never scored).
OBSERVED = (("tested_locales", "locale"), ("app_versions", "app_version"),
            ("plans", "plan"), ("processing_paths", "processing_path"),
            ("privacy_modes", "privacy_mode"), ("app_language_settings", "app_language_setting"),
            ("price_snapshots", "price_snapshot"), ("pricing_source_urls", "pricing_source_url"))


class RigRules:
    """What the package says about eligibility (see ``rig.package``)."""

    def __init__(self, package: Mapping[str, Any]) -> None:
        protocol = package.get("protocol", {})
        gate = package.get("execution_gate", {})
        self.products: tuple[str, ...] = tuple(package.get("products", ()))
        self.fixtures: tuple[Mapping[str, Any], ...] = tuple(package.get("fixtures", ()))
        self.same_environment: tuple[str, ...] = tuple(protocol.get(
            "same_environment_fields", ("hardware", "macos_version", "test_profile")))
        self.minimum_apps = int(package.get("ranking", {}).get("minimum_apps", 2))
        self.default_profile = default_profile(package)
        self.gate_ready = gate_open(package)
        self.blocking = tuple(gate.get("blocking_items", ()))
        self._package = package

    def required(self, fixture: Mapping[str, Any]) -> int:
        return required_repetitions(self._package, fixture)


def _scopes(rules: RigRules, profiles: Iterable[str]) -> list[dict[str, Any]]:
    scopes = []
    for profile in profiles:
        for workflow in WORKFLOWS:
            fixtures = [f for f in rules.fixtures if f["workflow"] == workflow]
            if not fixtures:
                continue
            scopes.append({"workflow": workflow, "locale": None, "test_profile": profile,
                           "fixtures": fixtures, "metrics": WORKFLOW_METRICS[workflow]})
            locales = sorted({f["locale"] for f in fixtures})
            if len(locales) > 1:
                for locale in locales:
                    scopes.append({
                        "workflow": workflow, "locale": locale, "test_profile": profile,
                        "fixtures": [f for f in fixtures if f["locale"] == locale],
                        "metrics": LOCALE_METRICS})
    return scopes


def _signature(run: Mapping[str, Any], fields: Sequence[str]) -> tuple[str, ...]:
    return tuple(str(run["rig"].get(f, "")) for f in fields)


def _coverage(app: str, scope: Mapping[str, Any], metric: str, rules: RigRules,
              runs: Mapping[tuple[str, str, str], list[Mapping[str, Any]]],
              others: Mapping[tuple[str, str, str], list[str]]) -> dict[str, Any]:
    """Fixture medians, value, environment and every reason against ranking."""
    reasons: list[str] = []
    medians: list[dict[str, Any]] = []
    signatures: set[tuple[str, ...]] = set()
    for fixture in scope["fixtures"]:
        fid, need = fixture["id"], rules.required(fixture)
        cell = runs.get((app, scope["test_profile"], fid), [])
        reps = {r["repetition"] for r in cell}
        if len(cell) != need or len(reps) != need:
            lacking = others.get((app, scope["test_profile"], fid), [])
            detail = f" ({', '.join(lacking)})" if lacking else ""
            reasons.append(f"{fid}: needs {need} complete repetitions; found "
                           f"{len(cell)}{detail}")
        for run in cell:
            m, rep = run["metrics"], run["repetition"]
            if fixture["workflow"] == "correction" and m.get("correction_exact") != 1.0:
                reasons.append(f"{fid}: final correction not exact in repetition {rep} "
                               f"(remaining edit distance "
                               f"{int(m.get('final_strict_edit_distance', 0))})")
            if fixture["workflow"] == "meeting" and m.get("capture_complete") != 1.0:
                reasons.append(f"{fid}: meeting capture incomplete in repetition {rep}")
            signatures.add(_signature(run, rules.same_environment))
        values = [_per_run(metric, run["metrics"].get(metric)) for run in cell]
        if cell and any(v is None for v in values):
            reasons.append(f"{fid}: {metric} missing in a complete repetition")
        elif cell:
            medians.append({"fixture_id": fid, "median": statistics.median(values),
                            "repetitions": len(cell), "required": need})
    if len(signatures) > 1:
        shown = "; ".join(" | ".join(s) for s in sorted(signatures))
        reasons.append(f"runs do not share one frozen environment "
                       f"({', '.join(rules.same_environment)}): {shown}")
    value = (statistics.fmean(m["median"] for m in medians)
             if medians and len(medians) == len(scope["fixtures"]) else None)
    partial = statistics.fmean(m["median"] for m in medians) \
        if medians and value is None else None
    return {"reasons": reasons, "value": value, "signature": next(iter(signatures), None)
            if len(signatures) == 1 else None,
            "partial": None if partial is None else {
                "value": round_half_away(partial, DECIMALS),
                "fixtures": f"{len(medians)} of {len(scope['fixtures'])} fixtures"},
            "fixture_medians": [{"fixture_id": m["fixture_id"],
                                 "median": round_half_away(m["median"], DECIMALS),
                                 **({"incomplete": f"{m['repetitions']} of {m['required']} "
                                                   "repetitions"}
                                    if m["repetitions"] < m["required"] else {})}
                                for m in medians]}


#: Rates the scorer rounds per run, before the median (run_metrics already does).
RATES = ("wer", "cer", "speaker_turn_accuracy", "wer_label_free", "cer_label_free")


def _per_run(metric: str, value: float | None) -> float | None:
    """A run's value as it enters the median: rates rounded to 6 places first."""
    return round_half_away(value, DECIMALS) if value is not None and metric in RATES \
        else value


def _competition(values: Mapping[str, float], higher: bool) -> dict[str, int]:
    """Competition ranks (1, 1, 3) of already rounded values, ordered by rank then name
    (code points); the same ranks as ``stats.competition_ranks`` in n log n."""
    order = sorted(values, key=lambda app: (-values[app] if higher else values[app], app))
    ranks: dict[str, int] = {}
    for index, app in enumerate(order):
        same = index and values[order[index - 1]] == values[app]
        ranks[app] = ranks[order[index - 1]] if same else index + 1
    return ranks


def _table(scope: Mapping[str, Any], metric: str, higher: bool, apps: Sequence[str],
           rules: RigRules, runs: Any, others: Any,
           blocked: Mapping[str, list[str]] | None = None,
           withheld: str | None = None) -> dict[str, Any]:
    coverage = {app: _coverage(app, scope, metric, rules, runs, others) for app in apps}
    for app, reasons in (blocked or {}).items():
        if app in coverage:
            coverage[app]["reasons"].extend(reasons)
    if withheld:  # the package itself fails the protocol: no product is rankable
        for cov in coverage.values():
            cov["reasons"].insert(0, f"{withheld}: no ranks are published")
    if not rules.gate_ready:
        blocking = "; ".join(rules.blocking) or "none listed"
        for cov in coverage.values():
            cov["reasons"].insert(0, f"execution gate closed: no ranks are published "
                                     f"(blocking: {blocking})")
    cohorts: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for app, cov in coverage.items():
        if not cov["reasons"] and cov["value"] is not None:
            cohorts[cov["signature"]].append(app)
    published = []
    for signature, members in sorted(cohorts.items()):
        environment = dict(zip(rules.same_environment, signature, strict=True))
        if len(members) < rules.minimum_apps:
            for app in members:
                coverage[app]["reasons"].append(
                    f"only {len(members)} eligible product(s) in its environment cohort "
                    f"({', '.join(f'{k}={v}' for k, v in environment.items())}); at least "
                    f"{rules.minimum_apps} needed")
            continue
        values = {app: round_half_away(coverage[app]["value"], DECIMALS) for app in members}
        ranks = _competition(values, higher)
        published.append({"environment": environment, "entries": [
            {"rank": rank, "app_id": app, "value": values[app],
             "fixture_medians": coverage[app]["fixture_medians"]}
            for app, rank in ranks.items()]})
    return {
        "workflow": scope["workflow"], "locale": scope["locale"],
        "test_profile": scope["test_profile"], "metric": metric,
        "direction": "higher is better" if higher else "lower is better",
        "fixtures": [f["id"] for f in scope["fixtures"]],
        "cohorts": published,
        "not_ranked": [
            {"app_id": app, "reasons": cov["reasons"],
             "value": None if cov["value"] is None else round_half_away(cov["value"], DECIMALS),
             "fixture_medians": cov["fixture_medians"],
             **({"partial": cov["partial"]} if cov["partial"] else {})}
            for app, cov in coverage.items() if cov["reasons"]],
    }


def _observations(apps: Sequence[str], complete: Sequence[Mapping[str, Any]]
                  ) -> list[dict[str, Any]]:
    by_app: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in complete:
        by_app[r["product"]].append(r["rig"])
    rows = []
    for app in apps:
        mine = by_app.get(app, [])
        entry: dict[str, Any] = {"app_id": app, "complete_runs": len(mine)}
        for key, field in OBSERVED:
            entry[key] = sorted({str(r.get(field, "")) for r in mine} - {""})
        rows.append(entry)
    return rows


def _example(records: Sequence[Mapping[str, Any]], package: Mapping[str, Any],
             rules: RigRules) -> dict[str, Any] | None:
    """For an example package (``disclosure.publication_state: "example"``): its
    statement, and which failed or errored items are the faults it shows on purpose
    (``disclosure.intended_faults``, item names) and which are not."""
    disclosure = package.get("disclosure") or {}
    if disclosure.get("publication_state") != "example":
        return None
    intended = sorted(disclosure.get("intended_faults", ()))
    faults = sorted(
        f"{r['case_id']}[{r['product']}-"
        + ("" if r["rig"]["test_profile"] == rules.default_profile
           else f"{r['rig']['test_profile']}-") + f"r{r['repetition']}]"
        for r in records if r["status"] in ("failed", "error"))
    return {"statement": str(disclosure.get("statement", "")), "intended_faults": intended,
            "unexpected_faults": [f for f in faults if f not in intended],
            "intended_not_seen": [f for f in intended if f not in faults]}


def rig_tables(records: Sequence[Mapping[str, Any]], package: Mapping[str, Any],
               checks: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``rig`` section of a suite in ``dictbench.json``.

    :param records: every item record of the suite (all products, all statuses); each
        has ``product``, ``case_id``, ``repetition``, ``metrics`` and a ``rig`` dict with
        the run's ``status``, ``test_profile``, environment and descriptive fields.
    :param package: the methodology manifest.
    :param checks: what the run checked before scoring (``rig.checks``: integrity,
        canonical audio, excluded rows); None when nothing was checked.
    """
    rules = RigRules(package)
    rig_records = [r for r in records if "rig" in r]
    complete = [r for r in rig_records if r["rig"]["status"] == "complete"
                and r["status"] in ("passed", "failed")]
    scored = {id(r) for r in complete}
    apps = sorted(set(rules.products) | {r["product"] for r in rig_records})
    runs: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for r in complete:
        runs[(r["product"], r["rig"]["test_profile"], r["case_id"])].append(r)
    others: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    statuses: dict[str, dict[str, int]] = {
        app: dict.fromkeys(("complete", "not_tested", "unsupported", "failed", "invalid",
                            "blank"), 0) for app in apps}
    for r in rig_records:
        status = r["rig"]["status"]
        statuses[r["product"]][status] += 1
        if id(r) not in scored:
            others[(r["product"], r["rig"]["test_profile"], r["case_id"])].append(
                f"r{r['repetition']} {status}")
    profiles = sorted({r["rig"]["test_profile"] for r in complete}) or [rules.default_profile]
    validity = run_validity(rig_records, package)
    blocked = rank_blockers(validity)
    withheld = audio_blocking(checks)
    tables = [_table(scope, metric, higher, apps, rules, runs, others, blocked, withheld)
              for scope in _scopes(rules, profiles) for metric, higher in scope["metrics"]]
    checks = checks or {}
    return {
        "normalization": "rig-v1",
        "execution_gate": {"ready": rules.gate_ready, "blocking_items": list(rules.blocking)},
        "integrity_verified": bool(checks.get("integrity_verified")),
        **({"integrity": checks["integrity"]} if "integrity" in checks else {}),
        **({"audio_specification": {**checks["audio_specification"],
                                    "blocks_ranks": withheld is not None}}
           if "audio_specification" in checks else {}),
        "exclusions": list(checks.get("exclusions", ())),
        **({"example": example} if (example := _example(rig_records, package, rules))
           else {}),
        "overall_ranking": None,
        "overall_ranking_reason": NO_OVERALL,
        "statuses": statuses,
        "tables": tables,
        "observations": _observations(apps, complete),
        "validity": validity,
        "environment_disagreements": [
            dict(zip(("app_id", "field", "declared", "detected"), key, strict=True))
            for key in sorted({(r["product"], d["field"], d["declared"], d["detected"])
                               for r in rig_records
                               for d in r["rig"].get("environment_disagreements", ())})],
    }
