"""cpWER without meeteval (CF25: the ``rig`` extra installs from wheels): the speaker
streams' minimum-permutation word errors, checked by hand, against a brute force over
every pairing, and against meeteval's own ``cp_word_error_rate`` where it is installed."""

from __future__ import annotations

import itertools
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_dictbench.rig.speakers import Turn, _cpwer


def _split(text: str) -> list[str]:
    return text.split()


def test_cf25_cpwer_needs_no_meeteval(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hand count: A's stream ``hi there good`` against S2's ``hi there``: 1 deletion;
    B's ``fine thanks`` against S1's ``fine thanks``: 0; 1 error in 5 words."""
    monkeypatch.setitem(sys.modules, "meeteval", None)  # an import of it fails
    reference = [Turn("A", "hi there"), Turn("B", "fine thanks"), Turn("A", "good")]
    hypothesis = [Turn("S2", "hi there"), Turn("S1", "fine thanks")]
    assert _cpwer(reference, hypothesis, _split) == 1 / 5
    assert _cpwer(reference, [], _split) == 1.0  # every word deleted
    assert _cpwer(reference, [Turn(None, "x y z q w e r")], _split) == pytest.approx(
        (4 + 3 + 2) / 5)  # one stream of 7 against A (3 words, 4 ins + 3 sub), B deleted (2)


WORDS = st.sampled_from(["a", "b", "c", "d"])
TURNS = st.lists(st.tuples(st.sampled_from(["s1", "s2", "s3"]),
                           st.lists(WORDS, min_size=0, max_size=5).map(" ".join)),
                 max_size=5)


def _levenshtein(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def _streams(turns: list[tuple[str, str]]) -> list[list[str]]:
    return [" ".join(t for x, t in turns if x == s).split()
            for s in sorted({s for s, _ in turns})]


@settings(max_examples=150, deadline=None)
@given(reference=TURNS, hypothesis=TURNS)
def test_cpwer_equals_the_best_of_every_pairing(reference: list[tuple[str, str]],
                                                hypothesis: list[tuple[str, str]]) -> None:
    ref, hyp = _streams(reference), _streams(hypothesis)
    words = sum(map(len, ref))
    ours = _cpwer([Turn(s, t) for s, t in reference], [Turn(s, t) for s, t in hypothesis],
                  _split)
    if not words:
        assert ours is None
        return
    size = max(len(ref), len(hyp))
    ref += [[]] * (size - len(ref))
    hyp += [[]] * (size - len(hyp))
    best = min(sum(_levenshtein(r, h) for r, h in zip(ref, order, strict=True))
               for order in itertools.permutations(hyp))
    assert ours == best / words


@settings(max_examples=150, deadline=None)
@given(reference=TURNS, hypothesis=TURNS)
def test_cpwer_equals_meeteval(reference: list[tuple[str, str]],
                               hypothesis: list[tuple[str, str]]) -> None:
    cp = pytest.importorskip("meeteval.wer.wer.cp")
    ref = [Turn(s, t) for s, t in reference]
    hyp = [Turn(s, t) for s, t in hypothesis]
    ours = _cpwer(ref, hyp, _split)
    refs = {s: " ".join(t for x, t in reference if x == s).split() for s, _ in reference}
    if not sum(len(w) for w in refs.values()):
        assert ours is None
        return
    hyps = {s: " ".join(t for x, t in hypothesis if x == s).split() for s, _ in hypothesis}
    theirs = cp.cp_word_error_rate(reference={k: " ".join(v) for k, v in refs.items()},
                                   hypothesis={k: " ".join(v) for k, v in hyps.items()})
    assert ours == float(theirs.error_rate)
