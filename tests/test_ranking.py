"""Rank eligibility, cohorts and competition ranks (pure)."""

from __future__ import annotations

import pytest

from pytest_dictbench.errors import SuiteError
from pytest_dictbench.ranking import RankingRules, rank_products


def recs(*statuses: str, pending: int = 0, flagged: int = 0) -> list[dict]:
    out = []
    for i, status in enumerate(statuses):
        out.append({"case_id": f"c{i + 1}", "repetition": 1, "status": status,
                    "pending": [{}] * (pending if i == 0 else 0),
                    "flags": {"fallback": i < flagged}})
    return out


def entry(name: str, value: float | None, **env: str) -> dict:
    return {"product": name, "environment": env, "value": value}


COMPLETE = recs("passed", "failed", "passed")
DEFAULT = RankingRules()


def rank(entries, records, rules=DEFAULT, cases=3, repetitions=1):
    result = rank_products(entries, records, cases=cases, repetitions=repetitions, rules=rules)
    return {name: (r["rank"], r["reason"]) for name, r in result.items()}


def test_competition_ranks_judge_ties_on_reported_values() -> None:
    # 91.34 and 91.26 both report as 91.3 (one decimal): tied at 1; 89.0 comes third
    got = rank([entry("a", 91.34), entry("b", 91.26), entry("c", 89.0)],
               {"a": COMPLETE, "b": COMPLETE, "c": COMPLETE})
    assert got == {"a": (1, None), "b": (1, None), "c": (3, None)}
    # with two decimals they differ
    got = rank([entry("a", 91.34), entry("b", 91.26)], {"a": COMPLETE, "b": COMPLETE},
               RankingRules(decimals=2))
    assert got == {"a": (1, None), "b": (2, None)}


def test_lower_is_better_metric() -> None:
    got = rank([entry("a", 0.21), entry("b", 0.08)], {"a": COMPLETE, "b": COMPLETE},
               RankingRules(metric="wer", higher_is_better=False, decimals=3))
    assert got == {"a": (2, None), "b": (1, None)}


def test_exact_reasons_for_not_ranked_products() -> None:
    rules = RankingRules(same_environment=("hardware",), max_flagged={"fallback": 2})
    records = {
        "ok1": COMPLETE, "ok2": COMPLETE,
        "gap": recs("passed", "error", "not_tested"),
        "wait": recs("passed", "passed", "passed", pending=2),
        "flaky": recs("passed", "passed", "passed", flagged=3),
        "loner": COMPLETE, "nohw": COMPLETE,
    }
    got = rank([entry("ok1", 80.0, hardware="m3"), entry("ok2", 70.0, hardware="m3"),
                entry("gap", 90.0, hardware="m3"), entry("wait", 90.0, hardware="m3"),
                entry("flaky", 90.0, hardware="m3"), entry("loner", 99.0, hardware="m1"),
                entry("nohw", 99.0)], records, rules)
    assert got == {
        "flaky": (None, "run invalid: 3 items flagged 'fallback' (at most 2 allowed)"),
        "gap": (None, "incomplete: 2 of 3 required results missing (c2: error, c3: not_tested)"),
        "loner": (None, "only 1 eligible product in its environment cohort (at least 2 "
                        "needed): its hardware='m1' differs from hardware='m3' of ok1, ok2"),
        "nohw": (None, "environment field(s) not declared: hardware"),
        "ok1": (1, None),
        "ok2": (2, None),
        "wait": (None, "2 rule score(s) pending human adjudication"),
    }


def test_a_lone_product_is_told_which_fields_and_values_set_it_apart() -> None:
    rules = RankingRules(same_environment=("hardware", "os"), minimum_products=2)
    got = rank([entry("a", 80.0, hardware="m3", os="x"), entry("b", 70.0, hardware="m3", os="x"),
                entry("c", 60.0, hardware="m1", os="y"), entry("d", 50.0, hardware="m3", os="y")],
               dict.fromkeys("abcd", COMPLETE), rules)
    # d is one field away from a, b and from c: the larger cohort is named
    assert got["d"] == (None, "only 1 eligible product in its environment cohort (at least 2 "
                              "needed): its os='y' differs from os='x' of a, b")
    assert got["c"] == (None, "only 1 eligible product in its environment cohort (at least 2 "
                              "needed): its hardware='m1' differs from hardware='m3' of d")
    two = rank([entry("a", 80.0, hardware="m3", os="x"), entry("b", 70.0, hardware="m3", os="x"),
                entry("c", 60.0, hardware="m1", os="y")], dict.fromkeys("abc", COMPLETE), rules)
    assert two["c"] == (None, "only 1 eligible product in its environment cohort (at least 2 "
                              "needed): its hardware='m1', os='y' differ from hardware='m3', "
                              "os='x' of a, b")
    alone = rank([entry("a", 80.0, hardware="m3", os="x"), entry("b", None, hardware="m1",
                                                                  os="x")],
                 {"a": COMPLETE, "b": COMPLETE}, rules)
    assert alone["a"] == (None, "only 1 eligible product in its environment cohort (at least "
                                "2 needed): no other product is eligible")


def test_repetitions_are_required() -> None:
    got = rank([entry("a", 1.0), entry("b", 2.0)], {"a": COMPLETE, "b": COMPLETE},
               repetitions=2)
    assert got["a"] == (None, "incomplete: 3 of 6 required results missing")


def test_closed_gate_suppresses_every_rank() -> None:
    rules = RankingRules(gate_ready=False, blocking_items=("audio not recorded",))
    got = rank([entry("a", 1.0), entry("b", 2.0)], {"a": COMPLETE, "b": COMPLETE}, rules)
    reason = "execution gate closed (blocking: audio not recorded)"
    assert got == {"a": (None, reason), "b": (None, reason)}


def test_rules_from_manifest_and_unknown_fields() -> None:
    rules = RankingRules.from_manifest(
        {"ranking": {"decimals": 2, "same_environment": ["os"]},
         "validity": {"max_errors": 0}, "execution_gate": {"ready": True}},
        metric="score", higher_is_better=True)
    assert (rules.decimals, rules.same_environment, rules.max_errors) == (2, ("os",), 0)
    with pytest.raises(SuiteError, match=r"unknown field\(s\) ranking.decimal"):
        RankingRules.from_manifest({"ranking": {"decimal": 2}}, metric="score",
                                   higher_is_better=True)


def test_max_errors_excuses_that_many_errors_and_no_more() -> None:
    one_error = recs("passed", "error", "passed")
    two_errors = recs("error", "error", "passed")
    rules = RankingRules(max_errors=1)
    got = rank([entry("a", 1.0), entry("b", 2.0), entry("c", 3.0)],
               {"a": one_error, "b": COMPLETE, "c": two_errors}, rules)
    assert got == {"a": (2, None), "b": (1, None),
                   "c": (None, "run invalid: 2 errors (at most 1 allowed)")}


def test_a_provisional_score_is_never_ranked_judges_declared_or_not() -> None:
    # the old code ranked unjudged rubric scores when the suite declared no judges
    provisional = [dict(r, provisional=2 if r["case_id"] == "c1" else 0) for r in COMPLETE]
    records = {"a": provisional, "b": COMPLETE, "c": COMPLETE}
    entries = [entry("a", 1.0), entry("b", 2.0), entry("c", 3.0)]
    for rules in (DEFAULT, RankingRules(judged=True)):
        got = rank(entries, records, rules)
        assert got["a"][0] is None
        assert got["a"][1].startswith("provisional score: 2 unjudged judgement(s) on 1 item(s)")
        assert (got["b"][0], got["c"][0]) == (2, 1)
    # provisional counts on unscored records (errors) do not count
    errored = [dict(r, provisional=5, status="error") for r in COMPLETE[:1]] + COMPLETE[1:]
    assert rank(entries, {"a": errored, "b": COMPLETE, "c": COMPLETE},
                RankingRules(max_errors=1))["a"] == (3, None)


def test_error_rates_rank_on_their_published_three_places() -> None:
    records = {"tiny": COMPLETE, "base": COMPLETE, "other": COMPLETE}
    rules = RankingRules.from_manifest({}, metric="wer", higher_is_better=False)
    assert rules.places == 3
    # WER 0.195 and 0.218 are printed 0.195 and 0.218: different ranks (one decimal on
    # the 0..1 scale would have made both 0.2 and tied them)
    got = rank([entry("tiny", 0.218), entry("base", 0.195)], records, rules)
    assert got == {"base": (1, None), "tiny": (2, None)}
    # 0.2104 and 0.2096 are both printed 0.210: tied; 0.2115 (0.212) comes third
    got = rank([entry("tiny", 0.2104), entry("base", 0.2096), entry("other", 0.2115)],
               records, rules)
    assert got == {"base": (1, None), "tiny": (1, None), "other": (3, None)}


def test_scores_keep_one_place_and_a_declared_precision_wins() -> None:
    assert RankingRules.from_manifest({}, metric="score", higher_is_better=True).places == 1
    assert RankingRules.from_manifest({}, metric="disfluency_f1",
                                      higher_is_better=True).places == 3
    declared = RankingRules.from_manifest({"ranking": {"decimals": 1}}, metric="wer",
                                          higher_is_better=False)
    assert declared.places == 1
    got = rank([entry("a", 0.218), entry("b", 0.195)], {"a": COMPLETE, "b": COMPLETE},
               declared)
    assert got == {"a": (1, None), "b": (1, None)}



def test_a_provisional_reason_names_the_items_and_rules_waiting() -> None:
    # S29 (c): the reason named no case and no rule
    unjudged = {"C1": {"score": None, "source": "unjudged"}, "A1": {"score": 2,
                                                                    "source": "auto"},
                "C2": {"score": None, "source": "unjudged"}}
    records = {"a": [dict(r, provisional=2, rules=unjudged) if r["case_id"] == "c1" else r
                     for r in COMPLETE], "b": COMPLETE}
    got = rank([entry("a", 1.0), entry("b", 2.0)], records, DEFAULT)
    assert got["a"][1] == ("provisional score: 2 unjudged judgement(s) on 1 item(s), "
                           "e.g. c1 (C1, C2) (declare judges, or add human decisions)")
