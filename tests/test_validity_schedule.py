"""Run order checks on hand-built schedules."""

from __future__ import annotations

from datetime import datetime, timedelta

from pytest_dictbench.rig.schedule import (
    BlockAttempt,
    RunRow,
    assign_attempts,
    check_schedule,
    selective_reruns,
)

ORDERS = {"block_1": ["a", "b"], "block_2": ["b", "a"], "block_3": ["a", "b"]}
FIXTURES = ["f1", "f2"]
T0 = datetime(2026, 11, 2, 9, 0)


def _rows(starts: dict[str, datetime], order: dict[str, list[str]] = ORDERS,
          path: str = "on_device") -> list[RunRow]:
    """Each block: products in ``order``, each running f1 then f2, 10 minutes a row."""
    rows = []
    for block, start in starts.items():
        rep = int(block.split("_")[1])
        t = start
        for app in order[block]:
            for fixture in FIXTURES:
                rows.append(RunRow(f"{app}-{fixture}-{rep}", app, fixture, rep, "complete",
                                   t, path))
                t += timedelta(minutes=10)
    return rows


GOOD = {"block_1": T0, "block_2": T0 + timedelta(hours=6),
        "block_3": T0 + timedelta(days=1)}


def test_a_schedule_that_follows_the_protocol_has_no_violation() -> None:
    assert check_schedule(_rows(GOOD), ORDERS, FIXTURES) == []


def test_block_order_violation_names_each_product_out_of_place() -> None:
    swapped = dict(ORDERS, block_2=["a", "b"])
    found = check_schedule(_rows(GOOD, swapped), ORDERS, FIXTURES)
    assert [(v.app_id, v.kind, v.message) for v in found] == [
        ("a", "block_order", "block_2: started before b; the frozen order is b > a"),
        ("b", "block_order", "block_2: started after a; the frozen order is b > a"),
    ]
    assert not any(v.blocks_rank for v in found)


def test_products_starting_at_the_same_moment_are_in_order() -> None:
    rows = [RunRow(f"{app}-f1-1", app, "f1", 1, "complete", T0) for app in ("b", "a")]
    assert check_schedule(rows, ORDERS, ["f1"]) == []


def test_fixture_order_blocks_too_close_and_one_day() -> None:
    rows = _rows({"block_1": T0, "block_2": T0 + timedelta(hours=3),
                  "block_3": T0 + timedelta(hours=8)})
    # block_1 ends at 09:30, block_2 starts 12:00 (2.5 h), ends 12:30; block_3 at 17:00.
    rows = [r if r.run_id != "a-f1-3" else RunRow("a-f1-3", "a", "f1", 3, "complete",
                                                   T0 + timedelta(hours=8, minutes=15))
            for r in rows]
    found = {(v.app_id, v.kind, v.message) for v in check_schedule(rows, ORDERS, FIXTURES)}
    assert found == {
        ("a", "block_spacing", "block_2 started 2 h 30 min after block_1 ended (at least 4 h)"),
        ("b", "block_spacing", "block_2 started 2 h 30 min after block_1 ended (at least 4 h)"),
        ("a", "calendar_days", "all blocks ran on one calendar day (at least two)"),
        ("b", "calendar_days", "all blocks ran on one calendar day (at least two)"),
        ("a", "fixture_order", "block_3: f2 ran before f1"),
    }


def test_overlapping_blocks_say_so() -> None:
    # block_1 runs 09:00-09:30; block_2 starts 09:12, 0.30 h before block_1 ended
    rows = _rows({"block_1": T0, "block_2": T0 + timedelta(minutes=12)},
                 {"block_1": ["a", "b"], "block_2": ["b"]})
    found = [v.message for v in check_schedule(rows, ORDERS, FIXTURES)
             if v.kind == "block_spacing"]
    assert found == ["block_2 started 18 min before block_1 ended (the blocks overlap; at "
                     "least 4 h apart)"] * 2


def test_products_outside_seven_calendar_days_are_not_rankable() -> None:
    starts = dict(GOOD, block_3=datetime(2026, 11, 8, 23, 0))  # day 7: inside
    assert check_schedule(_rows(starts), ORDERS, FIXTURES) == []
    starts = dict(GOOD, block_3=datetime(2026, 11, 8, 23, 35))  # b ends 00:05
    found = check_schedule(_rows(starts), ORDERS, FIXTURES)
    assert [(v.app_id, v.kind, v.blocks_rank) for v in found] == [("b", "seven_days", True)]
    assert found[0].message == ("ran on 2026-11-09, outside the seven calendar days "
                                "2026-11-02 to 2026-11-08")


def test_not_tested_and_blank_rows_do_not_take_part() -> None:
    rows = [*_rows(GOOD), RunRow("late", "a", "f1", 1, "not_tested", T0 + timedelta(days=30))]
    assert check_schedule(rows, ORDERS, FIXTURES) == []


def test_cloud_blocks_need_network_measurements() -> None:
    rows = _rows(GOOD, path="vendor_cloud")
    attempts = [BlockAttempt("block_1", 1, T0 - timedelta(minutes=5), network_measured=True),
                BlockAttempt("block_2", 1, GOOD["block_2"], network_measured=False),
                BlockAttempt("block_3", 1, GOOD["block_3"], network_measured=True)]
    found = check_schedule(rows, ORDERS, FIXTURES, attempts)
    assert {(v.app_id, v.kind) for v in found} == {("a", "network"), ("b", "network")}
    assert found[0].message == ("block_2: cloud processing path (vendor_cloud) but no network "
                                "measurement at the block's start and end")


def test_rows_belong_to_the_latest_attempt_started_before_them() -> None:
    rows = _rows(GOOD)
    first = BlockAttempt("block_1", 1, T0 - timedelta(minutes=1))
    second = BlockAttempt("block_1", 2, T0 + timedelta(minutes=15))
    assigned = assign_attempts(rows, [first, second])
    assert assigned["a-f1-1"] == first and assigned["a-f2-1"] == first
    assert assigned["b-f1-1"] == second  # 09:20
    assert "a-f1-2" not in assigned
    assert second.key == "block_1#2" and first.key == "block_1"


def test_selective_rerun_after_a_failed_calibration_is_flagged() -> None:
    rows = _rows(GOOD)
    rerun_at = T0 + timedelta(hours=2)
    rows += [RunRow("a-f1-1b", "a", "f1", 1, "complete", rerun_at),
             RunRow("a-f2-1b", "a", "f2", 1, "complete", rerun_at + timedelta(minutes=10))]
    attempts = [BlockAttempt("block_1", 1, T0 - timedelta(minutes=1)),
                BlockAttempt("block_1", 2, rerun_at - timedelta(minutes=1))]
    found = selective_reruns(rows, attempts, invalid={"block_1"})
    assert [(v.app_id, v.kind, v.blocks_rank) for v in found] == [
        ("a", "selective_rerun", True)]
    assert found[0].message == ("block_1#2 reran only a after block_1 failed calibration "
                                "(not rerun: b)")
    assert selective_reruns(rows, attempts, invalid=set()) == []


def test_a_gap_just_under_the_limit_is_shown_unrounded() -> None:
    # R41: 3 h 59 min 59 s used to print as "4.00 h" beside "at least 4 h"
    from datetime import timedelta

    from pytest_dictbench.rig.schedule import _hours

    assert _hours(timedelta(hours=3, minutes=59, seconds=59)) == "3 h 59 min 59 s"
    assert _hours(timedelta(hours=2, minutes=30)) == "2 h 30 min"
    assert _hours(timedelta(seconds=0)) == "0 s"
