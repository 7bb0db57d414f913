"""The workbench's ``dictbench`` subcommands: draft, refine, review, publish, leak-check."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_commands"]


def cmd_draft(args: argparse.Namespace) -> int:
    from .draft import draft_suite

    result = draft_suite(Path(args.folder), Path(args.out), product=args.product,
                         products=Path(args.products), per_seconds=args.per_seconds,
                         locale=args.locale,
                         judge_config=Path(args.judge_config) if args.judge_config else None,
                         private=args.private, judge=args.judge,
                         progress=lambda line: print(line, flush=True))
    return _finish(result, f"{result.root}: {len(result.cases)} draft case(s); review them "
                           f"with 'dictbench review {result.root}'")


def cmd_refine(args: argparse.Namespace) -> int:
    from .draft import refine_suite

    result = refine_suite(Path(args.suite), per_seconds=args.per_seconds,
                          judge_config=Path(args.judge_config) if args.judge_config else None,
                          force=args.force)
    return _finish(result, f"{result.root}: key points drafted again for "
                           f"{len(result.refined)} changed case(s)"
                           f"{': ' + ', '.join(result.refined) if result.refined else ''}")


def _finish(result: Any, summary: str) -> int:
    """Print a drafting result's lines and ``summary``; exit 1 when it has problems."""
    for line in result.lines():
        print(line)
    print(summary)
    return 1 if result.failed else 0


def make_workbench(args: argparse.Namespace) -> Any:
    """The review session for ``args`` (suite, reports, judges, drafter, reviewer)."""
    from ..suites import MANIFEST, read_toml
    from .adjudicate import Adjudication
    from .draft import load_judge_table
    from .drafter import Drafter
    from .server import Workbench
    from .store import read_cases, suite_root

    root = suite_root(Path(args.suite))
    manifest = read_toml(root / MANIFEST)
    settings = None
    if args.judge_config:
        settings = load_judge_table(Path(args.judge_config))[1]
    elif isinstance(manifest.get("judge"), dict):
        from ..judge.settings import parse_judge_settings

        settings = parse_judge_settings(manifest["judge"], path=root / MANIFEST)
    drafter = Drafter.from_settings(settings, args.drafter_model) if settings else None
    meanings = _rule_meanings(str(manifest.get("method", "")))
    cases = {str(r.get("id")): r for r in read_cases(root).rows}
    aliases = {}
    if manifest.get("private") is True:  # reports name cases by their keyed hash
        from ..private import public_case_id
        from ..suites import load_suite

        suite = load_suite(root)
        aliases = {public_case_id(suite, case_id): case_id for case_id in cases}
    adjudication = Adjudication(str(manifest.get("id")), cases, Path(args.reports),
                                Path(args.judges), drafter, meanings, aliases=aliases,
                                products_dir=Path(args.products))
    return Workbench(root, adjudication, args.reviewer)


def _rule_meanings(method_name: str) -> dict[str, str]:
    from ..methods.builtin import builtin_methods

    for method in builtin_methods():
        if method.name == method_name:
            return dict(getattr(method, "rule_meanings", {}))
    return {}


def cmd_review(args: argparse.Namespace) -> int:
    from .server import make_server
    from .store import suite_warnings

    bench = make_workbench(args)
    server = make_server(bench, args.port)
    port = server.server_address[1]
    for warning in suite_warnings(bench.root):
        print(f"dictbench review: {warning}", file=sys.stderr)
    print(f"dictbench review: http://127.0.0.1:{port}/  (adjudication: "
          f"http://127.0.0.1:{port}/adjudicate)  Ctrl+C stops", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    from .publish import publish

    written = publish(Path(args.report_dir), Path(args.out_dir), force=args.force)
    for path in written:
        print(f"dictbench: wrote {path}")
    return 0


def cmd_leak_check(args: argparse.Namespace) -> int:
    from .leakcheck import leak_check

    skipped: list[int] = []
    findings = leak_check([Path(p) for p in args.paths], staged=args.staged,
                          suites=[Path(s) for s in args.suites], home=args.home,
                          everything=args.all, skipped=skipped)
    for finding in findings:
        print(finding.describe())
    if sum(skipped):
        print(f"dictbench leak-check: {sum(skipped)} file(s) that git ignores were not "
              "checked (--all checks them too)", file=sys.stderr)
    unreadable = sum(f.kind == "unreadable" for f in findings)
    if findings:
        print(f"dictbench leak-check: {len(findings)} finding(s)"
              + (f", {unreadable} file(s) not read" if unreadable else ""), file=sys.stderr)
        return 1
    print("dictbench leak-check: nothing found")
    return 0


def add_commands(sub: Any) -> None:
    """Register the workbench subcommands on the ``dictbench`` parser."""
    draft = sub.add_parser("draft", allow_abbrev=False,
                           help="a draft suite from a folder of recordings")
    draft.add_argument("folder", help="folder of recordings (any format soundfile reads)")
    draft.add_argument("--out", required=True, help="new suite folder, e.g. cases/NEW")
    draft.add_argument("--product", default="whisper-tiny",
                       help="product whose adapter transcribes (default: %(default)s)")
    draft.add_argument("--products", default="products", help="folder of product files")
    draft.add_argument("--per-seconds", type=float, default=15.0,
                       help="one key point per this many seconds of audio (at least 1 s; "
                       "at least 3 points, at most 60)")
    draft.add_argument("--locale", default="en-US", help="the suite's locale")
    draft.add_argument("--judge-config", help="TOML file with the [judge] table of the "
                       "model that drafts key points (copied into the suite)")
    draft.add_argument("--judge", choices=("live", "off"), default="live",
                       help="'live' drafts key points with the judge model (needs "
                       "--judge-config and its API key); 'off' drafts the transcripts only, "
                       "for key points written by hand in 'dictbench review' (default: "
                       "%(default)s)")
    draft.add_argument("--private", action="store_true", help="mark the suite private")
    draft.set_defaults(run=cmd_draft)

    refine = sub.add_parser("refine", allow_abbrev=False,
                            help="draft key points again for changed transcripts")
    refine.add_argument("suite", help="suite folder")
    refine.add_argument("--per-seconds", type=float, default=15.0,
                        help="one key point per this many seconds of audio (at least 1)")
    refine.add_argument("--force", action="store_true", help="also replace key points "
                        "edited by hand (the old ones are kept in drafted.previous_key_points)")
    refine.add_argument("--judge-config", help="TOML file with a [judge] table (default: "
                        "the suite's own)")
    refine.set_defaults(run=cmd_refine)

    review = sub.add_parser("review", allow_abbrev=False,
                            help="review page and adjudication view on 127.0.0.1")
    review.add_argument("suite", help="suite folder")
    review.add_argument("--port", type=int, default=0, help="port (default: any free one)")
    review.add_argument("--reports", default="reports", help="report folder of the last run")
    review.add_argument("--judges", default="judges", help="judge folder (adjudications.jsonl)")
    review.add_argument("--products", default="products", help="folder of product files")
    review.add_argument("--judge-config", help="TOML file with a [judge] table for drafting "
                        "decisions (default: the suite's own)")
    review.add_argument("--drafter-model", help="model that drafts decisions (default: the "
                        "first judge's)")
    review.add_argument("--reviewer", default=os.environ.get("DICTBENCH_REVIEWER")
                        or getpass.getuser(), help="name written as decided_by")
    review.set_defaults(run=cmd_review)

    publish = sub.add_parser("publish", allow_abbrev=False,
                             help="aggregate-only summary of a report folder")
    publish.add_argument("report_dir", help="report folder of a run (holds dictbench.json; "
                         "nothing else in it is read)")
    publish.add_argument("out_dir", help="folder to write summary.json and summary.md to "
                         "(empty or missing, or an earlier publish)")
    publish.add_argument("--force", action="store_true", help="write into a folder that "
                         "already holds other files (they are published too)")
    publish.set_defaults(run=cmd_publish)

    leak = sub.add_parser("leak-check", allow_abbrev=False,
                          help="find private data, secrets and home paths")
    leak.add_argument("paths", nargs="*", default=["."], help="files or folders (default: .)")
    leak.add_argument("--staged", action="store_true", help="check git's staged files")
    leak.add_argument("--all", action="store_true", help="also check files git ignores "
                      "(e.g. before copying a folder out, not only before a commit)")
    leak.add_argument("--suite", dest="suites", action="append", default=[],
                      help="a private suite to look for (default: every private suite "
                      "found under the paths, or in the work tree with --staged)")
    leak.add_argument("--home", default=str(Path.home()), help=argparse.SUPPRESS)
    leak.set_defaults(run=cmd_leak_check)
