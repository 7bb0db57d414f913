"""``cutoff_recall`` as the verbatim seed defines it: whether the gold cut-offs were
acknowledged. A spurious fragment costs precision and never moves recall; with no gold
cut-off in the pool recall is undefined (``null``), not 0."""

from __future__ import annotations

from test_verbatim_method import FLUENT, METHOD, WORKED, record, score, suite

from pytest_dictbench.model import Case

UM = Case("um", {"id": "um", "canary": "C", "verbatim": "I [uh] went home.",
                 "intended": "I went home."})


def test_with_no_gold_cut_off_a_spurious_fragment_leaves_recall_undefined() -> None:
    spurious = score(UM, "I [uh] wor- went home.")  # a fragment on a whole word
    clean = score(FLUENT, "I really appreciate it.")
    tables = METHOD.aggregate([record(spurious), record(clean)], suite())
    assert tables["summary"]["cutoff_recall"] is None  # 0 gold cut-offs: 0/0
    cutoff = tables["types"]["cutoff"]
    assert (cutoff["tp"], cutoff["fp"], cutoff["fn"]) == (0, 1, 0)
    assert (cutoff["precision"], tables["summary"]["cutoff_f1"]) == (0.0, 0.0)  # costs P


def test_a_spurious_fragment_never_moves_recall_when_gold_has_cut_offs() -> None:
    """WORKED holds one gold cut-off (``th-``), found by both predictions."""
    found = "So we, we [uh] went to the th- the [laughter] shop."
    plain = METHOD.aggregate([record(score(WORKED, found))], suite())
    extra = METHOD.aggregate([record(score(WORKED, found)),
                              record(score(UM, "I [uh] wor- went home."))], suite())
    assert plain["summary"]["cutoff_recall"] == extra["summary"]["cutoff_recall"] == 1.0
    assert extra["summary"]["cutoff_f1"] < plain["summary"]["cutoff_f1"]  # 2/3 < 1
