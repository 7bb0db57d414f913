"""The report helper's intervals: indices drawn ahead, intervals drawn in the child while
the summary goes on, the same numbers bit for bit; and when the child fails or the
sizes differ, the interval is drawn here."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_item_store import METHOD, items, make_record, make_suite, phrase

from pytest_dictbench import stats
from pytest_dictbench.aggregate import StatsOptions, summarize
from pytest_dictbench.report import helper as report_helper
from pytest_dictbench.report.helper import ReportHelper

scores = st.lists(st.floats(min_value=0, max_value=100, allow_nan=False), min_size=1,
                  max_size=300)


@settings(max_examples=60, deadline=None)
@given(values=scores, resamples=st.integers(1, 400), seed=st.integers(0, 2**32 - 1))
def test_indices_drawn_ahead_give_the_same_interval_bit_for_bit(
        values: list[float], resamples: int, seed: int) -> None:
    draws = stats.draw_indices(len(values), resamples, seed)
    assert stats.mean_ci(values, resamples=resamples, seed=seed, draws=draws) == \
        stats.mean_ci(values, resamples=resamples, seed=seed)


def test_indices_drawn_for_another_size_or_seed_are_not_used() -> None:
    values = [10.0, 20.0, 70.0, 90.0]
    plain = stats.mean_ci(values, resamples=300, seed=7)
    for n, seed in ((5, 7), (4, 8)):
        assert stats.mean_ci(values, resamples=300, seed=7,
                             draws=stats.draw_indices(n, 300, seed)) == plain


def test_indices_are_held_in_two_bytes_up_to_65536_items() -> None:
    assert stats.draw_indices(1 << 16, 2, 1).nbytes == 2 * (1 << 16) * 2
    assert stats.draw_indices((1 << 16) + 1, 2, 1).nbytes == 2 * ((1 << 16) + 1) * 4
    with pytest.raises(ValueError, match="empty sample"):
        stats.draw_indices(0)


def test_the_child_draws_what_this_process_would(helper: ReportHelper) -> None:
    first, second = [50.0, 60.0, 75.0, 80.0, 99.0], [1.0, 2.0, 3.0]
    helper.predraw(len(first), 500, 11)  # used for the first, not for the second
    helper.prefetch(first, 500, 11)
    helper.prefetch(second, 500, 11)
    # answers come in order: asking for the second reads the first's on the way
    for values in (second, first):
        interval = stats.mean_ci(values, resamples=500, seed=11)
        assert helper.interval(values, 500, 11) == (interval.low, interval.high)
    assert helper.interval(first, 500, 11) is None  # taken once; never asked: None
    assert helper.interval([4.0], 500, 11) is None


def test_a_figure_asked_after_pending_intervals_gets_its_own_answer(
        helper: ReportHelper) -> None:
    pytest.importorskip("matplotlib")
    from pytest_dictbench.report import plots

    helper.prefetch([1.0, 5.0], 100, 2)
    comparisons = [{"a": "x", "b": "y", "mean_difference": 5.0,
                    "interval": {"low": 2.0, "high": 8.0}, "resolved": True}]
    ticket = helper.ask_figure("forest_svg", (comparisons, "f"))
    assert ticket is not None
    assert helper.figure(ticket) == plots.forest_svg(comparisons, "f")
    interval = stats.mean_ci([1.0, 5.0], resamples=100, seed=2)
    assert helper.interval([1.0, 5.0], 100, 2) == (interval.low, interval.high)


def test_predraws_stop_at_the_byte_budget(helper: ReportHelper,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_helper, "PREDRAW_BYTES", 1000)
    helper.predraw(100, 4, 1)  # 800 bytes
    helper.predraw(100, 4, 2)  # 800 more: over the budget, not asked
    helper.predraw(100, 4, 1)  # asked already
    assert list(helper._pending) == [("predraw", 100, 4, 1)]


def test_a_dead_child_means_intervals_drawn_here(helper: ReportHelper) -> None:
    helper.prefetch([1.0, 2.0], 100, 1)
    assert helper._child is not None
    process = helper._child.process
    process.kill()
    process.wait()
    assert helper.interval([1.0, 2.0], 100, 1) is None
    assert helper._child is None and not helper._pending
    helper.prefetch([1.0, 2.0], 100, 1)  # nothing is sent any more
    assert helper.interval([1.0, 2.0], 100, 1) is None


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(phrase, min_size=6, max_size=6), items, st.booleans())
def test_a_summary_with_the_helper_is_the_summary_without(
        helper: ReportHelper, references: list[str], generated: list[Any],
        predraw: bool) -> None:
    """Generated suites (errors, repetitions, three products): the same report with the
    intervals drawn in the child, with and without indices drawn ahead."""
    suite = make_suite(references)
    records = [make_record(suite, suite.cases[index], product, repetition, kind, text)
               for index, product, repetition, kind, text in generated]
    args = (records, {suite.id: suite}, {}, {"error_rate": METHOD}, {suite.id: {}})
    if predraw:
        for n in range(1, 7):
            helper.predraw(n, 200, 5)
    alone = summarize(*args, StatsOptions(resamples=200, seed=5))
    assert summarize(*args, StatsOptions(resamples=200, seed=5, intervals=helper)) == alone
    assert helper._child is not None  # nothing failed on the way
    assert helper._intervals == {}
