"""The settle rule and the live timings over scripted snapshot streams (no desktop)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_dictbench.adapters.desktop.settle import SettleRule, Snapshot, settle, timings

RIG = SettleRule(stable_s=2, max_wait_s=10, empty_wait_s=2)


def stream(*steps: tuple[float, str]) -> list[Snapshot]:
    return [Snapshot(at, text) for at, text in steps]


def polled(shots: list[Snapshot], every: float, until: float) -> list[Snapshot]:
    """What a reader polling every ``every`` s sees of ``shots`` (a change stream)."""
    out, t, i, text = [], 0.0, 0, ""
    while t <= until:
        while i < len(shots) and shots[i].at <= t:
            text, i = shots[i].text, i + 1
        out.append(Snapshot(round(t, 6), text))
        t += every
    return out


def test_bursts_settle_stable_s_after_the_last_burst() -> None:
    shots = stream((0, ""), (4.2, "The quick"), (4.9, "The quick brown"),
                   (6.0, "The quick brown fox."))
    assert settle(shots, audio_end=4.0, now=7.9, rule=RIG).state == "waiting"
    verdict = settle(shots, audio_end=4.0, now=8.0, rule=RIG)
    assert (verdict.state, verdict.text) == ("settled", "The quick brown fox.")
    assert (verdict.first_text_at, verdict.final_text_at, verdict.settled_at) == (4.2, 6.0, 8.0)
    assert verdict.changes == 3


def test_delete_and_retype_counts_from_the_retyped_text() -> None:
    shots = stream((0, ""), (3.0, "their"), (3.5, "the"), (3.6, ""), (5.0, "there"))
    verdict = settle(shots, audio_end=4.0, now=7.0, rule=RIG)
    assert (verdict.state, verdict.text, verdict.final_text_at) == ("settled", "there", 5.0)
    assert verdict.first_text_at == 3.0


def test_flicker_waits_for_the_last_flip() -> None:
    flips = [(4.0 + 0.3 * k, "on" if k % 2 == 0 else "") for k in range(8)]  # last at 6.1: ""
    shots = stream((0, ""), *flips, (6.4, "on"))
    assert settle(shots, audio_end=4.0, now=8.3, rule=RIG).state == "waiting"
    verdict = settle(shots, audio_end=4.0, now=8.4, rule=RIG)
    assert (verdict.state, verdict.text, verdict.final_text_at) == ("settled", "on", 6.4)


def test_text_before_the_audio_ends_still_waits_stable_s_after_the_end() -> None:
    shots = stream((0, ""), (1.0, "early"))
    assert settle(shots, audio_end=4.0, now=5.9, rule=RIG).state == "waiting"
    assert settle(shots, audio_end=4.0, now=6.0, rule=RIG).settled_at == 6.0


def test_nothing_arrived_is_empty_after_the_wait() -> None:
    shots = stream((0, ""), (5.0, ""))
    assert settle(shots, audio_end=4.0, now=5.9, rule=RIG).state == "waiting"
    verdict = settle(shots, audio_end=4.0, now=6.0, rule=RIG)
    assert (verdict.state, verdict.text, verdict.first_text_at) == ("empty", "", None)
    longer = SettleRule(stable_s=2, max_wait_s=10)  # the default: 10 s for the first text
    assert settle(shots, audio_end=4.0, now=13.9, rule=longer).state == "waiting"
    assert settle(shots, audio_end=4.0, now=14.0, rule=longer).state == "empty"


def test_text_typed_then_deleted_is_empty() -> None:
    shots = stream((0, ""), (4.5, "uh"), (4.8, ""))
    verdict = settle(shots, audio_end=4.0, now=6.8, rule=RIG)
    assert (verdict.state, verdict.first_text_at) == ("empty", 4.5)


def test_text_changing_past_max_wait_times_out_with_the_last_text() -> None:
    shots = stream((0, ""), *((4.0 + k, "x" * (k + 1)) for k in range(12)))
    verdict = settle(shots, audio_end=4.0, now=14.0, rule=RIG)
    assert (verdict.state, verdict.text, verdict.settled_at) == ("timeout", "x" * 11, 14.0)
    assert verdict.final_text_at == 14.0


def test_a_change_that_settles_after_the_deadline_is_a_timeout() -> None:
    shots = stream((0, ""), (13.0, "late"))
    assert settle(shots, audio_end=4.0, now=14.0, rule=RIG).state == "timeout"


def test_focus_lost_after_start_voids_the_item() -> None:
    shots = [Snapshot(0, ""), Snapshot(4.1, "hel"), Snapshot(4.2, "hel", focused=False),
             Snapshot(4.3, "hello")]
    verdict = settle(shots, audio_end=4.0, now=9, rule=RIG)
    assert (verdict.state, verdict.focus_lost_at, verdict.text) == ("focus_lost", 4.2, "hel")


def test_focus_before_start_does_not_count() -> None:
    shots = [Snapshot(0, "", focused=False), Snapshot(1.0, ""), Snapshot(4.5, "hi")]
    assert settle(shots, audio_end=4.0, now=7, rule=RIG, start=1.0).state == "settled"


def test_initial_text_of_the_document_is_not_first_text() -> None:
    shots = stream((0, "draft"), (5.0, "draft ok"))
    verdict = settle(shots, audio_end=4.0, now=7.0, rule=RIG)
    assert (verdict.first_text_at, verdict.text) == (5.0, "draft ok")


def test_timings_from_the_first_audible_sample() -> None:
    shots = stream((0, ""), (4.25, "a"), (5.125, "ab"))
    verdict = settle(shots, audio_end=4.0, now=8.0, rule=RIG)
    assert timings(verdict, first_audible_at=1.5, audio_end=4.0) == {
        "first_text_s": 2.75, "final_text_s": 3.625, "settled_after_audio_s": 3.125}
    assert timings(settle(stream((0, "")), audio_end=4.0, now=7.0, rule=RIG), 1.5, 4.0) == {
        "first_text_s": None, "final_text_s": None, "settled_after_audio_s": 2.0}


@pytest.mark.parametrize(("stable", "wait"), [(0, 10), (2, 0), (5, 2), (2, -1)])
def test_bad_rules_are_refused(stable: float, wait: float) -> None:
    with pytest.raises(ValueError, match=r"must be|shorter"):
        SettleRule(stable_s=stable, max_wait_s=wait, empty_wait_s=10 if wait != -1 else -1)


changes = st.lists(st.tuples(st.floats(0, 30, allow_nan=False),
                             st.sampled_from(["", "a", "ab", "b"])), max_size=12)


@given(changes, st.floats(0, 20, allow_nan=False))
def test_a_decision_depends_only_on_what_was_read(steps: list[tuple[float, str]],
                                                   audio_end: float) -> None:
    """The first decision is never taken back by reading later without new snapshots;
    a settled text is the last text read, unchanged from its last change, at least
    ``stable_s`` after it and after the audio's end, and within ``max_wait_s``."""
    shots = [Snapshot(0.0, ""), *sorted((Snapshot(at, text) for at, text in steps),
                                        key=lambda s: s.at)]
    for k in range(400):
        now = k * 0.1
        verdict = settle(shots, audio_end=audio_end, now=now, rule=RIG)
        if verdict.state == "waiting":
            continue
        read = [s for s in shots if s.at <= now]
        for later in (now + 0.05, now + 7, now + 100):
            assert settle(read, audio_end=audio_end, now=later, rule=RIG) == verdict
        assert verdict.text == read[-1].text
        assert verdict.settled_at is not None and verdict.settled_at <= now + 1e-9
        assert verdict.settled_at <= audio_end + RIG.max_wait_s + 1e-9
        if verdict.state == "settled":
            assert verdict.settled_at >= audio_end + RIG.stable_s - 1e-9
            assert verdict.final_text_at is not None
            assert verdict.settled_at >= verdict.final_text_at + RIG.stable_s - 1e-9
            assert all(s.text == verdict.text for s in read if s.at > verdict.final_text_at)
        break


@given(st.lists(st.tuples(st.floats(0.06, 1.0), st.text("ab ", max_size=4)), max_size=10))
def test_polling_finds_the_same_final_text_as_the_change_stream(
        bursts: list[tuple[float, str]]) -> None:
    """Reading every 50 ms gives the change stream's verdict and final text, decided
    within one poll after the exact decision, when no text lasts less than one poll
    (a shorter flicker can be missed by any reader that polls)."""
    at, shots = 0.0, [Snapshot(0.0, "")]
    for gap, text in bursts:
        at += gap
        shots.append(Snapshot(round(at, 6), text))
    exact = settle(shots, audio_end=0.5, now=at + 5, rule=RIG)
    seen = polled(shots, 0.05, at + 5)
    verdict = settle(seen, audio_end=0.5, now=at + 5, rule=RIG)
    assert (verdict.state, verdict.text) == (exact.state, exact.text)
    if exact.settled_at is not None and verdict.settled_at is not None:
        assert 0 <= verdict.settled_at - exact.settled_at <= 0.05 + 1e-6


def test_the_tap_dates_samples_by_their_count_not_by_a_late_read() -> None:
    from pytest_dictbench.adapters.desktop.pulse import SampleClock

    clock = SampleClock(100)  # 100 samples a second: sample i of the stream at start + i/100
    assert clock.add(10, now=1.10) == pytest.approx(1.00)  # samples 0-9 came at 1.00-1.09
    # read 0.15 s late (a loaded machine): samples 10-19 still came at 1.10, not 1.25
    assert clock.add(10, now=1.35) == pytest.approx(1.10)
    assert clock.add(30, now=1.50) == pytest.approx(1.20)  # a backlog of 30, read at once
    # a read on time shows the stream began a little earlier: every later date follows
    assert clock.add(10, now=1.595) == pytest.approx(1.495)
    assert clock.start == pytest.approx(0.995)
