"""The vendor-CI gate: compare a run with a baseline run, and check minimum scores.

Pure: takes item records and report bodies, returns comparisons and verdicts.
The gate gives one verdict per suite x product of the run. It fails when

- items of the product have no output (``not_tested``), unless missing items are
  allowed (``allow_missing``): a misnamed outputs file must not pass as "no drop";
- with a baseline, the product is not in the baseline run, or no case was scored in
  both runs (nothing was compared, so nothing was shown not to have dropped), or cases
  of the baseline are not in this run (deselected, not reached) unless missing items
  are allowed, or the baseline is from another version of the suite, or (a Japanese
  suite) was analysed with another dictionary or split mode;
- a product named for the run has no item in it at all (an empty selection included);
- its drop against the baseline, on the cases both runs scored, is statistically
  resolved (the bootstrap interval of the difference lies below 0) and larger than
  ``max_drop`` points (a larger drop that is not resolved is let through, and its
  verdict says so in ``accepted``);
- its drop is larger than ``max_drop_abs`` points, resolved or not (an absolute guard
  for drops concentrated in a few cases, which the bootstrap cannot resolve);
- its suite score is below ``min_score``, or it has no suite score at all.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .compare import compare_records
from .methods.base import ItemRecord
from .report.sections import fmt_p

__all__ = [
    "ANALYSER_KEYS",
    "NOT_RUN",
    "GateOptions",
    "accepted_drops",
    "analyser_failure",
    "baseline_comparisons",
    "gate_failures",
    "gate_notes",
    "gate_verdicts",
    "group_records",
    "split_failure",
    "version_failure",
    "why_missing",
]


@dataclass(frozen=True)
class GateOptions:
    """What a gated run checks (the ``--dictbench-*`` gate options)."""

    max_drop: float = 0.0
    min_score: float | None = None
    allow_missing: bool = False
    max_drop_abs: float | None = None

    def describe(self, *, baseline: bool) -> str:
        """The settings in words, e.g. ``max drop 2 points, min score 80``."""
        parts = [f"max drop {self.max_drop:g} points"] if baseline else []
        if baseline and self.max_drop_abs is not None:
            parts.append(f"max drop abs {self.max_drop_abs:g} points")
        if self.min_score is not None:
            parts.append(f"min score {self.min_score:g}")
        parts.append("missing items allowed" if self.allow_missing
                     else "missing items fail")
        return ", ".join(parts)


def group_records(records: Iterable[ItemRecord]) -> dict[tuple[str, str], list[ItemRecord]]:
    """Records by (suite, product)."""
    groups: dict[tuple[str, str], list[ItemRecord]] = defaultdict(list)
    for record in records:
        groups[(record["suite"], record["product"])].append(record)
    return groups


def baseline_comparisons(current: Iterable[ItemRecord], baseline: Iterable[ItemRecord], *,
                         resamples: int, seed: int) -> list[dict[str, Any]]:
    """For each (suite, product) in both runs with shared scored cases: this run minus
    the baseline (``cases_a`` counts the baseline's scored cases, ``cases_b`` this run's)."""
    now, before = group_records(current), group_records(baseline)
    comparisons = []
    for suite, product in sorted(now.keys() & before.keys()):
        result = compare_records(before[(suite, product)], now[(suite, product)],
                                 resamples=resamples, seed=seed)
        if result is not None:
            comparisons.append({"suite": suite, "product": product, **result})
    return comparisons


def _missing(entry: Mapping[str, Any], options: GateOptions) -> list[str]:
    missing = entry.get("not_tested", 0)
    if not missing or options.allow_missing:
        return []
    return [f"{missing} of {entry['items']} items have no output ({why_missing(entry)}); a gated "
            "run needs every item (--dictbench-allow-missing gates on those that ran)"]


def why_missing(entry: Mapping[str, Any]) -> str:
    """The ``not_tested`` items of a report entry by what their output said, kept apart
    (``2 not_tested, 2 unsupported``); items that never ran are ``not run``."""
    statuses = entry.get("output_statuses", {})
    parts = [f"{statuses[s]} {s}" for s in ("not_tested", "unsupported", "blank")
             if statuses.get(s)]
    rest = entry.get("not_tested", 0) - sum(statuses.get(s, 0)
                                            for s in ("not_tested", "unsupported", "blank"))
    if rest > 0:
        parts.append(f"{rest} not run or not scored")
    return ", ".join(parts) or "not_tested"


def _baseline_cases(now: Sequence[ItemRecord], before: Sequence[ItemRecord],
                    options: GateOptions) -> list[str]:
    """Cases of the baseline that this run has no record of (a narrower selection)."""
    if options.allow_missing:
        return []
    have = {(r["case_id"], r.get("repetition", 1)) for r in now}
    cases = sorted({r["case_id"] for r in before})
    gone = sorted({r["case_id"] for r in before
                   if (r["case_id"], r.get("repetition", 1)) not in have})
    if not gone:
        return []
    shown = ", ".join(gone[:5]) + (", ..." if len(gone) > 5 else "")
    return [f"{len(gone)} of the baseline's {len(cases)} cases are not in this run "
            f"({shown}): deselected or not reached; a gated run compares every baseline "
            "case (--dictbench-allow-missing gates on the subset)"]


def _baseline(key: tuple[str, str], comparison: Mapping[str, Any] | None, in_baseline: bool,
              options: GateOptions) -> list[str]:
    if not in_baseline:
        return ["not in the baseline run, so it could not be compared"]
    if comparison is None:
        return ["no case was scored in both this run and the baseline, so it could not "
                "be compared"]
    c = comparison
    drop = round(-c["mean_difference"], 2)  # the drop as printed is the one compared (CF12)
    interval = f"{c['interval']['low']:+.2f} to {c['interval']['high']:+.2f}"
    failures = []
    if c["interval"]["high"] < 0 and drop > options.max_drop:
        failures.append(
            f"score dropped {drop:.2f} points against the baseline on {c['n']} shared "
            f"cases (95% interval of the change {interval}, McNemar "
            f"p={fmt_p(c['mcnemar_p'])}), more than the allowed {options.max_drop:g}")
    if options.max_drop_abs is not None and drop > options.max_drop_abs:
        failures.append(
            f"score dropped {drop:.2f} points against the baseline on {c['n']} shared "
            f"cases, more than the absolute limit {options.max_drop_abs:g} "
            f"(--dictbench-max-drop-abs, resolved or not; 95% interval of the change "
            f"{interval})")
    return failures


def accepted_drops(comparison: Mapping[str, Any] | None, options: GateOptions) -> list[str]:
    """A drop above ``max_drop`` that the gate let through because the bootstrap did not
    resolve it (and no absolute limit caught it), in words; empty otherwise."""
    if comparison is None:
        return []
    c = comparison
    drop = round(-c["mean_difference"], 2)  # as printed, as _baseline compares it
    if c["interval"]["high"] < 0 or drop <= options.max_drop:
        return []
    if options.max_drop_abs is not None and drop > options.max_drop_abs:
        return []  # failed by the absolute guard instead
    guard = ("--dictbench-max-drop-abs fails it regardless" if options.max_drop_abs is None
             else f"within the absolute limit {options.max_drop_abs:g}")
    return [f"a drop of {drop:.2f} points, above the allowed {options.max_drop:g}, was "
            f"accepted as not statistically resolved (interval high "
            f"{c['interval']['high']:+.2f}); {guard}"]


def _min_score(entry: Mapping[str, Any], options: GateOptions) -> list[str]:
    if options.min_score is None:
        return []
    score = entry["score"]
    if score is None:
        return [f"no suite score (no item was scored), so the minimum {options.min_score:g} "
                "is not met"]
    if score < options.min_score:
        return [f"suite score {score:.2f} is below the minimum {options.min_score:g}"]
    return []


#: Why a product named for the run has no verdict of its own.
NOT_RUN = ("no item of this product ran (deselected, or the run stopped before it), so "
           "the gate has nothing to pass")


def version_failure(suite: str, before: str | None, now: str | None) -> list[str]:
    """The baseline was made with another version of the suite: refused, both named."""
    if before is None or before == now:
        return []
    return [f"the baseline is from {suite} {before}, this run from {suite} {now}: scores "
            "of different suite versions are not compared (make a new baseline)"]


def _half(split: Mapping[str, Any] | None) -> tuple[Any, Any] | None:
    return None if not split else (split.get("half"), split.get("seed"))


def _split_words(half: tuple[Any, Any] | None, seed: bool) -> str:
    if half is None:
        return "every case"
    return f"the {half[0]} half" + (f" (seed {half[1]})" if seed else "")


def split_failure(suite: str, before: Mapping[str, Any] | None,
                  now: Mapping[str, Any] | None) -> list[str]:
    """The baseline ran another ``--dictbench-split`` half of the suite than this run
    (or the whole suite against a half, another seed, another case list): refused,
    both named. ``before``, ``now``: the reports' ``split`` records (``None``: no split)."""
    a, b = _half(before), _half(now)
    if a == b:
        if a is None or before is None or now is None:
            return []
        was, is_ = (s.get("suites", {}).get(suite, {}) for s in (before, now))
        digests = (was.get("suite_cases_sha256"), is_.get("suite_cases_sha256"))
        if None in digests or digests[0] == digests[1]:
            return []
        return [f"the baseline is the {a[0]} half of another case list of suite {suite} "
                f"({was.get('of')} cases), this run's of {is_.get('of')} cases: halves of "
                "different case lists are not compared (make a new baseline)"]
    first = _split_words(a, seed=True).replace(" half", f" half of suite {suite}", 1) \
        if a is not None else f"every case of suite {suite}"
    second = _split_words(b, seed=a is None or b is None or a[1] != b[1])
    return [f"the baseline is {first}, this run {second}: these hold different cases and "
            "are not compared (gate on a baseline run of the same --dictbench-split half "
            "and seed)"]


#: What must match between a baseline's analyser and this run's for Japanese scores to
#: be compared (the analyser's own version may differ).
ANALYSER_KEYS = ("analyser", "dictionary", "dictionary_version", "split_mode")


def _analyser_words(info: Mapping[str, Any]) -> str:
    return (f"{info.get('dictionary')} {info.get('dictionary_version')} (split mode "
            f"{info.get('split_mode')}, {info.get('analyser')})")


def analyser_failure(locale: str | None, before: Mapping[str, Any] | None,
                     now: Mapping[str, Any] | None) -> list[str]:
    """A Japanese suite's baseline cut its words, names and numbers with another
    dictionary or split mode: its scores are not comparable, both named. A baseline
    that recorded no analyser (an older run) is not flagged."""
    if not str(locale or "").lower().startswith("ja") or not before or not now:
        return []
    if all(before.get(key) == now.get(key) for key in ANALYSER_KEYS):
        return []
    return [f"the baseline was analysed with {_analyser_words(before)}, this run with "
            f"{_analyser_words(now)}: Japanese words, names and numbers depend on the "
            "dictionary, so the scores are not compared (make a new baseline)"]


def gate_verdicts(report: Mapping[str, Any], comparisons: Sequence[Mapping[str, Any]],
                  options: GateOptions, *, baseline: Iterable[ItemRecord] | None = None,
                  records: Iterable[ItemRecord] = (), products: Sequence[str] = (),
                  baseline_versions: Mapping[str, str] | None = None,
                  analysers: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]
                  = (None, None),
                  splits: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]
                  | None = None) -> list[dict[str, Any]]:
    """One verdict per suite x product of the run, in report order:
    ``{"suite", "product", "passed", "failures": [reason, ...]}``; then one failing
    verdict per suite for each of ``products`` (the products named for the run) that no
    suite of the run has an item of. ``analysers``: the baseline's
    and this run's morphological analyser (run-info.json ``analyser``); ``splits``: the
    baseline's and this run's ``split`` record (``--dictbench-split``, else ``None``),
    or ``None`` when the baseline's is not known (not compared)."""
    before = group_records(baseline) if baseline is not None else None
    now = group_records(records)
    by_key = {(c["suite"], c["product"]): c for c in comparisons}
    versions = baseline_versions or {}
    verdicts = []
    seen = {entry["product"] for suite in report["suites"] for entry in suite["products"]}
    for suite in report["suites"]:
        for entry in suite["products"]:
            key = (suite["id"], entry["product"])
            failures = _missing(entry, options)
            accepted: list[str] = []
            if before is not None:
                accepted = accepted_drops(by_key.get(key), options)
                failures += version_failure(key[0], versions.get(key[0]), suite.get("version"))
                failures += analyser_failure(suite.get("locale"), *analysers)
                halves = split_failure(key[0], *splits) if splits is not None else []
                failures += halves or _baseline(key, by_key.get(key), key in before, options)
                if key in before and not halves:
                    failures += _baseline_cases(now.get(key, []), before[key], options)
            failures += _min_score(entry, options)
            verdicts.append({"suite": key[0], "product": key[1], "passed": not failures,
                             "failures": failures, "accepted": accepted})
        verdicts += [{"suite": suite["id"], "product": name, "passed": False,
                      "failures": [NOT_RUN]} for name in products if name not in seen]
    return verdicts


def gate_failures(verdicts: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every failure of the verdicts as ``suite/product: reason`` (empty when all pass)."""
    return [f"{v['suite']}/{v['product']}: {failure}"
            for v in verdicts for failure in v["failures"]]


def gate_notes(verdicts: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every drop the verdicts accepted as unresolved, as ``suite/product: note``."""
    return [f"{v['suite']}/{v['product']}: {note}"
            for v in verdicts for note in v.get("accepted", ())]
