"""The dev/test split: fixed by the seed, independent of order and machine, balanced in
every stratum (genre, source)."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_dictbench.model import Case
from pytest_dictbench.split import assign, split_summary, stratum


def cases_of(rows: list[tuple[str, str, str]]) -> list[Case]:
    return [Case(cid, {"id": cid, "genre": genre, "source": source})
            for cid, genre, source in rows]


EIGHT = cases_of([(f"c{i}", ["chat", "email"][i % 2], "s") for i in range(1, 9)])


def test_the_assignment_is_pinned() -> None:
    # sha256 of (seed, suite id, case id) orders each stratum: the same on every machine
    assert assign("mini", EIGHT, 20261201) == {
        "c1": "dev", "c2": "dev", "c3": "dev", "c4": "test",
        "c5": "test", "c6": "dev", "c7": "test", "c8": "test"}


def test_seed_and_suite_change_it() -> None:
    base = assign("mini", EIGHT, 20261201)
    assert assign("mini", EIGHT, 1) != base
    assert assign("other", EIGHT, 20261201) != base


def test_the_summary_counts_each_stratum_and_digests_the_half() -> None:
    summary = split_summary("mini", EIGHT, "dev", 20261201)
    assert summary["cases"] == 4 and summary["of"] == 8
    assert summary["strata"] == {"chat/s": {"dev": 2, "test": 2},
                                 "email/s": {"dev": 2, "test": 2}}
    expected = hashlib.sha256("\n".join(["c1", "c2", "c3", "c6"]).encode()).hexdigest()
    assert summary["cases_sha256"] == expected


ROWS = st.lists(
    st.tuples(st.text("abcdefgh0123", min_size=1, max_size=6),
              st.sampled_from(["chat", "email", "notes", ""]),
              st.sampled_from(["synth", "human", ""])),
    max_size=60, unique_by=lambda row: row[0])


@settings(max_examples=200, deadline=None)
@given(rows=ROWS, seed=st.integers(0, 2**32), data=st.data())
def test_every_stratum_and_the_whole_are_balanced_and_order_does_not_matter(
        rows: list[tuple[str, str, str]], seed: int, data: st.DataObject) -> None:
    """Property: each case gets exactly one half; within every (genre, source) stratum
    and overall the halves differ by at most one case; shuffling the cases file changes
    nothing."""
    cases = cases_of(rows)
    halves = assign("suite", cases, seed)
    assert sorted(halves) == sorted(c.id for c in cases)
    assert set(halves.values()) <= {"dev", "test"}
    strata: dict[tuple[str, str], list[str]] = {}
    for case in cases:
        strata.setdefault(stratum(case), []).append(halves[case.id])
    for values in strata.values():
        assert abs(values.count("dev") - values.count("test")) <= 1
    values = list(halves.values())
    assert abs(values.count("dev") - values.count("test")) <= 1
    shuffled = data.draw(st.permutations(cases))
    assert assign("suite", shuffled, seed) == halves
