"""Median-then-mean aggregation, eligibility reasons, cohorts and ranks (hand-worked)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_dictbench.methods.rig.tables import NO_OVERALL, rig_tables

H1, H2 = "Mac14,7 (M2, 16 GB)", "Mac15,3 (M3, 8 GB)"


def package(*, ready: bool = True, fixtures: list[dict[str, Any]] | None = None,
            products: tuple[str, ...] = ("a", "b", "c"), minimum: int = 2) -> dict[str, Any]:
    return {
        "products": list(products),
        "execution_gate": {"ready": ready, "blocking_items": [] if ready else ["record audio"]},
        "protocol": {"required_repetitions": 3, "default_profile": "default",
                     "same_environment_fields": ["hardware", "macos_version", "test_profile"]},
        "ranking": {"minimum_apps": minimum, "overall_score": False},
        "fixtures": fixtures or [
            {"id": "f1", "workflow": "dictation", "locale": "en-US", "required_repetitions": 3},
            {"id": "f2", "workflow": "dictation", "locale": "en-US", "required_repetitions": 3},
        ],
    }


def run(app: str, fixture: str, rep: int, status: str = "complete", *, hardware: str = H1,
        profile: str = "default", **metrics: float) -> dict[str, Any]:
    return {"product": app, "case_id": fixture, "repetition": rep,
            "status": "passed" if status == "complete" else "not_tested",
            "metrics": metrics if status == "complete" else {},
            "rig": {"status": status, "test_profile": profile, "hardware": hardware,
                    "macos_version": "15.1 (24B83)", "locale": "en-US", "app_version": "1",
                    "processing_path": "on_device", "price_snapshot": "USD 5"}}


def cell(app: str, fixture: str, values: list[float], **kw: Any) -> list[dict[str, Any]]:
    return [run(app, fixture, rep, wer=v, cer=v / 2, **kw) for rep, v in enumerate(values, 1)]


def table(report: dict[str, Any], metric: str = "wer", workflow: str = "dictation",
          locale: str | None = None, profile: str = "default") -> dict[str, Any]:
    [found] = [t for t in report["tables"] if t["metric"] == metric and t["workflow"] ==
               workflow and t["locale"] == locale and t["test_profile"] == profile]
    return found


def ranks(t: dict[str, Any]) -> list[tuple[int, str, float]]:
    return [(e["rank"], e["app_id"], e["value"]) for c in t["cohorts"] for e in c["entries"]]


def reasons(t: dict[str, Any], app: str) -> list[str]:
    return next(n["reasons"] for n in t["not_ranked"] if n["app_id"] == app)


def test_median_of_repetitions_then_mean_of_fixtures_and_competition_ranks() -> None:
    records = (
        # a: f1 median 0.2, f2 median 0.45 -> (0.2 + 0.45) / 2 = 0.325
        cell("a", "f1", [0.1, 0.3, 0.2]) + cell("a", "f2", [0.5, 0.4, 0.45])
        # b: 0.2 and 0.45 as well -> tie with a
        + cell("b", "f1", [0.2, 0.2, 0.2]) + cell("b", "f2", [0.45, 0.45, 0.9])
        # c: f1 median 0.0, f2 median 0.1 -> 0.05, best
        + cell("c", "f1", [0.0, 0.0, 0.3]) + cell("c", "f2", [0.1, 0.1, 0.1]))
    report = rig_tables(records, package())
    t = table(report)
    assert ranks(t) == [(1, "c", 0.05), (2, "a", 0.325), (2, "b", 0.325)]
    assert t["direction"] == "lower is better" and t["not_ranked"] == []
    assert t["cohorts"][0]["environment"] == {"hardware": H1, "macos_version": "15.1 (24B83)",
                                              "test_profile": "default"}
    a = next(e for e in t["cohorts"][0]["entries"] if e["app_id"] == "a")
    assert a["fixture_medians"] == [{"fixture_id": "f1", "median": 0.2},
                                    {"fixture_id": "f2", "median": 0.45}]
    # a pooled mean over all six runs of a would be 0.325 too, but b's pooled mean differs
    # (0.2*3 + 0.45*2 + 0.9) / 6 = 0.4: the median keeps b's one bad run out
    assert report["overall_ranking"] is None and report["overall_ranking_reason"] == NO_OVERALL


def test_ties_are_judged_on_the_value_rounded_to_six_places() -> None:
    records = (cell("a", "f1", [1 / 3] * 3) + cell("a", "f2", [1 / 3] * 3)
               + cell("b", "f1", [0.3333334] * 3) + cell("b", "f2", [0.3333334] * 3)
               + cell("c", "f1", [0.3333336] * 3) + cell("c", "f2", [0.3333336] * 3))
    t = table(rig_tables(records, package()))
    assert ranks(t) == [(1, "a", 0.333333), (1, "b", 0.333333), (3, "c", 0.333334)]


def test_every_reason_a_product_is_not_ranked() -> None:
    records = (
        cell("a", "f1", [0.1, 0.1, 0.1]) + cell("a", "f2", [0.1, 0.1, 0.1])
        + cell("b", "f1", [0.2, 0.2, 0.2]) + cell("b", "f2", [0.2, 0.2, 0.2])
        # c: f1 only two complete repetitions (r3 failed); f2 on a second machine
        + cell("c", "f1", [0.3, 0.3]) + [run("c", "f1", 3, "failed")]
        + cell("c", "f2", [0.3, 0.3, 0.3], hardware=H2))
    t = table(rig_tables(records, package()))
    assert ranks(t) == [(1, "a", 0.1), (2, "b", 0.2)]
    assert reasons(t, "c") == [
        "f1: needs 3 complete repetitions; found 2 (r3 failed)",
        f"runs do not share one frozen environment (hardware, macos_version, "
        f"test_profile): {H1} | 15.1 (24B83) | default; {H2} | 15.1 (24B83) | default"]


def test_a_product_without_rows_and_the_blank_template() -> None:
    t = table(rig_tables([], package(ready=False)))
    assert ranks(t) == []
    assert reasons(t, "a") == [
        "execution gate closed: no ranks are published (blocking: record audio)",
        "f1: needs 3 complete repetitions; found 0",
        "f2: needs 3 complete repetitions; found 0"]
    assert [n["app_id"] for n in t["not_ranked"]] == ["a", "b", "c"]


def test_closed_gate_publishes_no_ranks_even_with_complete_results() -> None:
    records = [r for app in "ab" for f in ("f1", "f2") for r in cell(app, f, [0.1] * 3)]
    report = rig_tables(records, package(ready=False))
    assert all(ranks(t) == [] for t in report["tables"])
    assert reasons(table(report), "a")[0].startswith("execution gate closed")


def test_cohorts_rank_separately_and_a_lone_product_is_not_ranked() -> None:
    records = (cell("a", "f1", [0.1] * 3) + cell("a", "f2", [0.1] * 3)
               + cell("b", "f1", [0.2] * 3, hardware=H2) + cell("b", "f2", [0.2] * 3, hardware=H2)
               + cell("c", "f1", [0.3] * 3, hardware=H2) + cell("c", "f2", [0.3] * 3, hardware=H2))
    t = table(rig_tables(records, package()))
    assert [[e["app_id"] for e in c["entries"]] for c in t["cohorts"]] == [["b", "c"]]
    assert reasons(t, "a") == [
        f"only 1 eligible product(s) in its environment cohort (hardware={H1}, "
        "macos_version=15.1 (24B83), test_profile=default); at least 2 needed"]
    t3 = table(rig_tables(records, package(minimum=3)))
    assert ranks(t3) == []


def test_corrections_and_meetings_gate_eligibility() -> None:
    fixtures = [{"id": "fix", "workflow": "correction", "locale": "en-US"},
                {"id": "meet", "workflow": "meeting", "locale": "en-US"}]

    def corr(app: str, exact: list[float]) -> list[dict[str, Any]]:
        return [run(app, "fix", rep, correction_exact=e, final_strict_edit_distance=0 if e
                    else 2, correction_seconds=10.0 + rep, edit_actions=4)
                for rep, e in enumerate(exact, 1)]

    def meet(app: str, complete: list[float], correct: float) -> list[dict[str, Any]]:
        return [run(app, "meet", rep, capture_complete=c, speaker_turn_accuracy=correct,
                    wer=0.1, cer=0.05, elapsed_seconds=30.0)
                for rep, c in enumerate(complete, 1)]

    records = (corr("a", [1, 1, 1]) + corr("b", [1, 1, 1]) + corr("c", [1, 0, 1])
               + meet("a", [1, 1, 1], 5 / 6) + meet("b", [1, 1, 1], 1.0)
               + meet("c", [1, 1, 0], 1.0))
    report = rig_tables(records, package(fixtures=fixtures))
    seconds = table(report, "correction_seconds", "correction")
    assert ranks(seconds) == [(1, "a", 12.0), (1, "b", 12.0)]
    assert reasons(seconds, "c") == [
        "fix: final correction not exact in repetition 2 (remaining edit distance 2)"]
    turns = table(report, "speaker_turn_accuracy", "meeting")
    assert turns["direction"] == "higher is better"
    assert ranks(turns) == [(1, "b", 1.0), (2, "a", 0.833333)]
    assert reasons(turns, "c") == ["meet: meeting capture incomplete in repetition 3"]
    assert [t["metric"] for t in report["tables"] if t["workflow"] == "meeting"] == [
        "capture_complete", "speaker_turn_accuracy", "wer", "cer", "elapsed_seconds"]


def test_locale_tables_and_profiles() -> None:
    fixtures = [{"id": "en", "workflow": "dictation", "locale": "en-US"},
                {"id": "es", "workflow": "dictation", "locale": "es-ES"}]
    records = [r for app in "ab" for f in ("en", "es") for r in cell(app, f, [0.1, 0.2, 0.3])]
    records += [r for app in "ab" for r in cell(app, "en", [0.4] * 3, profile="local_only")]
    report = rig_tables(records, package(fixtures=fixtures))
    scopes = {(t["workflow"], t["locale"], t["test_profile"]) for t in report["tables"]}
    assert scopes == {("dictation", None, "default"), ("dictation", "en-US", "default"),
                      ("dictation", "es-ES", "default"), ("dictation", None, "local_only"),
                      ("dictation", "en-US", "local_only"), ("dictation", "es-ES", "local_only")}
    assert ranks(table(report, locale="es-ES")) == [(1, "a", 0.2), (1, "b", 0.2)]
    local = table(report, profile="local_only")
    assert reasons(local, "a") == ["es: needs 3 complete repetitions; found 0"]


def test_statuses_and_descriptive_metadata() -> None:
    records = [*cell("a", "f1", [0.1] * 3), run("b", "f1", 1, "unsupported"),
               run("b", "f1", 2, "blank"), run("b", "f1", 3, "invalid")]
    report = rig_tables(records, package())
    assert report["statuses"]["b"] == {"complete": 0, "not_tested": 0, "unsupported": 1,
                                       "failed": 0, "invalid": 1, "blank": 1}
    assert report["observations"][0] == {
        "app_id": "a", "complete_runs": 3, "tested_locales": ["en-US"], "app_versions": ["1"],
        "plans": [], "processing_paths": ["on_device"], "privacy_modes": [],
        "app_language_settings": [], "price_snapshots": ["USD 5"], "pricing_source_urls": []}
    assert "(r1 unsupported, r2 blank, r3 invalid)" in reasons(table(report), "b")[0]


@pytest.mark.parametrize("metric", ["wer", "cer"])
def test_values_are_rounded_half_away_from_zero_after_the_mean(metric: str) -> None:
    # medians 0.1234565 and 0.1234565 -> mean 0.1234565 -> 0.123457 (half away from zero)
    records = [r for app in "ab" for f in ("f1", "f2")
               for r in cell(app, f, [0.1234565 * (2 if metric == "cer" else 1)] * 3)]
    t = table(rig_tables(records, package()), metric)
    assert [e["value"] for c in t["cohorts"] for e in c["entries"]] == [0.123457, 0.123457]


def test_local_competition_ranks_agree_with_the_stats_module() -> None:
    from pytest_dictbench.methods.rig.tables import _competition
    from pytest_dictbench.stats import competition_ranks

    values = {"a": 0.5, "b": 0.25, "c": 0.5, "d": 0.125, "e": 0.25}
    for higher in (True, False):
        assert list(_competition(values, higher).items()) == list(
            competition_ranks(values, higher, 6).items())


def test_a_metric_missing_from_a_complete_run_blocks_its_table_only() -> None:
    records = [r for app in "ab" for f in ("f1", "f2") for r in cell(app, f, [0.1] * 3)]
    for r in records:
        r["metrics"]["elapsed_seconds"] = 2.0
    del records[0]["metrics"]["elapsed_seconds"]  # a: f1 repetition 1
    report = rig_tables(records, package())
    assert reasons(table(report, "elapsed_seconds"), "a") == [
        "f1: elapsed_seconds missing in a complete repetition"]
    assert ranks(table(report, "wer")) == [(1, "a", 0.1), (1, "b", 0.1)]


def test_a_selective_rerun_in_a_second_block_attempt_blocks_ranks() -> None:
    # R40: only product a's block-2 rows were rerun after block_2 failed calibration
    def placed(record: dict[str, Any], attempt: str, accepted: bool) -> dict[str, Any]:
        record["rig"]["block"] = {"attempt": attempt, "network_measured": True,
                                  "calibration": {"block": attempt, "accepted": accepted}}
        return record

    records = []
    for app in ("a", "b"):
        for fixture in ("f1", "f2"):
            for rep in (1, 2, 3):
                records.append(placed(run(app, fixture, rep, wer=0.1, cer=0.1),
                                      f"block_{rep}", True))
    for fixture in ("f1", "f2"):  # a's and b's first block_2 attempt failed
        records.append(placed(run("b", fixture, 2, "invalid"), "block_2", False))
    for record in records:
        if record["repetition"] == 2 and record["product"] == "b" and \
                record["rig"]["status"] == "complete":
            record["rig"]["status"], record["status"] = "invalid", "error"
    for record in records:
        if record["repetition"] == 2 and record["product"] == "a":
            record["rig"]["block"]["attempt"] = "block_2#2"
    for fixture in ("f1", "f2"):
        records.append(placed(run("a", fixture, 2, "invalid"), "block_2", False))
    report = rig_tables(records, package(products=("a", "b")))
    kinds = {(v["app_id"], v["kind"]) for v in report["validity"]["schedule"]}
    assert ("a", "selective_rerun") in kinds
    assert any("schedule: selective rerun: block_2#2 reran only a after block_2 failed "
               "calibration (not rerun: b)" in r for r in reasons(table(report), "a"))


def test_unranked_products_show_a_partial_mean_and_incomplete_medians() -> None:
    # R27: a missing fixture hid the mean over the fixtures present, and an incomplete
    # cell's median was never shown
    from pytest_dictbench.report.rig import rig_tables_text

    records = (cell("a", "f1", [0.1, 0.2, 0.3]) + cell("a", "f2", [0.2, 0.2, 0.2])
               + cell("b", "f1", [0.4, 0.4, 0.4]) + cell("c", "f1", [0.5, 0.5, 0.5])
               + cell("c", "f2", [0.1, 0.3]))
    report = rig_tables(records, package())
    wer = table(report)
    b = next(n for n in wer["not_ranked"] if n["app_id"] == "b")
    assert b["value"] is None and b["partial"] == {"value": 0.4, "fixtures": "1 of 2 fixtures"}
    c = next(n for n in wer["not_ranked"] if n["app_id"] == "c")
    assert c["fixture_medians"][1] == {"fixture_id": "f2", "median": 0.2,
                                       "incomplete": "2 of 3 repetitions"}
    text = next(t for t in rig_tables_text(report) if t.title.startswith("dictation, "
                                                                         "profile default: wer"))
    row_b = next(r for r in text.rows if r[1] == "b")
    assert row_b[2] == "0.400000 (1 of 2 fixtures)"
    row_c = next(r for r in text.rows if r[1] == "c")
    assert "f2 0.200000 (incomplete: 2 of 3 repetitions)" in row_c[4]
