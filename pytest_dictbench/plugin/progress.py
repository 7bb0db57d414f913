"""Progress of live captures, on the controller's terminal.

Each finished item of a live product brings its record to the controller (with or
without xdist); from those, at most every ``--dictbench-progress`` seconds and once when
a product is done, one line per product says how far it is::

    dictbench capture whisper-tiny: 12/24 items, 41.3 s audio, RTFx 2.6, about 50 s left

Only this run's captures count towards the audio, the RTFx (audio seconds / processing
seconds, as in the reports) and the time left; items
whose output came from the capture cache are counted apart (``24/24 items (0 captured,
24 cached), 0.0 s audio, done``), and so are items that got no output: an error, a
refusal, an unsupported input (``(0 captured, 0 cached, 24 without output)``); such items
print no line of their own until the product is done.

Lines go through the terminal reporter's ``write_line`` (on a line of their own, so
pytest's progress dots and ``-q`` summary stay intact).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from .session import CAPTURED_PROPERTY, RECORD_PROPERTY

__all__ = ["CaptureProgress", "ProductProgress", "format_seconds"]


@dataclass
class ProductProgress:
    """Running totals of one live product."""

    total: int = 0
    done: int = 0
    #: items whose output came from the capture cache (not captured in this run)
    cached: int = 0
    #: items that got no output (an error, a refusal, unsupported): neither captured nor
    #: cached
    without_output: int = 0
    audio_s: float = 0.0
    processing_s: float = 0.0
    started: float | None = None
    last_line: float | None = None

    def line(self, product: str, now: float) -> str:
        done = f"{self.done}/{self.total} items"
        captured = self.done - self.cached - self.without_output
        if self.without_output:
            done += (f" ({captured} captured, {self.cached} cached, "
                     f"{self.without_output} without output)")
        elif self.cached:
            done += f" ({captured} captured, {self.cached} cached)"
        parts = [done, f"{self.audio_s:.1f} s audio"]
        if self.audio_s > 0 and self.processing_s > 0:
            # RTFx, as the reports name it: audio seconds per processing second
            parts.append(f"RTFx {self.audio_s / self.processing_s:.1f}")
        if self.done >= self.total:
            parts.append("done")
        elif self.started is not None and captured > 0:
            left = (now - self.started) / captured * (self.total - self.done)
            parts.append(f"about {format_seconds(left)} left")
        return f"dictbench capture {product}: " + ", ".join(parts)


def format_seconds(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``, ``1 h 02 min``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class CaptureProgress:
    """Controller plugin: counts live products' items and writes progress lines."""

    def __init__(self, config: pytest.Config, live: Iterable[str], interval: float,
                 split: Callable[[str], str | None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.interval = interval
        self.split = split  # node id -> product name, or None
        self.clock = clock
        self.products = {name: ProductProgress() for name in live}

    def _count(self, nodeids: Sequence[str]) -> None:
        for entry in self.products.values():
            entry.total = 0
        for nodeid in nodeids:
            product = self.split(nodeid)
            if product in self.products:
                self.products[product].total += 1

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._count([item.nodeid for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: Sequence[str]) -> None:
        if not any(entry.total for entry in self.products.values()):
            self._count(ids)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Runs before the session takes the record off the teardown report."""
        if report.when != "teardown":
            return
        product = self.split(report.nodeid)
        entry = self.products.get(product) if product else None
        blobs = [v for k, v in report.user_properties if k == RECORD_PROPERTY]
        if entry is None or not blobs:
            return
        record = json.loads(blobs[-1])
        now = self.clock()
        entry.done += 1
        # an item that got no output is neither captured nor cached (CF4); a cached
        # output's latency is not this run's work
        no_output = record.get("status") == "error" or \
            record.get("output_status") not in (None, "complete")
        if no_output or not any(k == CAPTURED_PROPERTY for k, _ in report.user_properties):
            if no_output:
                entry.without_output += 1
            else:
                entry.cached += 1
            if entry.done == entry.total:
                entry.last_line = now
                self._write(entry.line(product, now))
            return
        if entry.started is None:
            entry.started = now - (record.get("latency_ms") or 0) / 1000.0
        if record.get("audio_duration_s") and record.get("latency_ms") is not None:
            entry.audio_s += record["audio_duration_s"]
            entry.processing_s += record["latency_ms"] / 1000.0
        due = entry.last_line is None or now - entry.last_line >= self.interval
        if due or entry.done == entry.total:
            entry.last_line = now
            self._write(entry.line(product, now))

    def _write(self, line: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        if reporter._tw.width_of_current_line:  # after -q's progress dots
            reporter._tw.line()
        reporter.write_line(line)
