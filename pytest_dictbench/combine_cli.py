"""``dictbench combine RUN RUN…``: one report set from runs of separate machines.

Checks the runs (``combine.check_runs``), writes each product's stored outputs as a
``cache`` product under ``--out``, then scores and reports them in one pytest run of
this checkout's suites, with the reports in ``--out/reports`` (and that run recorded in
the store like any other).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

from .combine import check_runs, write_cache_products
from .history import open_named_store

__all__ = ["add_parser", "cmd_combine"]


def cmd_combine(args: argparse.Namespace) -> int:
    store = open_named_store(args)
    try:
        runs, products = check_runs(store, args.runs)
        out = Path(args.out).resolve()
        write_cache_products(store, products, out / "products")
        suite_paths = sorted({r["suite_path"] for run in runs
                              for r in store.items(run.run_id) if r.get("suite_path")})
    finally:
        store.close()
    for product in products:
        print(f"{product.name}: outputs of run {product.run_id}")
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
            *(f"--product={p.name}" for p in products),
            "-o", f"dictbench_products={out / 'products'}",
            f"--dictbench-report={out / 'reports'}", "--dictbench-item-failures=report",
            *suite_paths]
    if args.no_run:
        print("score and report them with:\n  " + " ".join(argv[1:]))
        return 0
    return subprocess.run(argv, check=False).returncode


def add_parser(sub: Any) -> None:
    """Add ``dictbench combine`` to the ``dictbench`` parser."""
    combine = sub.add_parser("combine", help="one report set from stored runs of separate "
                             "machines (same suite versions, one environment cohort)")
    combine.add_argument("runs", nargs="+", metavar="RUN", help="run ids (or unique prefixes)")
    combine.add_argument("--store", help="results store: a SQLite path or a postgresql:// "
                         "URL (default: $DICTBENCH_STORE, else the nearest "
                         ".dictbench/store.sqlite)")
    combine.add_argument("--out", default="combined",
                         help="folder for the cache products and reports (default: %(default)s)")
    combine.add_argument("--no-run", action="store_true",
                         help="write the products and print the pytest command only (to add "
                         "pytest options of your own)")
    combine.set_defaults(run=cmd_combine)
