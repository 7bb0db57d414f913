"""The commands over the results store (docs/store.md)::

    dictbench runs                      stored runs (filters: suite, product, dates, commit)
    dictbench show RUN                  one run: its facts and suite scores
    dictbench compare RUN_A RUN_B       paired per suite and product, changed cases named
    dictbench trend SUITE PRODUCT       score per run with its interval, drops flagged
                                        (a sparkline; --figure FILE.svg draws it)
    dictbench official RUN --product P --reason "..."   declare the official run
    dictbench official --register SUITE --max-items N --flag F   pre-register a condition
    dictbench variation SUITE PRODUCT [PRODUCT2] [--last N]   run-to-run variation
    dictbench store import REPORTS_DIR  record an existing report set

The store is ``--store``, else ``$DICTBENCH_STORE``, else the nearest
``.dictbench/store.sqlite`` in this folder or one above it (where pytest records runs).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from .report.pipelines import scope_note
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
from .store.official import declare_official, now_utc, official_run_id
from .store.reportset import import_report_set
from .trend import sparkline, store_trend
from .variation import measure_variation, pair_runs, select_runs, shared_pairs

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
        _print_json({**run.as_dict(), "report": report, "official_runs": {
            f"{s['id']}/{e['product']}": official_run_id(store, s["id"], e["product"])
            for s in report.get("suites", []) for e in s.get("products", [])}})
        return 0
    print(f"run {run.run_id} ({run.source}), finished {run.finished_utc}")
    print(f"  commit {run.git_commit or '-'}{' (dirty tree)' if run.git_dirty else ''}, "
          f"pytest-dictbench {run.dictbench_version}, host {run.host or '-'}, "
          f"cohort {run.cohort or '-'}")
    if not run.complete:
        print(f"  stopped early: {run.stop_reason}")
    for suite in report.get("suites", []):
        for entry in suite.get("products", []):
            official = official_run_id(store, suite["id"], entry["product"])
            mark = "  OFFICIAL" if official == run.run_id else \
                f"  (official run: {official})" if official else ""
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


def _left_out(window: dict[str, Any]) -> str:
    """`` (the newest 2 of 3 complete runs; left out: 1 older run, r1)``, or ``""``."""
    left = window["left_out"]
    if not left:
        return ""
    which = window["left_out_oldest"] if left == 1 else \
        f"{window['left_out_oldest']} to {window['left_out_newest']}"
    return (f" (the newest {window['complete_runs'] - left} of {window['complete_runs']} "
            f"complete runs, --last {window['runs']}; left out: {left} older "
            f"run{'s' if left > 1 else ''}, {which})")


def cmd_variation(args: argparse.Namespace) -> int:
    store = open_named_store(args)
    if args.runs and len(args.products) == 1:
        runs, windows = {args.products[0]: [store.run(r).run_id for r in args.runs]}, {}
    else:
        chosen = {p: select_runs(store, args.suite, p, last=args.last) for p in args.products}
        runs = {p: c.runs for p, c in chosen.items()}
        windows = {p: c.window(args.last) for p, c in chosen.items()}
    result = measure_variation(store, args.suite, runs, resamples=args.resamples,
                               seed=args.seed)
    for product, window in windows.items():
        result["products"][product]["window"] = window
    if args.json:
        for entry in result["products"].values():
            entry["spread"].pop("per_item")
        _print_json(result)
        return 0
    for product, entry in result["products"].items():
        spread = entry["spread"]
        window = windows.get(product)
        print(f"{args.suite} / {product}: {len(entry['runs'])} run(s)"
              + (_left_out(window) if window else ""))
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
    scope = scope_note(result)  # above compare.ALL_PAIRS_UP_TO products: each vs the best
    if scope:
        print(f"{args.suite}: {scope}")
    for between in result["between"]:
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


def _window_size(text: str) -> int:
    """An argparse type: a whole number of runs, at least 1."""
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of runs (1 or more)")
    return int(text)


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
    chosen = variation.add_mutually_exclusive_group()
    chosen.add_argument("--run", dest="runs", action="append", default=[],
                        help="a run to use (repeat; one product; default: every complete "
                        "run on the newest suite version)")
    chosen.add_argument("--last", type=_window_size, metavar="N",
                        help="the newest N complete runs of each product only (the older "
                        "ones are counted and named)")
    variation.set_defaults(run=cmd_variation)

    store = sub.add_parser("store", help="the results store itself")
    store_sub = store.add_subparsers(dest="store_command", required=True)
    importing = store_sub.add_parser("import", parents=[store_opt],
                                     help="record existing report sets as runs")
    importing.add_argument("folders", nargs="+", metavar="REPORTS_DIR",
                           help="a report folder (dictbench.json, items.jsonl, run-info.json)")
    importing.set_defaults(run=cmd_store_import)
