"""The commands over the results store (docs/store.md)::

    dictbench runs                      stored runs (filters: suite, product, dates, commit)
    dictbench show RUN                  one run: its facts and suite scores
    dictbench compare RUN_A RUN_B       paired per suite and product, changed cases named
    dictbench trend SUITE PRODUCT       score per run with its interval, drops flagged
                                        (a sparkline; --figure FILE.svg draws it)
    dictbench official RUN --product P --reason "..."   declare the official run
    dictbench official --register SUITE --max-items N --flag F   pre-register a condition
    dictbench variation SUITE PRODUCT [PRODUCT2]         run-to-run variation
    dictbench store import REPORTS_DIR  record an existing report set

The store is ``--store``, else ``$DICTBENCH_STORE``, else the nearest
``.dictbench/store.sqlite`` in this folder or one above it (where pytest records runs).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from .store import (
    DEFAULT_STORE,
    Condition,
    Store,
    StoreError,
    new_run_id,
    open_store,
    store_location,
)
from .store.official import declare_official, now_utc
from .store.reportset import import_report_set
from .trend import sparkline, store_trend
from .variation import beyond_variation, pair_runs, score_spread, shared_pairs

__all__ = ["add_commands", "open_named_store"]


def open_named_store(args: argparse.Namespace) -> Store:
    """The store ``--store`` names, else ``$DICTBENCH_STORE``, else the nearest default one."""
    value = args.store or os.environ.get("DICTBENCH_STORE")
    if value:
        where = store_location(value, Path.cwd())
        if where is None:
            raise StoreError("the store is 'off'; name one with --store")
    else:
        found = next((folder / DEFAULT_STORE for folder in (Path.cwd(), *Path.cwd().parents)
                      if (folder / DEFAULT_STORE).is_file()), None)
        if found is None:
            raise StoreError(f"no results store here: pytest --product records runs in "
                             f"{DEFAULT_STORE} under the rootdir; name another with --store")
        where = store_location(str(found), Path.cwd())
    assert where is not None
    return open_store(where)


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _interval(c: dict[str, Any]) -> str:
    return f"{c['interval']['low']:+.2f} to {c['interval']['high']:+.2f}"


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True))


def cmd_runs(args: argparse.Namespace) -> int:
    store = open_named_store(args)
    runs = store.runs(suite=args.suite, product=args.product, suite_version=args.suite_version,
                      cohort=args.cohort, commit=args.commit, since=args.since,
                      until=args.until, limit=args.limit)
    if args.json:
        _print_json([r.as_dict() for r in runs])
        return 0
    print(f"{len(runs)} run(s) in {store.location}")
    for run in runs:
        commit = (run.git_commit or "-")[:10] + ("*" if run.git_dirty else "")
        suites = ", ".join(f"{s} {v}" for s, v in run.suites.items())
        official = "  official: " + ", ".join(f"{s}/{p}" for s, p in run.official) \
            if run.official else ""
        state = "" if run.complete else f"  (stopped: {run.stop_reason})"
        print(f"{run.run_id}  {run.finished_utc}  {commit:<11}  {suites}  "
              f"[{', '.join(run.products)}]  {run.items} items{official}{state}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    store = open_named_store(args)
    run = store.run(args.run_id)
    report = json.loads(store.report(run.run_id))
    if args.json:
        _print_json({**run.as_dict(), "report": report})
        return 0
    print(f"run {run.run_id} ({run.source}), finished {run.finished_utc}")
    print(f"  commit {run.git_commit or '-'}{' (dirty tree)' if run.git_dirty else ''}, "
          f"pytest-dictbench {run.dictbench_version}, host {run.host or '-'}, "
          f"cohort {run.cohort or '-'}")
    if not run.complete:
        print(f"  stopped early: {run.stop_reason}")
    official = set(run.official)
    for suite in report.get("suites", []):
        for entry in suite.get("products", []):
            mark = "  OFFICIAL" if (suite["id"], entry["product"]) in official else ""
            ci = entry.get("score_ci") or {}
            print(f"  {suite['id']} {suite.get('version', '')} / {entry['product']}: score "
                  f"{_score(entry.get('score'))} [{_score(ci.get('low'))}, "
                  f"{_score(ci.get('high'))}], {entry.get('passed', 0)} of "
                  f"{entry.get('items', 0)} passed{mark}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    store = open_named_store(args)
    a, b = store.run(args.run_a).run_id, store.run(args.run_b).run_id
    out = []
    for suite, product in shared_pairs(store.run(a), store.run(b)):
        moved = pair_runs(store.items(a, suite=suite, product=product),
                          store.items(b, suite=suite, product=product),
                          resamples=args.resamples, seed=args.seed)
        if moved["comparison"] is not None or moved["identical"]["items"]:
            out.append({"suite": suite, "product": product, **moved})
    if args.json:
        _print_json({"a": a, "b": b, "pairs": out})
        return 0
    print(f"{b} against {a}")
    for entry in out:
        _print_pair(entry, f"{entry['suite']} / {entry['product']}")
    if not out:
        print("  no suite and product in common")
    return 0


def _print_pair(entry: dict[str, Any], title: str) -> None:
    same, flips, c = entry["identical"], entry["flips"], entry["comparison"]
    print(f"  {title}: {same['identical']} of {same['items']} outputs identical "
          f"({'line breaks ignored' if same['by'] == 'text' else 'by digest'})")
    if c is not None:
        state = "resolved" if c["resolved"] else "not resolved"
        print(f"    mean difference {c['mean_difference']:+.2f} points on {c['n']} cases "
              f"(95% interval {_interval(c)}, {state})")
    for name, words in (("passed_to_failed", "passed -> failed"),
                        ("failed_to_passed", "failed -> passed")):
        if flips[name]:
            print(f"    {len(flips[name])} {words}: {', '.join(flips[name])}")


def cmd_trend(args: argparse.Namespace) -> int:
    store = open_named_store(args)
    points = store_trend(store, args.suite, args.product, suite_version=args.suite_version,
                         cohort=args.cohort, resamples=args.resamples, seed=args.seed)
    if args.figure:
        from .errors import require
        from .files import atomic_write
        from .report.plots import standalone_svg, trend_svg

        require("matplotlib", "plot", "dictbench trend --figure")
        atomic_write(Path(args.figure), standalone_svg(trend_svg(
            points, f"{args.suite} / {args.product}", "trend")))
    if args.json:
        _print_json(points)
        return 0
    print(f"{args.suite} / {args.product}: {len(points)} run(s)  "
          f"{sparkline([p['score'] for p in points])}")
    for p in points:
        note = ""
        if p["new_version"]:
            note = f"  suite version {p['suite_version']} (a new series)"
        elif p["drop"]:
            note = (f"  DROP {p['drop']['mean_difference']:+.2f} "
                    f"(95% interval {_interval(p['drop'])})")
        print(f"  {p['finished_utc']}  {p['run_id']}  {(p['git_commit'] or '-')[:10]:<10}  "
              f"{_score(p['score'])} [{_score(p['low'])}, {_score(p['high'])}]{note}")
    drops = [p for p in points if p["drop"]]
    if drops:
        print(f"dropped (resolved) in {len(drops)} run(s); first on "
              f"{drops[0]['finished_utc'][:10]} ({drops[0]['run_id']})")
    return 0


def cmd_official(args: argparse.Namespace) -> int:
    store = open_named_store(args)
    if args.register:
        if (args.status is None) == (args.flag is None):
            raise StoreError("a condition counts items by --status or by --flag (one)")
        if args.max_items is None:
            raise StoreError("a condition needs --max-items")
        condition = store.register_condition(Condition(
            suite=args.register, product=args.product or "", max_items=args.max_items,
            status=args.status, flag=args.flag, registered_utc=now_utc(),
            note=args.note or ""))
        print(f"registered for {condition.suite}"
              f"{'/' + condition.product if condition.product else ''}: "
              f"{condition.describe()}")
        return 0
    if args.run_id is None:
        for d in store.declarations(suite=args.suite, product=args.product):
            print(f"{d.suite}/{d.product}: {d.run_id}, declared {d.declared_utc}: {d.reason}")
        return 0
    if not args.product:
        raise StoreError("name the product the run is official for (--product)")
    declared = declare_official(store, args.run_id, args.product, args.reason or "",
                                suite=args.suite)
    print(f"{declared.run_id} is the official run of {declared.product} on "
          f"{declared.suite} ({declared.reason})")
    if declared.condition:
        print(f"  condition registered {declared.condition['registered_utc']}: "
              f"{Condition(**declared.condition).describe()}")
    for passed in declared.passed_over:
        print(f"  passed over {passed['run_id']}: {passed['why']}")
    return 0


def _runs_of(store: Store, suite: str, product: str, chosen: Sequence[str]) -> list[str]:
    """The runs of ``product`` on ``suite``: those named, else every run on the suite
    version of the newest one."""
    if chosen:
        return [store.run(r).run_id for r in chosen]
    summaries = store.summaries(suite, product)
    if not summaries:
        raise StoreError(f"no stored run of {product} on {suite}")
    version = summaries[-1].suite_version
    return [s.run_id for s in summaries if s.suite_version == version]


def cmd_variation(args: argparse.Namespace) -> int:
    store = open_named_store(args)
    opts = {"resamples": args.resamples, "seed": args.seed}
    result: dict[str, Any] = {"suite": args.suite, "products": {}}
    within: dict[str, list[Any]] = {}
    latest: dict[str, list[dict[str, Any]]] = {}
    for product in args.products:
        runs = _runs_of(store, args.suite, product, args.runs if len(args.products) == 1
                        else ())
        records = [store.items(r, suite=args.suite, product=product) for r in runs]
        pairs = [{"a": runs[i], "b": runs[i + 1], **pair_runs(records[i], records[i + 1],
                                                              **opts)}
                 for i in range(len(runs) - 1)]
        within[product] = [p["comparison"] for p in pairs]
        latest[product] = records[-1]
        spread = score_spread(records)
        result["products"][product] = {"runs": runs, "pairs": pairs, "spread": spread}
    if len(args.products) == 2:
        a, b = args.products
        between = pair_runs(latest[a], latest[b], **opts)
        result["between"] = {"a": a, "b": b, **between, "beyond_own_variation":
                             beyond_variation(between["comparison"], within[a] + within[b])}
    if args.json:
        for entry in result["products"].values():
            entry["spread"].pop("per_item")
        _print_json(result)
        return 0
    for product, entry in result["products"].items():
        spread = entry["spread"]
        print(f"{args.suite} / {product}: {len(entry['runs'])} run(s)")
        for pair in entry["pairs"]:
            _print_pair(pair, f"{pair['b']} against {pair['a']}")
        if spread["suite_scores"]:
            scores = ", ".join(f"{s:.2f}" for s in spread["suite_scores"])
            print(f"  score per run on the {spread['shared_cases']} cases every run scored: "
                  f"{scores} (range {spread['suite_range']:.2f})")
        widest = spread["widest"]
        print(f"  cases whose score varies between runs: {spread['items_varying']} of "
              f"{spread['items']}" + (f" (widest range {widest['range']:.2f}: "
                                      f"{widest['case']})" if widest else ""))
    if "between" in result:
        between = result["between"]
        _print_pair(between, f"{between['b']} against {between['a']} (newest runs)")
        beyond = between["beyond_own_variation"]
        if beyond is None:
            print("  run-to-run variation unknown (a product needs two runs)")
        else:
            print(f"  larger than either product varies between its own runs "
                  f"(up to {beyond['own_variation']:.2f} points): "
                  f"{'yes' if beyond['beyond'] else 'no'}")
    return 0


def cmd_store_import(args: argparse.Namespace) -> int:
    store = open_named_store(args)
    for folder in args.folders:
        run_id = import_report_set(store, Path(folder), new_run_id())
        print(f"{folder}: recorded as run {run_id}")
    return 0


def add_commands(sub: Any) -> None:
    """Add the store's commands to the ``dictbench`` parser."""
    store_opt = argparse.ArgumentParser(add_help=False)
    store_opt.add_argument("--store", help="results store: a SQLite path or a "
                           "postgresql:// URL (default: $DICTBENCH_STORE, else the nearest "
                           f"{DEFAULT_STORE})")
    store_opt.add_argument("--json", action="store_true", help="print JSON")
    stats_opt = argparse.ArgumentParser(add_help=False)
    stats_opt.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES,
                           help="bootstrap resamples (default: %(default)s)")
    stats_opt.add_argument("--seed", type=int, default=DEFAULT_SEED,
                           help="bootstrap seed (default: %(default)s)")

    runs = sub.add_parser("runs", aliases=["history"], parents=[store_opt],
                          help="stored runs, oldest first")
    for name in ("suite", "product", "suite-version", "cohort", "commit"):
        runs.add_argument(f"--{name}", help=f"only runs with this {name.replace('-', ' ')}")
    runs.add_argument("--since", help="only runs finished on or after (UTC date or time)")
    runs.add_argument("--until", help="only runs finished on or before (UTC date or time)")
    runs.add_argument("--limit", type=int, help="the newest N only")
    runs.set_defaults(run=cmd_runs)

    show = sub.add_parser("show", parents=[store_opt], help="one stored run")
    show.add_argument("run_id", metavar="RUN", help="run id (or a unique prefix)")
    show.set_defaults(run=cmd_show)

    compare = sub.add_parser("compare", parents=[store_opt, stats_opt],
                             help="two stored runs, paired per suite and product")
    compare.add_argument("run_a", metavar="RUN_A", help="the earlier run (id or prefix)")
    compare.add_argument("run_b", metavar="RUN_B", help="the later run (id or prefix)")
    compare.set_defaults(run=cmd_compare)

    trend = sub.add_parser("trend", parents=[store_opt, stats_opt],
                           help="a product's score on a suite over the stored runs")
    trend.add_argument("suite", help="suite id")
    trend.add_argument("product", help="product name")
    trend.add_argument("--suite-version", help="only runs of this suite version")
    trend.add_argument("--cohort", help="only runs of this environment cohort")
    trend.add_argument("--figure", metavar="SVG", help="also draw the trend into this SVG "
                       "file (extra 'plot')")
    trend.set_defaults(run=cmd_trend)

    official = sub.add_parser("official", parents=[store_opt],
                              help="declare a run official, register a condition, or list")
    official.add_argument("run_id", metavar="RUN", nargs="?",
                          help="the run to declare official")
    official.add_argument("--product", help="the product the run is official for")
    official.add_argument("--suite", help="the suite (needed when the run has several)")
    official.add_argument("--reason", help="why this run (recorded with the declaration)")
    official.add_argument("--register", metavar="SUITE",
                          help="pre-register an official-run condition for SUITE")
    official.add_argument("--max-items", type=int, help="the condition: at most N items...")
    official.add_argument("--status", help="...with this status (e.g. error)")
    official.add_argument("--flag", help="...with this flag true in the output's metadata")
    official.add_argument("--note", help="a note kept with the condition")
    official.set_defaults(run=cmd_official)

    variation = sub.add_parser("variation", parents=[store_opt, stats_opt],
                               help="run-to-run variation of a product (or two)")
    variation.add_argument("suite", help="suite id")
    variation.add_argument("products", nargs="+", metavar="PRODUCT",
                           help="a product (two: their difference against their own "
                           "run-to-run variation)")
    variation.add_argument("--run", dest="runs", action="append", default=[],
                           help="a run to use (repeat; one product; default: every run on "
                           "the newest suite version)")
    variation.set_defaults(run=cmd_variation)

    store = sub.add_parser("store", help="the results store itself")
    store_sub = store.add_subparsers(dest="store_command", required=True)
    importing = store_sub.add_parser("import", parents=[store_opt],
                                     help="record existing report sets as runs")
    importing.add_argument("folders", nargs="+", metavar="REPORTS_DIR",
                           help="a report folder (dictbench.json, items.jsonl, run-info.json)")
    importing.set_defaults(run=cmd_store_import)
