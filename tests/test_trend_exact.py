"""``dictbench trend`` answers fast without changing a number (issue 42): the drops it
flags, and each drop's comparison, are those of the slow path that compares every fall
item by item (``compare.compare_records`` over the stored item records, a fresh
bootstrap each); the shared bootstrap draws give every interval bit for bit. On SQLite
and PostgreSQL."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from store_support import put, record, store_url

from pytest_dictbench import stats
from pytest_dictbench.compare import compare_records
from pytest_dictbench.store import open_store
from pytest_dictbench.store import schema as t
from pytest_dictbench.trend import store_trend

RESAMPLES, SEED = 2000, 11


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from store_url(request.param, tmp_path)


def _runs(seed: int) -> list[list[dict]]:
    """30 runs of 80 cases: noise on a few cases each run, resolved drops planted at
    runs 7, 15 and 24 (every case down), a run with a case missing, one with
    repetitions and one with a provisional item."""
    rng = random.Random(seed)
    scores = [rng.uniform(40, 100) for _ in range(80)]
    runs = []
    for n in range(30):
        for i in rng.sample(range(80), 6):
            scores[i] = min(100.0, max(0.0, scores[i] + rng.gauss(-1, 8)))
        if n in (7, 15, 24):
            scores = [max(0.0, s - rng.uniform(5, 15)) for s in scores]
        records = [record(f"c{i:02d}", round(s, 3)) for i, s in enumerate(scores)]
        if n == 11:
            records = records[1:]
        if n == 19:
            records += [record("c05", round(scores[5] - 20, 3), repetition=2),
                        record("c05", round(scores[5] - 9, 3), repetition=3)]
        if n == 21:
            records[3] = {**records[3], "provisional": 1}
        runs.append(records)
    return runs


def test_trend_drops_equal_the_slow_path(url: str) -> None:
    store = open_store(url)
    for n, records in enumerate(_runs(5)):
        put(store, f"run{n:02d}", records, finished=f"2026-12-01T00:{n:02d}:00Z")
    # a run recorded before the store kept case scores: read from its items
    with store.backend.engine.begin() as conn:
        conn.execute(t.case_scores.delete().where(t.case_scores.c.run.in_(
            t.runs.select().with_only_columns(t.runs.c.id).where(
                t.runs.c.run_id == "run16").scalar_subquery())))
    assert "run16" not in store.case_scores("s1", "p1", ["run16", "run17"])
    points = store_trend(store, "s1", "p1", resamples=RESAMPLES, seed=SEED)
    slow = {}
    for before, now in itertools.pairwise(points):
        if now["score"] < before["score"]:
            comparison = compare_records(store.items(before["run_id"]),
                                         store.items(now["run_id"]),
                                         resamples=RESAMPLES, seed=SEED)
            if comparison is not None and comparison["interval"]["high"] < 0:
                slow[now["run_id"]] = comparison
    fast = {p["run_id"]: p["drop"] for p in points if p["drop"]}
    assert {"run07", "run15", "run24"} <= set(slow)  # the planted drops are there
    assert len(slow) < 29  # and the noise is not all flagged
    assert fast == slow  # every number the same, bit for bit


@st.composite
def samples(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Two runs' scores of the same cases, some of them changed."""
    n = draw(st.integers(1, 120))
    grid = draw(st.booleans())  # discrete scores: many tied resample means
    value = st.sampled_from([0.0, 25.0, 50.0, 100.0]) if grid else \
        st.floats(0, 100, allow_nan=False)
    before = np.array(draw(st.lists(value, min_size=n, max_size=n)))
    after = before.copy()
    changed = draw(st.lists(st.integers(0, n - 1), max_size=n))
    for i in changed:
        after[i] = draw(value)
    return before, after


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_shared_draws_give_the_same_interval_bit_for_bit(data: st.DataObject) -> None:
    resamples = data.draw(st.sampled_from([1, 9, 500, 2000]))
    shared = stats.SharedDraws(resamples, SEED)
    for _ in range(3):  # the first of a size is plain, the next ones shared
        before, after = data.draw(samples())
        plain = stats.paired_bootstrap(before, after, resamples, SEED)
        assert stats.paired_bootstrap(before, after, resamples, SEED, shared=shared) == plain
        if plain.high < 0:
            assert shared.high_may_be_negative(after - before)


def test_shared_draws_are_used_and_exact_at_the_trend_size() -> None:
    rng = np.random.default_rng(3)
    shared = stats.SharedDraws(10_000, SEED)
    before = rng.uniform(0, 100, 1000)
    for k in range(6):
        after = before.copy()
        moved = rng.choice(1000, 50, replace=False)
        after[moved] -= rng.uniform(0, 30 + 10 * k, 50)
        plain = stats.paired_bootstrap(before, after, 10_000, SEED)
        assert stats.paired_bootstrap(before, after, 10_000, SEED, shared=shared) == plain
    assert 1000 in shared._sizes  # the shared path ran (not only the plain one)
    assert not shared.high_may_be_negative(np.r_[np.zeros(990), np.full(10, 5.0)])
