"""The dev/test split: fixed by the seed, independent of order and machine, each case's
half decided by its own id (adding a case moves no other)."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_dictbench.model import Case
from pytest_dictbench.split import assign, case_half, split_summary


def cases_of(rows: list[tuple[str, str, str]]) -> list[Case]:
    return [Case(cid, {"id": cid, "genre": genre, "source": source})
            for cid, genre, source in rows]


EIGHT = cases_of([(f"c{i}", ["chat", "email"][i % 2], "s") for i in range(1, 9)])


def test_the_assignment_is_pinned() -> None:
    # the first byte of sha256(seed NUL suite id NUL case id): the same on every machine
    assert assign("mini", EIGHT, 20261201) == {
        "c1": "dev", "c2": "test", "c3": "test", "c4": "dev",
        "c5": "test", "c6": "dev", "c7": "dev", "c8": "test"}
    first = hashlib.sha256(b"20261201\0mini\0c1").digest()[0]
    assert first < 128  # dev, by hand


def test_seed_and_suite_change_it() -> None:
    base = assign("mini", EIGHT, 20261201)
    assert assign("mini", EIGHT, 1) != base
    assert assign("other", EIGHT, 20261201) != base


def test_the_summary_counts_each_stratum_and_digests_the_half_and_the_suite() -> None:
    summary = split_summary("mini", EIGHT, "dev", 20261201, version="1.0")
    assert summary["cases"] == 4 and summary["of"] == 8 and summary["version"] == "1.0"
    assert summary["strata"] == {"chat/s": {"dev": 2, "test": 2},
                                 "email/s": {"dev": 2, "test": 2}}
    expected = hashlib.sha256("\n".join(["c1", "c4", "c6", "c7"]).encode()).hexdigest()
    assert summary["cases_sha256"] == expected
    every = hashlib.sha256("\n".join(f"c{i}" for i in range(1, 9)).encode()).hexdigest()
    assert summary["suite_cases_sha256"] == every


ROWS = st.lists(
    st.tuples(st.text("abcdefgh0123", min_size=1, max_size=6),
              st.sampled_from(["chat", "email", "notes", ""]),
              st.sampled_from(["synth", "human", ""])),
    max_size=60, unique_by=lambda row: row[0])


@settings(max_examples=200, deadline=None)
@given(rows=ROWS, seed=st.integers(0, 2**32), data=st.data())
def test_every_case_gets_one_half_by_its_own_id_and_order_does_not_matter(
        rows: list[tuple[str, str, str]], seed: int, data: st.DataObject) -> None:
    """Property: each case gets exactly one half, the one its own id gives; shuffling
    the cases file changes nothing."""
    cases = cases_of(rows)
    halves = assign("suite", cases, seed)
    assert sorted(halves) == sorted(c.id for c in cases)
    assert all(halves[c.id] == case_half(seed, "suite", c.id) for c in cases)
    shuffled = data.draw(st.permutations(cases))
    assert assign("suite", shuffled, seed) == halves


@settings(max_examples=200, deadline=None)
@given(rows=ROWS, extra=st.tuples(st.text("xyz", min_size=1, max_size=4),
                                   st.sampled_from(["chat", "email", "notes", "poem", ""]),
                                   st.sampled_from(["synth", "human", "format", ""])),
       seed=st.integers(0, 2**32))
def test_adding_a_case_never_moves_another(rows: list[tuple[str, str, str]],
                                           extra: tuple[str, str, str], seed: int) -> None:
    """PL2: a case's half depends only on the seed, the suite id and its own id, so a
    case added to the suite (of any stratum) leaves every other case where it was."""
    before = assign("suite", cases_of(rows), seed)
    after = assign("suite", cases_of([*rows, extra]), seed)
    assert {cid: after[cid] for cid in before} == before


def test_pl2_one_added_case_moves_none_of_a_real_suite() -> None:
    """PL2 as reported: a `chat`/`format` case added to a suite of several strata."""
    rows = [(f"ja-{i:03}", ["notes", "email", "chat"][i % 3],
             ["core", "extra", "format"][i % 4 % 3]) for i in range(1, 68)]
    before = assign("ja-dictation", cases_of(rows))
    after = assign("ja-dictation", cases_of([*rows, ("ja-068", "chat", "format")]))
    moved = sorted(cid for cid in before if after[cid] != before[cid])
    assert moved == []


def test_a_large_suite_splits_near_even() -> None:
    """The halves are even on average: 2,000 cases within 5 binomial deviations."""
    rows = [(f"c{i}", "chat", "s") for i in range(2000)]
    dev = list(assign("big", cases_of(rows)).values()).count("dev")
    assert abs(dev - 1000) < 5 * (2000 * 0.25) ** 0.5


def test_the_documented_example_holds() -> None:
    """docs/refine.md: mini c1..c4 split dev c1 c4, test c2 c3; c5 and c6 go to test and
    dev and move nothing."""
    four = assign("mini", cases_of([(f"c{i}", "", "") for i in range(1, 5)]))
    six = assign("mini", cases_of([(f"c{i}", "", "") for i in range(1, 7)]))
    assert four == {"c1": "dev", "c2": "test", "c3": "test", "c4": "dev"}
    assert six == {**four, "c5": "test", "c6": "dev"}
    assert hashlib.sha256(b"20261201\0mini\0c1").digest()[0] == 30
