"""The reports name the official run and show run-to-run variation when the store holds
history (issue 42: "Reports, publish and the viewer say which run is official", "a
section in the reports when the store holds repeated runs"), on SQLite and PostgreSQL;
the main report set stays the same bytes with or without a store, and a report folder
never keeps the history files of another run."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_support import put, record, store_url
from support import MINI_CASES

from pytest_dictbench.cli import main
from pytest_dictbench.store import open_store

MAIN_FILES = ("dictbench.json", "items.jsonl", "dictbench.md", "dictbench.html")
HISTORY = ("history.md", "history.json")
REFERENCES = [c["reference"] for c in MINI_CASES]
#: c2 with a line break after a space: identical once line breaks are taken out
BROKEN_LINE = "Please send the invoice \nby Friday."
#: c3 wrong: 2 of 6 words, score 100 * (1 - 2/6) = 66.67, below the 0.2 error gate
WRONG_C3 = "The meeting moved to a room for."


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from store_url(request.param, tmp_path / "store")


def _outputs(texts: list[str]) -> list[dict[str, str]]:
    return [{"case_id": c["id"], "text": t} for c, t in zip(MINI_CASES, texts, strict=True)]


def _main_files(root: Path) -> dict[str, bytes]:
    return {name: (root / "reports" / name).read_bytes() for name in MAIN_FILES}


def _history(root: Path) -> tuple[str, dict]:
    reports = root / "reports"
    return ((reports / "history.md").read_text(encoding="utf-8"),
            json.loads((reports / "history.json").read_text(encoding="utf-8")))


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_history_of_three_runs_then_an_official_one(mini: pytest.Pytester, write_product,
                                                    url: str, capsys) -> None:
    (mini.path / "store").mkdir(exist_ok=True)
    store_opt = f"--dictbench-store={url}"
    reports = mini.path / "reports"
    write_product(outputs=_outputs(REFERENCES))
    mini.runpytest("--product=p1", "--dictbench-store=off").assert_outcomes(passed=4)
    without = _main_files(mini.path)
    mini.runpytest("--product=p1", store_opt).assert_outcomes(passed=4)
    assert _main_files(mini.path) == without  # a fresh store: one run, no history
    assert not any((reports / name).exists() for name in HISTORY)

    second = list(REFERENCES)
    second[1], second[2] = BROKEN_LINE, WRONG_C3
    write_product(outputs=_outputs(second))
    mini.runpytest("--product=p1", store_opt).assert_outcomes(passed=3, failed=1)
    text, facts = _history(mini.path)
    [suite] = facts["suites"]
    [entry] = suite["products"]
    assert (suite["id"], suite["version"], entry["product"]) == ("mini", "1.0", "p1")
    assert len(entry["runs"]) == 2 and entry["official"] is None
    third = list(REFERENCES)
    third[1] = BROKEN_LINE
    write_product(outputs=_outputs(third))
    mini.runpytest("--product=p1", store_opt).assert_outcomes(passed=4)

    text, facts = _history(mini.path)
    store = open_store(url)
    run1, run2, run3 = (r.run_id for r in store.runs())
    [entry] = facts["suites"][0]["products"]
    assert facts["run_id"] == run3 and entry["runs"] == [run1, run2, run3]
    one, two = entry["pairs"]
    # run 2 against run 1: c1, c2 (its line break taken out) and c4 the same; c3 not
    assert one["identical"] == {"items": 4, "identical": 3, "by": "text",
                                "different": ["c3"]}
    assert one["flips"] == {"passed_to_failed": ["c3"], "failed_to_passed": []}
    assert two["flips"] == {"passed_to_failed": [], "failed_to_passed": ["c3"]}
    assert one["comparison"]["mean_difference"] == pytest.approx(-100 / 3 / 4)
    spread = entry["spread"]
    assert spread["suite_scores"] == pytest.approx([100.0, 100 - 100 / 12, 100.0])
    assert (spread["items_varying"], spread["items"]) == (1, 4)
    assert list(spread["per_item"]) == ["c3"]
    assert spread["per_item"]["c3"]["range"] == pytest.approx(100 / 3)
    assert f"| `{run2}` | `{run1}` | 3 of 4 | 1 (c3) | 0 | -8.33 |" in text
    assert f"| `{run3}` | `{run2}` | 3 of 4 | 0 | 1 (c3) | +8.33 |" in text
    assert "Suite score per run on the 4 cases every run scored: 100.00, 91.67, 100.00 " \
           "(range 8.33, sd 4.81)." in text
    assert "| c3 | 3 | 33.33 | 19.25 |" in text
    assert "No official run is declared." in text

    # the same figures dictbench variation prints (one implementation)
    printed = _cli(capsys, "variation", "--store", url, "mini", "p1", "--json")
    for said, written in zip(json.loads(printed)["products"]["p1"]["pairs"], entry["pairs"],
                             strict=True):
        assert (said["a"], said["b"], said["identical"], said["flips"]) == \
            (written["a"], written["b"], written["identical"], written["flips"])
        for key in ("low", "high"):  # (history.json rounds its floats)
            assert said["comparison"]["interval"][key] == \
                pytest.approx(written["comparison"]["interval"][key], abs=1e-6)

    _cli(capsys, "official", "--store", url, run2, "--product", "p1",
         "--reason", "the second run, as planned")
    fourth = mini.runpytest("--product=p1", store_opt)
    fourth.assert_outcomes(passed=4)
    fourth.stdout.fnmatch_lines(["dictbench: recorded run * in *; its history: "
                                 "*reports/history.md"])
    run4 = store.runs()[-1].run_id
    text, facts = _history(mini.path)
    [entry] = facts["suites"][0]["products"]
    official = entry["official"]
    assert (official["run_id"], official["this_run"], official["reason"]) == \
        (run2, False, "the second run, as planned")
    assert official["passed_over"] == [{"run_id": run1,
                                        "why": "not declared (no condition registered)"}]
    assert f"Official run: `{run2}` (suite version 1.0), declared " \
           f"{official['declared_utc']}: the second run, as planned; this run is not it." \
        in text
    assert f"| `{run4}` | `{run3}` | 4 of 4 | 0 | 0 | +0.00 |" in text

    published = mini.path / "published"
    assert main(["publish", str(reports), str(published)]) == 0
    summary = json.loads((published / "summary.json").read_text(encoding="utf-8"))
    assert summary["suites"][0]["official"] == [
        {"product": "p1", "run_id": run2, "declared_utc": official["declared_utc"],
         "this_run": False}]
    assert f"Official run of p1: `{run2}` (declared {official['declared_utc']}); not this " \
           "run." in (published / "summary.md").read_text(encoding="utf-8")
    shown = _cli(capsys, "show", "--store", url, run4)
    assert "mini 1.0 / p1: score 100.00" in shown and f"official run: {run2}" in shown
    assert "OFFICIAL" in _cli(capsys, "show", "--store", url, run2)
    assert json.loads(_cli(capsys, "show", "--store", url, run4, "--json"))[
        "official_runs"] == {"mini/p1": run2}

    with_store = _main_files(mini.path)
    mini.runpytest("--product=p1", "--dictbench-store=off").assert_outcomes(passed=4)
    assert _main_files(mini.path) == with_store  # history beside, never inside
    assert not any((reports / name).exists() for name in HISTORY)  # no stale history
    assert main(["publish", str(reports), str(published)]) == 0
    assert "official" not in json.loads((published / "summary.json").read_text())["suites"][0]
    store.close()


def test_history_is_the_same_with_or_without_xdist(mini: pytest.Pytester,
                                                   write_product) -> None:
    """From the same store, a serial run and a run with -n 2 (its controller writes the
    history) give the same history files but for their own run ids; two products of
    one suite are compared against their own run-to-run variation."""
    write_product(outputs=_outputs(REFERENCES))
    changed = list(REFERENCES)
    changed[0] = "Hello Mario, see you at noon."  # 1 of 6 words: still passes
    write_product("p2", outputs=_outputs(changed))
    products = ("--product=p1", "--product=p2")
    mini.runpytest(*products).assert_outcomes(passed=8)
    saved = mini.path / "saved-store"
    shutil.copytree(mini.path / ".dictbench", saved)
    mini.runpytest(*products).assert_outcomes(passed=8)
    serial = {n: (mini.path / "reports" / n).read_text(encoding="utf-8") for n in HISTORY}
    serial_run = json.loads(serial["history.json"])["run_id"]
    shutil.rmtree(mini.path / ".dictbench")
    shutil.copytree(saved, mini.path / ".dictbench")
    mini.runpytest(*products, "-n", "2").assert_outcomes(passed=8)
    parallel = {n: (mini.path / "reports" / n).read_text(encoding="utf-8") for n in HISTORY}
    parallel_run = json.loads(parallel["history.json"])["run_id"]
    assert serial_run != parallel_run
    assert {n: t.replace(serial_run, parallel_run) for n, t in serial.items()} == parallel
    text, facts = _history(mini.path)
    suite = facts["suites"][0]
    assert [e["product"] for e in suite["products"]] == ["p1", "p2"]
    assert all(e["pairs"][0]["identical"]["identical"] == 4 for e in suite["products"])
    [between] = suite["between"]
    assert (between["a"], between["b"], between["identical"]["identical"]) == ("p1", "p2", 3)
    assert between["comparison"]["mean_difference"] == pytest.approx(-100 / 6 / 4)
    # neither product moved between its own runs: its own variation is 0, and the
    # difference's interval (-12.5 to 0 in bootstrap) does not lie beyond it
    assert between["beyond_own_variation"]["own_variation"] == 0
    assert "| p1 | p2 | 3 of 4 | -4.17 |" in text


def test_a_private_suites_history_holds_no_text(pytester: pytest.Pytester, write_suite,
                                                write_product) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite(extra="private = true")
    write_product(outputs=_outputs(REFERENCES))
    pytester.runpytest("--product=p1").assert_outcomes(passed=4)
    changed = list(REFERENCES)
    changed[2] = WRONG_C3
    write_product(outputs=_outputs(changed))
    pytester.runpytest("--product=p1").assert_outcomes(passed=3, failed=1)
    text, facts = _history(pytester.path)
    [entry] = facts["suites"][0]["products"]
    assert entry["pairs"][0]["identical"]["by"] == "digest"
    assert entry["pairs"][0]["identical"]["identical"] == 3
    assert len(entry["pairs"][0]["flips"]["passed_to_failed"]) == 1
    raw = text + (pytester.path / "reports/history.json").read_text(encoding="utf-8")
    for words in [*REFERENCES, WRONG_C3, "Maria", "invoice", "meeting", "milk"]:
        assert words not in raw


def _corrupt_item(url: str, run_id: str, ordinal: int) -> None:
    store = open_store(url)
    with store.backend.engine.begin() as conn:
        conn.exec_driver_sql(f"UPDATE items SET record = '{{broken' WHERE ordinal = {ordinal} "
                             f"AND run = (SELECT id FROM runs WHERE run_id = '{run_id}')")
    store.close()


def test_a_store_error_in_the_history_leaves_the_report_set(mini: pytest.Pytester,
                                                            write_product) -> None:
    """A corrupt item row of an earlier run (the store refuses that run by id): this run
    is recorded, its report set written (the same bytes as without a store) and its
    history too, leaving the corrupt run out and naming it with the store's reason; the
    run's exit status is the one it earned (issue 42: "a corrupt row (that run refused by
    id, the others intact)")."""
    write_product(outputs=_outputs(REFERENCES))
    mini.runpytest("--product=p1").assert_outcomes(passed=4)
    mini.runpytest("--product=p1").assert_outcomes(passed=4)
    assert (mini.path / "reports/history.md").is_file()
    url = f"sqlite:///{mini.path}/.dictbench/store.sqlite"
    first = open_store(url).runs()[0].run_id
    _corrupt_item(url, first, 1)
    result = mini.runpytest("--product=p1")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("*dictbench ERROR*")
    result.stdout.fnmatch_lines(["dictbench: recorded run * in *; its history: "
                                 "*reports/history.md"])
    text, facts = _history(mini.path)
    store = open_store(url)
    run1, run2, run3 = (r.run_id for r in store.runs())
    store.close()
    assert run1 == first
    [entry] = facts["suites"][0]["products"]
    reason = "item 2 is corrupt (not a JSON object)"
    assert entry["refused"] == [{"run_id": run1, "reason": reason}]
    assert entry["runs"] == [run2, run3]  # the corrupt run is in no pair
    [pair] = entry["pairs"]
    assert (pair["a"], pair["b"], pair["identical"]["identical"]) == (run2, run3, 4)
    assert entry["spread"]["runs"] == 2
    assert f"Left out, the store refused it: `{run1}` ({reason})." in text
    assert f"| `{run3}` | `{run2}` | 4 of 4 | 0 | 0 | +0.00 |" in text
    with_store = _main_files(mini.path)
    mini.runpytest("--product=p1", "--dictbench-store=off").assert_outcomes(passed=4)
    assert _main_files(mini.path) == with_store


def test_this_runs_own_unreadable_record_fails_the_run(mini: pytest.Pytester,
                                                      write_product) -> None:
    """The store error concerns this run's own recording (a trigger corrupts the first
    item row of every run recorded from now on): the report set stands, no history is
    written, and the run fails naming its own run and the store's reason."""
    write_product(outputs=_outputs(REFERENCES))
    mini.runpytest("--product=p1").assert_outcomes(passed=4)
    mini.runpytest("--product=p1").assert_outcomes(passed=4)
    url = f"sqlite:///{mini.path}/.dictbench/store.sqlite"
    store = open_store(url)
    with store.backend.engine.begin() as conn:
        conn.exec_driver_sql("CREATE TRIGGER spoil AFTER INSERT ON items WHEN NEW.ordinal = 0 "
                             "BEGIN UPDATE items SET record = '{broken' WHERE run = NEW.run "
                             "AND ordinal = 0; END")
    store.close()
    result = mini.runpytest("--product=p1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    third = open_store(url).runs()[-1].run_id
    result.stdout.fnmatch_lines([f"*dictbench ERROR: run {third} was recorded in the results "
                                 "store *, but its history files were not written: "
                                 f"run {third}: item 1 is corrupt (not a JSON object)*"])
    assert not any((mini.path / "reports" / name).exists() for name in HISTORY)
    assert (mini.path / "reports/dictbench.json").is_file()


def test_a_store_that_cannot_be_read_is_not_a_run_left_out(url: str) -> None:
    """An error that is not one run's (the items table gone) stops the history with
    the store's error; it is never taken for a corrupt run and left out."""
    from pytest_dictbench.report.history import history_texts
    from pytest_dictbench.store import CorruptRunError, StoreError

    store = open_store(url)
    put(store, "r1", [record(f"c{i}", 90.0) for i in range(3)],
        finished="2026-12-01T02:00:00Z")
    put(store, "r2", [record(f"c{i}", 80.0) for i in range(3)],
        finished="2026-12-02T02:00:00Z")
    assert history_texts(store, "r2", resamples=200, seed=1)  # two runs: a history
    with store.backend.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE items")
    with pytest.raises(StoreError) as raised:
        history_texts(store, "r2", resamples=200, seed=1)
    assert not isinstance(raised.value, CorruptRunError)
    store.close()


def test_shared_draws_give_the_same_comparison() -> None:
    """The history shares the bootstrap's draws between its comparisons
    (``stats.SharedDraws``): the same pairing, float for float, as drawing per pair."""
    from pytest_dictbench import stats
    from pytest_dictbench.variation import pair_runs

    a = [record(f"c{i}", float(i * 7 % 100)) for i in range(40)]
    b = [record(f"c{i}", float(i * 13 % 100)) for i in range(40)]
    shared = stats.SharedDraws(500, 3)
    fresh = pair_runs(a, b, resamples=500, seed=3)
    assert pair_runs(a, b, resamples=500, seed=3, shared=shared) == fresh
    assert pair_runs(b, a, resamples=500, seed=3, shared=shared) == \
        pair_runs(b, a, resamples=500, seed=3)
    interval = fresh["comparison"]["interval"]
    assert interval["low"] < interval["high"]


def test_the_history_covers_a_window_of_the_newest_runs(mini: pytest.Pytester,
                                                         write_product, url: str) -> None:
    """ini dictbench_history_runs = 2 and three stored runs: the history covers the two
    newest and names the one left out (issue 49: a documented bound on what grows with
    runs). Counts by hand: run 3 against run 2 differs only in c3 (wrong, then right
    again); c2's line break is taken out."""
    (mini.path / "store").mkdir(exist_ok=True)
    mini.makeini("[pytest]\ndictbench_suites = cases/mini\ndictbench_history_runs = 2\n")
    store_opt = f"--dictbench-store={url}"
    write_product(outputs=_outputs(REFERENCES))
    mini.runpytest("--product=p1", store_opt).assert_outcomes(passed=4)
    second = list(REFERENCES)
    second[2] = WRONG_C3
    write_product(outputs=_outputs(second))
    mini.runpytest("--product=p1", store_opt).assert_outcomes(passed=3, failed=1)
    third = list(REFERENCES)
    third[1] = BROKEN_LINE
    write_product(outputs=_outputs(third))
    mini.runpytest("--product=p1", store_opt).assert_outcomes(passed=4)

    store = open_store(url)
    run1, run2, run3 = (r.run_id for r in store.runs())
    store.close()
    text, facts = _history(mini.path)
    [entry] = facts["suites"][0]["products"]
    assert entry["runs"] == [run2, run3]
    assert entry["window"] == {"runs": 2, "complete_runs": 3, "left_out": 1,
                               "left_out_oldest": run1, "left_out_newest": run1}
    assert entry["refused"] == []
    [pair] = entry["pairs"]
    assert (pair["a"], pair["b"]) == (run2, run3)
    assert pair["identical"] == {"items": 4, "identical": 3, "by": "text",
                                 "different": ["c3"]}
    assert pair["flips"] == {"passed_to_failed": [], "failed_to_passed": ["c3"]}
    assert pair["comparison"]["mean_difference"] == pytest.approx(100 / 3 / 4)
    spread = entry["spread"]
    assert spread["suite_scores"] == pytest.approx([100 - 100 / 12, 100.0])
    assert (spread["runs"], spread["items_varying"], spread["items"]) == (2, 1, 4)
    assert run1 not in json.dumps(entry["pairs"]) + json.dumps(spread)
    assert "Run-to-run variation over the newest 2 of the 3 complete stored runs of this " \
           f"suite version (dictbench_history_runs = 2; left out: 1 older run, `{run1}`):" \
        in text
    assert f"| `{run3}` | `{run2}` | 3 of 4 | 0 | 1 (c3) | +8.33 |" in text
    assert "Suite score per run on the 4 cases every run scored: 91.67, 100.00 " \
           "(range 8.33, sd 5.89)." in text


@pytest.mark.parametrize("value", ["1", "ten"])
def test_a_history_window_below_two_runs_is_refused(mini: pytest.Pytester,
                                                    value: str) -> None:
    mini.makeini(f"[pytest]\ndictbench_suites = cases/mini\ndictbench_history_runs = {value}\n")
    result = mini.runpytest("--product=p1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*dictbench_history_runs = {value}*a whole number of runs, "
                                 "at least 2*"])


def test_publish_refuses_a_history_file_it_cannot_read(tmp_path: Path) -> None:
    """A history.json that is not one is named, not skipped (the summary would then say
    no run is official); one without a declaration names none."""
    from pytest_dictbench.errors import DictbenchError
    from pytest_dictbench.workbench.publish import official_runs

    assert official_runs(tmp_path) == {}
    (tmp_path / "history.json").write_text('{"suites": [{"id": "s", "products": [{}]}]}')
    with pytest.raises(DictbenchError, match=r"history\.json.*not a dictbench history file"):
        official_runs(tmp_path)
    (tmp_path / "history.json").write_text(
        '{"suites": [{"id": "s", "products": [{"product": "p", "official": null}]}]}')
    assert official_runs(tmp_path) == {}


def test_runs_above_the_item_bound_name_the_variation_without_measuring_it(
        url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issues 42/49: a suite x product whose run holds more items than the history
    measures (report.history.VARIATION_ITEMS_UP_TO, the spool's bound) reads none of
    its stored items: the history says the variation was not measured and points at
    ``dictbench variation``; products under the bound are still measured. Nothing to
    measure draws no bootstrap indices (nor imports numpy to draw them)."""
    from pytest_dictbench import stats
    from pytest_dictbench.report import history

    draws: list[int] = []
    shared_draws = stats.SharedDraws
    monkeypatch.setattr(stats, "SharedDraws", lambda resamples, seed: draws.append(
        resamples) or shared_draws(resamples, seed))
    monkeypatch.setattr(history, "VARIATION_ITEMS_UP_TO", 3)
    store = open_store(url)
    for run, day, score in (("r1", 1, 90.0), ("r2", 2, 80.0)):
        put(store, run, [record(f"c{i}", score) for i in range(4)],
            finished=f"2026-12-0{day}T02:00:00Z")
    read: list[str] = []
    items = store.items
    monkeypatch.setattr(store, "items", lambda run_id, **kw: read.append(run_id) or
                        items(run_id, **kw))
    texts = history.history_texts(store, "r2", resamples=200, seed=1)
    markdown = texts["history.md"]
    entry = json.loads(texts["history.json"])["suites"][0]["products"][0]
    assert entry["not_measured"] == {"items": 4, "up_to": 3}
    assert "pairs" not in entry and read == [] and draws == []
    assert "not measured with the run (4 items, above the 3 the reports measure); " \
        "`dictbench variation` measures it." in markdown
    monkeypatch.setattr(history, "VARIATION_ITEMS_UP_TO", 4)
    texts = history.history_texts(store, "r2", resamples=200, seed=1)
    entry = json.loads(texts["history.json"])["suites"][0]["products"][0]
    assert "not_measured" not in entry and entry["pairs"][0]["identical"]["items"] == 4
    assert sorted(read) == ["r1", "r2"] and draws == [200]
    store.close()
