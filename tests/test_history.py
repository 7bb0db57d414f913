"""History over the store: run-to-run variation, trends with the run where a product
dropped, official runs and report sets imported, checked against hand counts (issue 42).
The commands run on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_support import put, record, report_for, store_url

from pytest_dictbench.cli import main
from pytest_dictbench.compare import CaseScores
from pytest_dictbench.report.files import dumps, natural_line
from pytest_dictbench.store import Summary, open_store, store_location
from pytest_dictbench.store.reportset import import_report_set
from pytest_dictbench.trend import sparkline, trend_points
from pytest_dictbench.variation import (
    beyond_variation,
    flips,
    identical_outputs,
    line_free,
    pair_runs,
    score_spread,
)


def test_identical_outputs_ignore_line_breaks_only() -> None:
    a = [record("c1", 90.0, text="first line\nsecond"), record("c2", 90.0, text="a b"),
         record("c3", 90.0, text="same"), record("c4", None, status="not_tested", text=None),
         record("c5", 90.0, text="x\r\ny")]
    b = [record("c1", 90.0, text="first linesecond"), record("c2", 90.0, text="ab"),
         record("c3", 90.0, text="same"), record("c4", 90.0, text="late"),
         record("c5", 90.0, text="xy")]
    # hand count: c1, c3, c5 identical; c2 differs (a space is no line break); c4 unpaired
    assert identical_outputs(a, b) == {"items": 4, "identical": 3, "by": "text",
                                       "different": ["c2"]}
    assert line_free("a\u2028b\rc\n") == "abc"
    private = [dict(r, text=None, text_sha256=f"h{i % 2}") for i, r in enumerate(a)]
    assert identical_outputs(private, [dict(r, text_sha256="h0") for r in private])[
        "identical"] == 3  # digests h0, h1, h0, h1, h0 against h0: three equal


def test_flips_spread_and_paired_difference_by_hand() -> None:
    run1 = [record("c1", 100.0), record("c2", 40.0), record("c3", 0.0), record("c4", 80.0)]
    run2 = [record("c1", 90.0), record("c2", 60.0), record("c3", 0.0), record("c4", 30.0)]
    run3 = [record("c1", 80.0), record("c2", 40.0), record("c3", 0.0), record("c4", 80.0)]
    assert flips(run1, run2) == {"passed_to_failed": ["c4"], "failed_to_passed": ["c2"]}
    moved = pair_runs(run1, run2, resamples=500, seed=1)
    # (-10 + 20 + 0 - 50) / 4 = -10
    assert moved["comparison"]["mean_difference"] == pytest.approx(-10.0)
    assert moved["comparison"]["n"] == 4
    spread = score_spread([run1, run2, run3])
    assert spread["per_item"]["c1"] == {"runs": 3, "range": 20.0, "sd": pytest.approx(10.0)}
    assert spread["per_item"]["c3"]["range"] == 0
    # means: (100+40+0+80)/4 = 55, (90+60+0+30)/4 = 45, (80+40+0+80)/4 = 50
    assert spread["suite_scores"] == pytest.approx([55.0, 45.0, 50.0])
    assert spread["suite_range"] == pytest.approx(10.0)
    assert (spread["items_varying"], spread["items"]) == (3, 4)
    assert spread["widest"]["case"] == "c4" and spread["widest"]["range"] == 50.0


def test_a_difference_beyond_own_variation() -> None:
    within = [{"interval": {"low": -2.0, "high": 1.5}}, {"interval": {"low": -1.0, "high": 3.0}}]
    far = {"mean_difference": -6.0, "interval": {"low": -9.0, "high": -3.5}}
    near = {"mean_difference": -4.0, "interval": {"low": -7.0, "high": -2.5}}
    assert beyond_variation(far, within)["beyond"] is True  # -3.5 < -3.0
    assert beyond_variation(near, within)["beyond"] is False  # -2.5 is within 3.0
    assert beyond_variation(far, [None]) is None


def _summary(run_id: str, score: float, version: str = "1.0") -> Summary:
    return Summary(run_id, f"2026-12-0{run_id[-1]}T02:00:00Z", None, "s1", version, "p1",
                   "1", score, score - 1, score + 1, 20, 0, 0, 0, 0)


def test_the_night_it_dropped_is_flagged() -> None:
    items = {"r1": [record(f"c{i}", 90.0) for i in range(20)],
             "r2": [record(f"c{i}", 92.0 if i % 2 else 88.0) for i in range(20)],  # same mean
             "r3": [record(f"c{i}", 60.0) for i in range(20)],  # every case 30 down
             "r4": [record(f"c{i}", 55.0) for i in range(20)]}
    summaries = [_summary("r1", 90.0), _summary("r2", 89.9), _summary("r3", 60.0),
                 _summary("r4", 55.0, version="2.0")]
    points = trend_points(summaries, lambda run: CaseScores.of(items[run]), resamples=1000,
                          seed=7)
    assert [p["drop"] is not None for p in points] == [False, False, True, False]
    assert points[2]["drop"]["mean_difference"] == pytest.approx(-30.0)
    assert points[3]["new_version"] is True
    assert sparkline([0.0, 50.0, 100.0, None]) == "▁▅█ "
    assert sparkline([3.0, 3.0]) == "▅▅"


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from store_url(request.param, tmp_path)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_three_runs_one_official_and_their_variation(url: str, capsys) -> None:
    store = open_store(url)
    assert "registered for s1/p1: at most 1 item(s) with flag fallback" in run_cli(
        capsys, "official", "--store", url, "--register", "s1", "--product", "p1",
        "--max-items", "1", "--flag", "fallback")
    texts = ["one", "two", "three", "four"]
    run1 = [record(f"c{i}", s, text=t, flags={"fallback": i < 2})
            for i, (s, t) in enumerate(zip([100.0, 40.0, 80.0, 90.0], texts, strict=True))]
    run2 = [record(f"c{i}", s, text=t) for i, (s, t) in
            enumerate(zip([100.0, 60.0, 30.0, 90.0], ["one", "TWO", "three", "fo\nur"],
                          strict=True))]
    run3 = [record(f"c{i}", s, text=t) for i, (s, t) in
            enumerate(zip([100.0, 40.0, 80.0, 90.0], texts, strict=True))]
    put(store, "r1", run1, finished="2026-12-01T02:00:00Z")
    put(store, "r2", run2, finished="2026-12-02T02:00:00Z")
    put(store, "r3", run3, finished="2026-12-03T02:00:00Z")
    put(store, "q1", [record(f"c{i}", 20.0, product="p2", text="zz") for i in range(4)],
        finished="2026-12-03T03:00:00Z")
    out = run_cli(capsys, "variation", "--store", url, "s1", "p1")
    # r2 against r1: one, three, fo\nur identical (3 of 4); c1 40->60 and c2 80->30 flip
    assert "r2 against r1: 3 of 4 outputs identical (line breaks ignored)" in out
    assert "1 passed -> failed: c2" in out and "1 failed -> passed: c1" in out
    assert "r3 against r2: 3 of 4 outputs identical" in out
    assert "score per run on the 4 cases every run scored: 77.50, 70.00, 77.50 (range 7.50)" \
        in out
    assert "cases whose score varies between runs: 2 of 4 (widest range 50.00: c2)" in out
    both = run_cli(capsys, "variation", "--store", url, "s1", "p1", "p2", "--json")
    result = json.loads(both)
    [between] = result["between"]
    assert between["identical"]["identical"] == 0
    assert between["comparison"]["mean_difference"] == pytest.approx(20.0 - 77.5)
    ends = [abs(pair["comparison"]["interval"][end])
            for pair in result["products"]["p1"]["pairs"] for end in ("low", "high")]
    beyond = between["beyond_own_variation"]
    assert beyond["own_variation"] == pytest.approx(max(ends))
    assert beyond["beyond"] == (beyond["interval"][1] < -max(ends))
    official = run_cli(capsys, "official", "--store", url, "r3", "--product", "p1",
                       "--reason", "the third run, as planned")
    assert "r3 is the official run of p1 on s1" in official
    assert "passed over r1: did not meet the condition: 2 item(s) with flag fallback" \
        in official
    assert "passed over r2: met the condition (0 item(s)" in official
    assert main(["official", "--store", url, "r1", "--product", "p1", "--reason", "x"]) == 2
    listing = run_cli(capsys, "runs", "--store", url, "--product", "p1")
    assert listing.splitlines()[3].startswith("r3 ") and "official: s1/p1" in listing
    shown = run_cli(capsys, "show", "--store", url, "r3")
    assert "s1 1.0 / p1: score 77.50 [77.50, 77.50], 3 of 4 passed  OFFICIAL" in shown
    trend = run_cli(capsys, "trend", "--store", url, "s1", "p1", "--resamples", "500")
    assert "s1 / p1: 3 run(s)" in trend
    assert "dropped" not in trend  # 77.5 -> 70 over four cases is not resolved
    compared = run_cli(capsys, "compare", "--store", url, "r1", "r2")
    assert "s1 / p1: 3 of 4 outputs identical" in compared
    assert "mean difference -7.50 points on 4 cases" in compared
    store.close()


def test_trend_names_the_night_it_dropped(url: str, capsys, tmp_path: Path) -> None:
    store = open_store(url)
    for day, score in ((1, 90.0), (2, 91.0), (3, 60.0), (4, 61.0)):
        put(store, f"n{day}", [record(f"c{i}", score + (i % 3)) for i in range(12)],
            finished=f"2026-12-0{day}T02:00:00Z")
    figure = tmp_path / "trend.svg"
    out = run_cli(capsys, "trend", "--store", url, "s1", "p1", "--resamples", "1000",
                  "--figure", str(figure))
    lines = out.splitlines()
    # means 91, 92, 61, 62: (91 - 61) / 31 * 7 = 6.8 rounds to the top bar, as 92 does
    assert lines[0] == "s1 / p1: 4 run(s)  ██▁▁"
    # every case fell 31 points from n2 to n3: the only resolved drop
    assert [line.split()[1] for line in lines[1:] if "DROP" in line] == ["n3"]
    assert "DROP -31.00 (95% interval -31.00 to -31.00)" in out
    assert lines[-1] == "dropped (resolved) in 1 run(s); first on 2026-12-03 (n3)"
    svg = figure.read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and 'xmlns="http://www.w3.org/2000/svg"' in svg
    assert "s1 / p1" in svg and "-31.0" in svg
    store.close()


def test_a_store_that_is_off_or_missing_is_named(tmp_path: Path, capsys,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DICTBENCH_STORE", raising=False)
    assert main(["runs"]) == 2
    assert "no results store here" in capsys.readouterr().err
    assert main(["runs", "--store", "off"]) == 2
    (tmp_path / ".dictbench").mkdir()
    open_store(store_location(None, tmp_path)).close()
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")  # found one folder up
    assert "0 run(s) in" in run_cli(capsys, "runs")


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_RECORDS = st.lists(st.tuples(st.sampled_from(["p1", "p2"]),
                              st.one_of(st.none(), st.floats(0, 100)), _TEXT),
                    min_size=1, max_size=12)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=_RECORDS)
def test_a_report_set_imported_reads_back_the_same(tmp_path: Path, rows) -> None:
    """Property: a report set written, imported and read back gives the same
    dictbench.json and items.jsonl, byte for byte."""
    folder = tmp_path / f"set-{abs(hash(str(rows)))}"
    folder.mkdir()
    records = [record(f"c{i}", score, product=product, text=text,
                      status=None if score is not None else "not_tested")
               for i, (product, score, text) in enumerate(rows)]
    (folder / "dictbench.json").write_text(dumps(report_for(records)) + "\n", encoding="utf-8")
    lines = "".join(natural_line(r) + "\n" for r in records)
    (folder / "items.jsonl").write_text(lines, encoding="utf-8")
    (folder / "run-info.json").write_text('{"finished_utc": "2026-12-01T00:00:00Z"}\n')
    store = open_store(store_location(str(tmp_path / "s.sqlite"), tmp_path))
    run_id = import_report_set(store, folder, folder.name)
    assert store.report(run_id) == (folder / "dictbench.json").read_text(encoding="utf-8")
    assert "".join(line + "\n" for line in store.item_lines(run_id)) == lines
    assert store.items(run_id) == records
    assert store.run(run_id).source == "import"
    store.close()


def test_store_import_command(mini: pytest.Pytester, capsys) -> None:
    mini.runpytest("--product=p1", "--dictbench-store=off")
    url = f"sqlite:///{mini.path}/imported.sqlite"
    out = run_cli(capsys, "store", "import", "--store", url, str(mini.path / "reports"))
    assert "recorded as run" in out
    store = open_store(url)
    [run] = store.runs()
    assert store.report(run.run_id) == (mini.path / "reports/dictbench.json").read_text()
    assert main(["store", "import", "--store", url, str(mini.path)]) == 2  # not a report set
