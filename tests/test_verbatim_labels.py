"""Gold labels read off the verbatim/intended alignment, and the gold-data checks."""

from __future__ import annotations

from pytest_dictbench.methods.verbatim.labels import gold_labels, gold_problems


def labelled(verbatim: str, intended: str) -> list[tuple[str, str]]:
    gold = gold_labels(verbatim, intended)
    return list(zip(gold.tokens, gold.labels, strict=True))


def test_stutter_keeps_the_later_copy_fluent() -> None:
    assert labelled("I I think so.", "I think so.") == [
        ("i", "repetition"), ("i", "fluent"), ("think", "fluent"), ("so", "fluent"),
    ]


def test_repeated_we_is_a_repetition() -> None:
    # the worked example: every surface type plus a repeated "we"
    assert labelled("So we, we [uh] went to the th- the [laughter] shop.",
                    "So we went to the shop.") == [
        ("so", "fluent"), ("we", "repetition"), ("we", "fluent"), ("[uh]", "filler"),
        ("went", "fluent"), ("to", "fluent"), ("the", "repetition"), ("th*", "cutoff"),
        ("the", "fluent"), ("[laughter]", "sound"), ("shop", "fluent"),
    ]


def test_i_mean_false_start_is_other() -> None:
    assert labelled("We should, I mean, you should call her.", "You should call her.") == [
        ("we", "other"), ("should", "other"), ("i", "other"), ("mean", "other"),
        ("you", "fluent"), ("should", "fluent"), ("call", "fluent"), ("her", "fluent"),
    ]


def test_repetition_walk_steps_over_fillers_sounds_and_fragments() -> None:
    labels = gold_labels("the [uh] the [cough] th* the book", "the book").labels
    assert labels == ("repetition", "filler", "repetition", "sound", "cutoff", "fluent",
                      "fluent")


def test_repetition_walk_stops_at_another_word() -> None:
    # "so" between the copies ends the walk: the first "we" is a plain Other
    assert gold_labels("we so we went", "we went").labels == (
        "other", "other", "fluent", "fluent")


def test_repeated_phrase_stays_other() -> None:
    assert gold_labels("I think I think so", "I think so").labels == (
        "other", "other", "fluent", "fluent", "fluent")


def test_surface_marker_wins_over_alignment() -> None:
    # the intended text wrongly keeps the filler: still a Filler, and reported
    gold = gold_labels("so [uh] yes", "so [uh] yes")
    assert gold.labels == ("fluent", "filler", "fluent")
    assert gold.problems == ("intended word 2 '[uh]' is a disfluency marker",)


def test_laughter_only_utterance_has_empty_intended() -> None:
    gold = gold_labels("[laughter]", "")
    assert gold.labels == ("sound",)
    assert gold.intended == ()
    assert gold_problems("[laughter]", "") == []


def test_clean_pair_has_no_problems() -> None:
    assert gold_problems("So [um] we we left.", "So we left.") == []


def test_problems_name_inserted_and_replaced_words() -> None:
    # two equally cheap readings; the trace back from the end pairs "the" with "big"
    problems = gold_problems("we went to the shop", "we went to a big shop")
    assert problems == [
        "intended word 4 'a' is not in the verbatim transcript (intended must come from "
        "deletions only)",
        "intended word 5 'big' replaces verbatim word 4 'the' (intended must come from "
        "deletions only)",
    ]


def test_problems_report_digits_and_empty_verbatim() -> None:
    problems = gold_problems("", "3 cats")
    assert problems[0] == "intended transcript contains digits ('3 cats')"
    assert "the verbatim transcript is empty after normalization" in problems
    assert sum("not in the verbatim transcript" in p for p in problems) == 2  # three cats


def test_broken_pair_still_gets_labels() -> None:
    # a substitution: "a" is aligned to "the" -> not the same form -> Other
    gold = gold_labels("we saw the dog", "we saw a dog")
    assert gold.labels == ("fluent", "fluent", "other", "fluent")
