"""The reports' history files, ``history.md`` and ``history.json`` (docs/store.md,
"History in the reports"): per suite and product of a run just recorded, the official
run in force and whether this run is it, and the run-to-run variation over the stored
complete runs of the same suite version (``variation.measure_variation``, what
``dictbench variation`` prints).

Written only when the store holds history for the run (repeated runs or a declaration);
the main report set never mentions the store, so it is the same bytes with or without
one. Deterministic: suites and products sorted, figures from seeded bootstraps, the only
times those the store holds (when a run was declared official). No output text: the
variation names cases by id and counts outputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..store.interface import Store, StoreError
from ..store.official import declaration_in_force
from ..variation import measure_variation, runs_of
from .files import dumps
from .markdown import md

__all__ = ["HISTORY_FILES", "history_facts", "history_texts", "render_history"]

#: The files a run writes beside its report set when the store holds its history.
HISTORY_FILES = ("history.md", "history.json")
HISTORY_VERSION = 1
#: Case ids named in one Markdown cell at most (history.json names them all).
_NAMED = 10


def _official(store: Store, suite: str, product: str, run_id: str) -> dict[str, Any] | None:
    found = declaration_in_force(store, suite, product)
    if found is None:
        return None
    return {**found.as_dict(), "suite_version": store.run(found.run_id).suites.get(suite),
            "this_run": found.run_id == run_id}


def _complete_runs(store: Store, suite: str, product: str, version: str) -> list[str]:
    try:
        return runs_of(store, suite, product, version=version)
    except StoreError:  # no complete run on this version (this one stopped early)
        return []


def history_facts(store: Store, run_id: str, *, resamples: int, seed: int
                  ) -> dict[str, Any] | None:
    """The history of the suites and products of ``run_id``, or None when the store
    holds none (no suite x product with two complete runs on the suite version, and no
    declaration)."""
    run = store.run(run_id)
    suites = []
    for suite in sorted(run.suites):
        version = run.suites[suite]
        entries: dict[str, dict[str, Any]] = {}
        repeated: dict[str, list[str]] = {}
        for product in sorted(run.products):
            measured = {s.run_id for s in store.summaries(suite, product,
                                                          suite_version=version)}
            if run.run_id not in measured:
                continue
            official = _official(store, suite, product, run.run_id)
            runs = _complete_runs(store, suite, product, version)
            if len(runs) < 2 and official is None:
                continue
            entries[product] = {"product": product, "official": official,
                                "runs": runs if len(runs) > 1 else [],
                                "this_run_among_them": run.run_id in runs}
            if len(runs) > 1:
                repeated[product] = runs
        if not entries:
            continue
        variation = measure_variation(store, suite, repeated, resamples=resamples,
                                      seed=seed)
        for product, measured_runs in variation["products"].items():
            spread = dict(measured_runs["spread"])
            spread["per_item"] = {case: v for case, v in spread["per_item"].items()
                                  if v["range"] > 0}  # the cases that vary, by id
            entries[product].update(pairs=measured_runs["pairs"], spread=spread)
        suites.append({"id": suite, "version": version, "products": list(entries.values()),
                       "between": variation["between"]})
    if not suites:
        return None
    return {"history_version": HISTORY_VERSION, "run_id": run.run_id,
            "statistics": {"resamples": resamples, "seed": seed}, "suites": suites}


def _flipped(cases: Sequence[str]) -> str:
    """How many cases flipped, and the first of them by id."""
    if not cases:
        return "0"
    named = ", ".join(md(c) for c in cases[:_NAMED])
    more = f" and {len(cases) - _NAMED} more" if len(cases) > _NAMED else ""
    return f"{len(cases)} ({named}{more})"


def _difference(c: Mapping[str, Any] | None) -> tuple[str, str]:
    if c is None:
        return "-", "-"
    low, high = c["interval"]["low"], c["interval"]["high"]
    return f"{c['mean_difference']:+.2f}", f"{low:+.2f} to {high:+.2f}" + (
        " (resolved)" if c["resolved"] else "")


def _official_lines(entry: Mapping[str, Any]) -> list[str]:
    official = entry["official"]
    if official is None:
        return ["No official run is declared."]
    this = "this run is it" if official["this_run"] else "this run is not it"
    lines = [f"Official run: `{official['run_id']}` (suite version "
             f"{md(official['suite_version'] or '-')}), declared {official['declared_utc']}: "
             f"{md(official['reason'])}; {this}."]
    condition = official.get("condition")
    if condition:
        what = f"status {condition['status']}" if condition.get("status") else \
            f"flag {condition['flag']}"
        lines.append(f"Condition registered {condition['registered_utc']}: at most "
                     f"{condition['max_items']} item(s) with {md(what)}.")
    for passed in official.get("passed_over") or ():
        lines.append(f"- passed over `{passed['run_id']}`: {md(passed['why'])}")
    return lines


def _variation_lines(entry: Mapping[str, Any]) -> list[str]:
    runs = entry["runs"]
    if not runs:
        return []
    lines = ["", f"Run-to-run variation over the {len(runs)} complete stored runs of this "
             "suite version" + ("" if entry["this_run_among_them"] else
                                " (this run stopped early and is not among them)") + ":",
             "", "| run | against | outputs identical | passed → failed | failed → passed "
             "| mean difference | 95% interval |", "|---|---|---:|---|---|---:|---|"]
    for pair in entry["pairs"]:
        same, flips = pair["identical"], pair["flips"]
        how = "" if same["by"] == "text" else " (by digest)"
        mean, interval = _difference(pair["comparison"])
        lines.append(f"| `{pair['b']}` | `{pair['a']}` | {same['identical']} of "
                     f"{same['items']}{how} | {_flipped(flips['passed_to_failed'])} "
                     f"| {_flipped(flips['failed_to_passed'])} | {mean} | {interval} |")
    spread = entry["spread"]
    lines.append("")
    if spread["suite_scores"]:
        scores = ", ".join(f"{s:.2f}" for s in spread["suite_scores"])
        sd = "" if spread["suite_sd"] is None else f", sd {spread['suite_sd']:.2f}"
        lines.append(f"Suite score per run on the {spread['shared_cases']} cases every run "
                     f"scored: {scores} (range {spread['suite_range']:.2f}{sd}).")
    lines.append(f"Cases whose score varies between runs: {spread['items_varying']} of "
                 f"{spread['items']}.")
    widest = sorted(spread["per_item"].items(), key=lambda kv: (-kv[1]["range"], kv[0]))
    if widest:
        lines += ["", "| case | runs | range | sd |", "|---|---:|---:|---:|"]
        lines += [f"| {md(case)} | {v['runs']} | {v['range']:.2f} | {v['sd']:.2f} |"
                  for case, v in widest[:_NAMED]]
        if len(widest) > _NAMED:
            lines.append(f"\n({len(widest) - _NAMED} more in history.json.)")
    return lines


def _between_lines(between: Sequence[Mapping[str, Any]]) -> list[str]:
    if not between:
        return []
    lines = ["", "Between products (their newest complete runs):", "",
             "| A | B | outputs identical | B - A | 95% interval | own variation up to "
             "| larger than own variation |", "|---|---|---:|---:|---|---:|---|"]
    for pair in between:
        mean, interval = _difference(pair["comparison"])
        beyond = pair["beyond_own_variation"]
        own = "-" if beyond is None else f"{beyond['own_variation']:.2f}"
        verdict = "unknown" if beyond is None else "yes" if beyond["beyond"] else "no"
        lines.append(f"| {md(pair['a'])} | {md(pair['b'])} | {pair['identical']['identical']}"
                     f" of {pair['identical']['items']} | {mean} | {interval} | {own} "
                     f"| {verdict} |")
    return lines


def render_history(facts: Mapping[str, Any]) -> str:
    """``history.md``: per suite and product, the official run and the variation."""
    stats = facts["statistics"]
    lines = ["# dictbench history", "",
             f"Run `{facts['run_id']}` as the results store remembers it: the official run "
             "of each suite and product, and how much each product varies between its "
             "stored runs of the suite version (outputs compared with line breaks taken "
             "out; paired differences with a seeded bootstrap, "
             f"{stats['resamples']} resamples, seed {stats['seed']}).", ""]
    for suite in facts["suites"]:
        lines += [f"## {md(suite['id'])} {md(suite['version'])}", ""]
        for entry in suite["products"]:
            lines += [f"### {md(entry['product'])}", "", *_official_lines(entry),
                      *_variation_lines(entry), ""]
        lines += _between_lines(suite["between"])
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def history_texts(store: Store, run_id: str, *, resamples: int, seed: int
                  ) -> dict[str, str]:
    """``{file name: text}`` of the history files of ``run_id`` (empty: none)."""
    facts = history_facts(store, run_id, resamples=resamples, seed=seed)
    if facts is None:
        return {}
    return {"history.md": render_history(facts), "history.json": dumps(facts) + "\n"}
