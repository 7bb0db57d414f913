"""The report side of a run's state: the report files, the exported results, the gate
verdicts and problems as test results, and the terminal summary (the controller only).

:class:`ReportSet` is a base of ``session.DictbenchSession``; the state it reads is set up
there.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from .. import __version__
from ..errors import DictbenchError
from ..files import atomic_write
from ..judge.adjudications import PENDING_FILE
from ..model import Product, Suite
from ..private import is_private
from ..redact import public_args
from ..report.by_suite import records_by_suite
from ..report.files import dumps, write_report_set
from ..report.helper import ReportHelper
from ..report.html import Expected, render_html
from ..report.html_figures import FigureRequests
from ..report.items import ItemStore
from ..report.markdown import render_markdown
from ..report.sections import expected_texts
from ..report.terminal import baseline_line, summary_lines
from ..rig.results import export_csv
from ..text.japanese import analyser_info
from .gate import Gating
from .judge import Judging
from .junit import session_result
from .report_hooks import generate_report, update_report
from .split import PLUGIN_NAME as SPLIT_PLUGIN
from .store import HISTORY_FILES, StoreRecording
from .terminate import RunTerminated, Termination
from .unrun import stop_reason

__all__ = ["REPORT_FILES", "ReportSet"]

#: Every file a run writes into the report folder (one set: all new or all old).
REPORT_FILES = ("dictbench.json", "items.jsonl", PENDING_FILE, "dictbench.md",
                "dictbench.html", "run-info.json", *HISTORY_FILES)


class ReportSet:
    """Builds and writes the report set, and prints the summary."""

    config: pytest.Config
    gating: Gating
    judging: Judging
    problems: list[str]
    report: dict[str, Any] | None
    written: list[Path]
    item_failures: str
    worker_drafts: dict[str, int]
    _suites: dict[Path, Suite]
    report_helper: ReportHelper | None
    figure_helper: ReportHelper | None
    recording: StoreRecording | None
    records: ItemStore
    termination: Termination
    report_dir: Path
    products: tuple[Product, ...]

    def _draft_counts(self) -> dict[str, int]:
        raise NotImplementedError

    def _write_reports(self, session: pytest.Session, unrun: list[str]) -> None:
        recording, stopped = self.recording, stop_reason(session) if unrun else ""
        if recording is not None:
            recording.prepare()
        records = self.records.records()
        run_info = dumps(self._run_info()) + "\n"
        # the lines exactly as the items wrote them, streamed from the spool in order
        files: dict[str, str | Iterator[str]] = {"items.jsonl": self.records.lines()}

        def made(report_text: str) -> None:  # a recorder child writes while pages are drawn
            if recording is not None:
                recording.begin(report_text, run_info, records, self.records.places,
                                list(self._suites.values()), self.products,
                                exit_status=session.exitstatus, stop_reason=stopped)
        try:
            with self.termination.interruptible():  # a slow build is stopped by a signal
                files.update(self._report_files(session, records, made))
        except RunTerminated:
            session.exitstatus = pytest.ExitCode.INTERRUPTED
            self.problems.append(f"{self.termination.message()} while the reports were "
                                 "built; only items.jsonl and run-info.json were written")
        except Exception as exc:  # a plugin hook or renderer failed: keep the items
            self.problems.append(f"building the reports failed ({_describe(exc)}); "
                                 "only items.jsonl and run-info.json were written")
        files["run-info.json"] = run_info
        stale = [name for name in REPORT_FILES if name not in files]
        try:
            write_report_set(self.report_dir, files, remove=stale)
        except DictbenchError as exc:
            self.problems.append(str(exc))
        else:
            self.written = [self.report_dir / name for name in files]
        if recording is not None and self.written:
            problem = recording.record(
                self.report_dir, files, records, list(self._suites.values()), self.products,
                exit_status=session.exitstatus, stop_reason=stopped)
            if problem:
                self.problems.append(problem)
        self._export_results(records)
        self._report_results(session, records)

    def _export_results(self, records: Sequence[Mapping[str, Any]]) -> None:
        """``--dictbench-results-out``: rig items as the methodology's 28-column CSV."""
        results_out = self.config.getoption("dictbench_results_out", None)
        if not results_out:
            return
        path = (self.config.invocation_params.dir / results_out).resolve()
        try:
            atomic_write(path, export_csv(records))
        except (DictbenchError, OSError) as exc:
            self.problems.append(f"cannot write the results CSV {path}: {exc}")
        else:
            self.written.append(path)

    def _report_files(self, session: pytest.Session, records: Sequence[Mapping[str, Any]],
                      made: Callable[[str], None]) -> dict[str, str]:
        """The report files of the run by name (besides items.jsonl and run-info.json);
        ``made`` gets the text of ``dictbench.json`` before the pages are drawn."""
        report = generate_report(self.config, records, self.problems)
        split = self.config.pluginmanager.get_plugin(SPLIT_PLUGIN)
        self.gating.apply(records, report, [p.name for p in self.products],
                          split=split.record() if split is not None else None)
        report = update_report(self.config, report, self.problems)
        self.report = report
        files = {"dictbench.json": dumps(report) + "\n"}
        made(files["dictbench.json"])
        pending = "".join(dumps(p, indent=None) + "\n" for r in records
                          for p in r.get("pending", ()))
        if pending:  # nothing pending: no file, and an old pending list is removed
            files[PENDING_FILE] = pending
        # without judging this run, an old pending list is removed with the stale files
        expected = expected_texts(s for s in self._suites.values() if not is_private(s))
        files["dictbench.md"], files["dictbench.html"] = self._pages(report, records, expected)
        return files

    def _pages(self, report: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
               expected: Expected) -> tuple[str, str]:
        """The Markdown and HTML pages; with report helpers, the HTML page's figures are
        drawn by them, side by side, while the Markdown page is written."""
        helpers = [h for h in (self.report_helper, self.figure_helper) if h is not None]
        by_suite = records_by_suite(report, records)  # read by both pages
        if not helpers:
            return (render_markdown(report, records, expected, by_suite=by_suite),
                    render_html(report, records, expected, by_suite=by_suite))
        figures = FigureRequests(helpers)
        page = render_html(report, records, expected, drawer=figures, by_suite=by_suite)
        return render_markdown(report, records, expected, by_suite=by_suite), figures.fill(page)

    def _report_results(self, session: pytest.Session,
                        records: Sequence[Mapping[str, Any]]) -> None:
        """Gate verdicts and problems as test results of their own; fail the run on any."""
        results = self.gating.results(records)
        results += [(f"dictbench::session-end-{i}", "dictbench", "dictbench session end",
                     problem) for i, problem in enumerate(self.problems, start=1)]
        # counted in pytest's collected total, so its progress column, which counts
        # these results too, ends at 100 % (CF18); pytest's exit status is decided by now
        session.testscollected += len({nodeid for nodeid, *_ in results})
        for nodeid, path, title, failure in results:
            for report in session_result(nodeid, path, title, failure):
                self.config.hook.pytest_runtest_logreport(report=report)
        if (self.gating.failures or self.problems) and \
                session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _run_info(self) -> dict[str, Any]:
        """Facts that change between identical runs; kept out of ``dictbench.json``."""
        return {
            "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "host": platform.node(),
            "python": platform.python_version(),
            "pytest": pytest.__version__,
            "pytest_dictbench": __version__,
            "args": public_args(self.config.invocation_params.args),
            "workers": getattr(self.config.option, "numprocesses", None),
            "judge": {"mode": self.judging.mode, "calls": self.judging.calls,
                      "cache_hits": self.judging.cache_hits},
            # what Japanese words, names and numbers were cut with (the gate compares it)
            "analyser": analyser_info(),
        }

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        drafts = sum({**self.worker_drafts, **self._draft_counts()}.values())
        if drafts:
            terminalreporter.write_line(f"dictbench: {drafts} draft case"
                                        f"{'' if drafts == 1 else 's'} not collected")
        if self.report is None:
            for failure in self.gating.failures:
                terminalreporter.write_line(f"dictbench gate FAILED: {failure}", red=True,
                                            bold=True)
            for problem in self.problems:
                terminalreporter.write_line(f"dictbench ERROR: {problem}", red=True, bold=True)
            return
        terminalreporter.write_sep("=", "dictbench summary")
        for line in summary_lines(self.report):
            terminalreporter.write_line(line)
        for comparison in self.report.get("baseline", {}).get("comparisons", []):
            terminalreporter.write_line(baseline_line(comparison, self.gating.options.max_drop
                                                      if self.gating.options else None))
        if self.item_failures == "report":
            entries = [e for s in self.report["suites"] for e in s["products"]]
            below = sum(e["failed"] for e in entries)
            if below:  # pytest's count says "passed" for them: say how many were below
                terminalreporter.write_line(
                    f"dictbench: {below} of {sum(e['items'] for e in entries)} items below "
                    "their method's gate were reported, not failed "
                    "(--dictbench-item-failures=report)")
        for note in self.gating.notes:  # a drop above max-drop let through, said so
            terminalreporter.write_line(f"dictbench gate note: {note}", yellow=True)
        for failure in self.gating.failures:
            terminalreporter.write_line(f"dictbench gate FAILED: {failure}", red=True, bold=True)
        passed = [f"{v['suite']}/{v['product']}" for v in self.gating.verdicts if v["passed"]]
        if passed and not self.gating.failures and self.gating.options is not None:
            terminalreporter.write_line(
                f"dictbench gate passed: {', '.join(passed)} "
                f"({self.report.get('gate', {}).get('settings', '')})", green=True)
        for problem in self.problems:
            terminalreporter.write_line(f"dictbench ERROR: {problem}", red=True, bold=True)
        for path in self.written:
            terminalreporter.write_line(f"dictbench: wrote {path}")
        stored = self.recording.summary_line() if self.recording is not None else None
        if stored:
            terminalreporter.write_line(stored)


def _describe(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, DictbenchError) else f"{type(exc).__name__}: {exc}"
