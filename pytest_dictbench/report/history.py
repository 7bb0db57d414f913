"""The reports' history files, ``history.md`` and ``history.json`` (docs/store.md,
"History in the reports"): per suite and product of a run just recorded, the official
run in force and whether this run is it, and the run-to-run variation over the newest
complete runs of the same suite version (a window of ``dictbench_history_runs`` runs,
:data:`DEFAULT_HISTORY_RUNS` by default; ``variation.measure_variation``, what
``dictbench variation`` prints). A run the store refuses (a corrupt row) is left out and
named with the store's reason; a run of more than :data:`VARIATION_ITEMS_UP_TO` items
has its variation left to ``dictbench variation``. Products' newest runs are compared by
the reports' rule
(every two, or above ``compare.ALL_PAIRS_UP_TO`` products each with the best; the suite's
``comparison_scope`` and the report's sentence say which).

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
from ..variation import RunSelection, measure_variation, select_runs
from .files import dumps
from .markdown import md
from .pipelines import scope_note

__all__ = ["DEFAULT_HISTORY_RUNS", "HISTORY_FILES", "history_facts", "history_texts",
           "render_history"]

#: The files a run writes beside its report set when the store holds its history.
HISTORY_FILES = ("history.md", "history.json")
HISTORY_VERSION = 1
#: The newest complete runs of a suite version the variation covers by default (ini
#: ``dictbench_history_runs``): what a run pays for its history stays the same however
#: many runs the store holds.
DEFAULT_HISTORY_RUNS = 10
#: The most items a suite x product's run may hold for its history to measure the
#: variation with the run (the bundled suites and the seeds' benchmarks hold 24 to 131):
#: past it the history still names the official run and says to run ``dictbench
#: variation``, so a large run costs what recording it costs (at 10,000 cached items,
#: measuring ten runs' variation doubled the run's time).
VARIATION_ITEMS_UP_TO = 2_000
#: Case ids named in one Markdown cell at most (history.json names them all).
_NAMED = 10


def _official(store: Store, suite: str, product: str, run_id: str,
              versions: Mapping[str, str]) -> dict[str, Any] | None:
    found = declaration_in_force(store, suite, product)
    if found is None:
        return None
    return {**found.as_dict(), "suite_version": versions.get(found.run_id),
            "this_run": found.run_id == run_id}


def _selection(store: Store, suite: str, product: str, version: str,
               window: int) -> RunSelection:
    try:
        return select_runs(store, suite, product, version=version, last=window)
    except StoreError:  # no complete run on this version (this one stopped early)
        return RunSelection(suite_version=version, runs=[], older=[])


def history_facts(store: Store, run_id: str, *, resamples: int, seed: int,
                  window: int = DEFAULT_HISTORY_RUNS) -> dict[str, Any] | None:
    """The history of the suites and products of ``run_id``, or None when the store
    holds none (no suite x product with two complete runs on the suite version, and no
    declaration). The variation covers the newest ``window`` complete runs; an earlier
    run the store refuses is left out and named (this run's own: StoreError)."""
    run = store.run(run_id)
    suites = []
    for suite in sorted(run.suites):
        version = run.suites[suite]
        entries: dict[str, dict[str, Any]] = {}
        repeated: dict[str, list[str]] = {}
        for product in sorted(run.products):
            summaries = store.summaries(suite, product)
            versions = {s.run_id: s.suite_version for s in summaries}
            items = max((s.items for s in summaries if s.run_id == run.run_id), default=0)
            if versions.get(run.run_id) != version:
                continue
            official = _official(store, suite, product, run.run_id, versions)
            chosen = _selection(store, suite, product, version, window)
            if len(chosen.runs) < 2 and official is None:
                continue
            entries[product] = {"product": product, "official": official,
                                "runs": chosen.runs if len(chosen.runs) > 1 else [],
                                "this_run_among_them": run.run_id in chosen.runs,
                                "window": chosen.window(window), "refused": []}
            if len(chosen.runs) > 1:
                if items > VARIATION_ITEMS_UP_TO:
                    entries[product]["not_measured"] = {"items": items,
                                                        "up_to": VARIATION_ITEMS_UP_TO}
                else:
                    repeated[product] = chosen.runs
        if not entries:
            continue
        variation = measure_variation(store, suite, repeated, resamples=resamples,
                                      seed=seed, leave_out_corrupt=True)
        for product, measured in variation["products"].items():
            for refused in measured["refused"]:
                if refused["run_id"] == run.run_id:  # this run's own record
                    raise StoreError(f"run {run.run_id}: {refused['reason']}")
            spread = dict(measured["spread"])
            spread["per_item"] = {case: v for case, v in spread["per_item"].items()
                                  if v["range"] > 0}  # the cases that vary, by id
            entries[product].update(runs=measured["runs"], pairs=measured["pairs"],
                                    spread=spread, refused=measured["refused"])
        suites.append({"id": suite, "version": version, "products": list(entries.values()),
                       "between": variation["between"],
                       "comparison_scope": variation["comparison_scope"]})
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


def _covered(entry: Mapping[str, Any]) -> str:
    """Which runs the variation covers: the window, and the older runs it left out."""
    window = entry["window"]
    covered = len(entry["runs"]) + len(entry["refused"])
    if not window["left_out"]:
        return f"the {covered} complete stored runs of this suite version"
    left = window["left_out"]
    which = f"`{window['left_out_oldest']}`" if left == 1 else \
        f"`{window['left_out_oldest']}` to `{window['left_out_newest']}`"
    return (f"the newest {covered} of the {window['complete_runs']} complete stored runs "
            f"of this suite version (dictbench_history_runs = {window['runs']}; left out: "
            f"{left} older run{'s' if left > 1 else ''}, {which})")


def _variation_lines(entry: Mapping[str, Any]) -> list[str]:
    runs = entry["runs"]
    if entry["window"]["complete_runs"] < 2:
        return []
    if entry.get("not_measured"):
        skipped = entry["not_measured"]
        return ["", f"Run-to-run variation over {_covered(entry)}: not measured with the "
                f"run ({skipped['items']} items, above the {skipped['up_to']} the reports "
                f"measure); `dictbench variation` measures it."]
    lines = ["", f"Run-to-run variation over {_covered(entry)}" + (
        "" if entry["this_run_among_them"] else
        " (this run stopped early and is not among them)") + ":"]
    for refused in entry["refused"]:
        lines.append(f"Left out, the store refused it: `{refused['run_id']}` "
                     f"({md(refused['reason'])}).")
    if len(runs) < 2:
        return [*lines, "Fewer than two of them could be read: no variation."]
    lines += ["", "| run | against | outputs identical | passed → failed | failed → passed "
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


def _between_lines(suite: Mapping[str, Any]) -> list[str]:
    between = suite["between"]
    if not between:
        return []
    scope = scope_note(suite)  # above compare.ALL_PAIRS_UP_TO products: each vs the best
    lines = ["", "Between products (their newest complete runs):", "",
             *([md(scope), ""] if scope else []),
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
        lines += _between_lines(suite)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def history_texts(store: Store, run_id: str, *, resamples: int, seed: int,
                  window: int = DEFAULT_HISTORY_RUNS) -> dict[str, str]:
    """``{file name: text}`` of the history files of ``run_id`` (empty: none)."""
    facts = history_facts(store, run_id, resamples=resamples, seed=seed, window=window)
    if facts is None:
        return {}
    return {"history.md": render_history(facts), "history.json": dumps(facts) + "\n"}
