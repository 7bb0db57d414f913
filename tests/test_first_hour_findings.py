"""Findings of clarity-and-first-hour.md that need no pytest run: strict JSON in
``dictbench publish`` (CF2) and the line named for a duplicate key (CF22)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_dictbench.cli import main
from pytest_dictbench.errors import DictbenchError
from pytest_dictbench.jsonl import parse_json


def test_cf2_publish_refuses_a_duplicated_key(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    reports = tmp_path / "base3"
    reports.mkdir()
    text = json.dumps({"schema_version": 1, "suites": [{"id": "s", "products": [
        {"product": "p1", "score": 100.0}]}]}, indent=1)
    text = text.replace('"score": 100.0', '"score": 100.0,\n    "score": 1.0')
    (reports / "dictbench.json").write_text(text, encoding="utf-8")
    assert main(["publish", str(reports), str(tmp_path / "pub")]) == 2
    line = text.splitlines().index('    "score": 1.0') + 1
    assert f"dictbench.json:{line}: duplicate key 'score' in one object" in \
        capsys.readouterr().err
    assert not (tmp_path / "pub").exists()


@pytest.mark.parametrize("text,line", [
    ('{"a": {"k": 1},\n "b": {"k": 2,\n "x": 0,\n "k": 3}}', 4),
    ('[{"k": 1},\n{"k": 2, "s": "a\\"k\\":",\n"k": 3}]', 3),
    ('{"k": [1,\n{"k": 2}],\n"k": 1}', 3),
])
def test_cf22_the_line_of_the_repeated_key_in_its_own_object(text: str, line: int) -> None:
    with pytest.raises(DictbenchError, match=rf"^f\.json:{line}: duplicate key 'k'"):
        parse_json(text, DictbenchError, "f.json")


def test_cf6_a_provisional_item_record_says_so() -> None:
    """items.jsonl: a passed-but-provisional item carries ``verdict: provisional`` (the
    JUnit property's word), so a consumer counting passes need not know the rule."""
    from types import SimpleNamespace

    from pytest_dictbench.model import ItemResult
    from pytest_dictbench.plugin.junit import junit_properties
    from pytest_dictbench.report.record import item_record
    from pytest_dictbench.suites import load_suite

    suite = load_suite(Path(__file__).resolve().parents[1] / "cases" / "en-dictation")
    item = SimpleNamespace(suite=suite, case=suite.cases[0],
                           product=SimpleNamespace(name="p"), repetition=1)
    waiting = item_record(item, "passed", suite_path="cases/en-dictation",
                          result=ItemResult(passed=True, score=None, provisional=3))
    assert waiting["verdict"] == "provisional"
    assert ("dictbench.verdict", "provisional") in junit_properties(waiting)
    done = item_record(item, "passed", suite_path="cases/en-dictation",
                       result=ItemResult(passed=True, score=90.0))
    assert done["verdict"] == "pass"
    assert item_record(item, "error", suite_path="x", message="m")["verdict"] == "error"


def test_cf38_a_mistyped_product_gets_a_suggestion(tmp_path: Path) -> None:
    from pytest_dictbench.errors import ProductError
    from pytest_dictbench.products import load_product

    for name in ("whisper-tiny", "whisper-base", "acme"):
        (tmp_path / f"{name}.toml").write_text(f'name = "{name}"\n')
    with pytest.raises(ProductError, match=r"product 'whsper-tiny' not found; did you mean "
                                           r"'whisper-tiny'\? \(known: acme, "):
        load_product("whsper-tiny", tmp_path)
    with pytest.raises(ProductError, match=r"product 'zzz' not found \(known: "):
        load_product("zzz", tmp_path)


def test_cf27_cf14_undeclared_and_multiline_environment_values() -> None:
    from pytest_dictbench.report.cohorts import cohort_text

    assert cohort_text({"hardware": None, "os": None}) == \
        "hardware=(not declared), os=(not declared)"
    assert cohort_text({"hardware": "X\nY", "os": "A"}) == "hardware=X\\nY, os=A"


def test_cf14_cf23_publish_escapes_cells_and_shows_the_ranked_metric() -> None:
    from pytest_dictbench.workbench.publish import render_summary, summarize_report

    report = {"suites": [{
        "id": "s", "title": "S", "version": "1", "method": "error_rate",
        "headline": "error_rate",
        "leaderboard": [{"product": "b", "rank": 1, "error_rate": 0.1},
                        {"product": "a", "rank": 2, "error_rate": 0.2}],
        "comparisons": [{"a": "a", "b": "b", "n": 3, "mean_difference": 1.0,
                         "interval": {"low": 0.5, "high": 1.5}, "mcnemar_p": 0.0001,
                         "p_holm": 0.0001}],
        "products": [
            {"product": "a", "version": "1\n2", "items": 3, "passed": 3, "failed": 0,
             "errors": 0, "score": 80.0, "rank": 2},
            {"product": "b", "version": "1", "items": 3, "passed": 3, "failed": 0,
             "errors": 0, "score": 90.0, "rank": None,
             "reason": "its hardware='M3 | Max' differs"}]}]}
    text = render_summary(summarize_report(report))
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    header = rows[0]
    assert "| error\\_rate |" in header  # the ranked metric, escaped as Markdown
    table = rows[:3]  # the products table: header, b, a
    pipes = {line.replace("\\|", "").count("|") for line in table}
    assert len(pipes) == 1, table  # every row has the header's columns
    assert [r.split("|")[1].strip() for r in table[1:]] == ["b", "a"]  # rank order
    assert "| <0.001 | <0.001 |" in text


def test_cf9_a_verbatim_suite_refuses_params_it_does_not_read(tmp_path: Path) -> None:
    from pytest_dictbench.datasets import VerbatimRow, write_suite
    from pytest_dictbench.errors import SuiteError
    from pytest_dictbench.methods.verbatim.method import Verbatim
    from pytest_dictbench.suites import load_suite

    root = write_suite([VerbatimRow(id="a", verbatim="so [uh] yes", intended="so yes")],
                       tmp_path / "s", suite_id="s", canary="DICTBENCH-CANARY s 1", title="t")
    Verbatim().check_params(load_suite(root))
    manifest = root / "suite.toml"
    manifest.write_text(manifest.read_text().replace(
        "[params]\n", '[params]\nnormalization = "whisper"\n'))
    with pytest.raises(SuiteError, match=r"params\.normalization is not a verbatim setting "
                                         r"\(verbatim suites read: vwer_threshold\)"):
        Verbatim().check_params(load_suite(root))


def test_cf12_the_limits_compare_the_drop_as_printed() -> None:
    """A drop of 100/24 = 4.1666... is printed 4.17: a limit of 4.16667 fails it (it is not
    'within' that limit), a limit of 4.17 lets it through."""
    from pytest_dictbench.gate import GateOptions, _baseline, accepted_drops

    c = {"mean_difference": -100 / 24, "interval": {"low": -12.5, "high": 0.0},
         "n": 24, "mcnemar_p": 1.0}
    options = GateOptions(max_drop=2.0, max_drop_abs=4.16667)
    assert _baseline(("s", "p"), c, True, options) and not accepted_drops(c, options)
    options = GateOptions(max_drop=2.0, max_drop_abs=4.17)
    assert _baseline(("s", "p"), c, True, options) == []
    assert accepted_drops(c, options)[0].startswith("a drop of 4.17 points")


def test_cf30_a_key_set_twice_in_toml_is_named_with_its_line(tmp_path: Path) -> None:
    from pytest_dictbench.errors import ProductError
    from pytest_dictbench.suites import read_toml

    path = tmp_path / "dup.toml"
    path.write_text('name = "dup"\nversion = "1"\nadapter = "cache"\n\nversion = "2"\n')
    with pytest.raises(ProductError, match=r"dup\.toml:5: the key 'version' is set twice"):
        read_toml(path, ProductError)
    path.write_text('name = "dup"\nversion = \n')
    with pytest.raises(ProductError, match=r"dup\.toml:2: malformed TOML: "):
        read_toml(path, ProductError)


def test_cf37_a_reason_shared_by_products_is_printed_once() -> None:
    from pytest_dictbench.report.terminal import summary_lines

    def entry(name: str, reason: str) -> dict:
        return {"product": name, "items": 1, "passed": 1, "failed": 0, "errors": 0,
                "not_tested": 0, "empty": 0, "score": 1.0, "rank": None, "reason": reason,
                "canary_leaks": []}

    suite = {"id": "rig", "title": "R", "method": "rig", "headline": "score",
             "canary": {"status": "ok", "missing_in": []}, "leaderboard": [],
             "comparisons": [], "products": [entry("a", "no overall ranking"),
                                             entry("b", "no overall ranking"),
                                             entry("c", "its own reason")]}
    lines = summary_lines({"suites": [suite]})
    assert sum("no overall ranking" in line for line in lines) == 1
    assert "rig: 2 products not ranked (a, b): no overall ranking" in lines
    assert "rig/c: not ranked: its own reason" in lines


def test_cf3_the_not_ranked_reason_names_only_products_with_the_values_shown() -> None:
    from pytest_dictbench.ranking import _apart

    reason = _apart({"hardware": "B", "os": "B"},
                    [("a", {"hardware": "M3 | Max", "os": "A"}),
                     ("c", {"hardware": "X" * 20, "os": "A"})])
    assert reason == "its hardware='B', os='B' differ from hardware='M3 | Max', os='A' of a"
    two = _apart({"os": "y"}, [("a", {"os": "x"}), ("b", {"os": "x"}), ("c", {"os": "z"})])
    assert two == "its os='y' differs from os='x' of a, b"


def test_cf32_every_command_help_has_an_example_and_a_docs_page() -> None:
    from pytest_dictbench.cli import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.choices and "hash" in a.choices]
    for name, command in sub.choices.items():
        text = command.format_help()
        assert "example: dictbench " in text and "docs/" in text, name
    synth = sub.choices["synth"].format_help()
    assert "(default: -23.0)" in synth
    assert "or a rig package manifest" in sub.choices["hash"].format_help()


def test_cf13_an_empty_normalised_reference_is_said_in_the_item(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from pytest_dictbench.methods.error_rate import ErrorRate
    from pytest_dictbench.model import Output

    suite = SimpleNamespace(params={}, locale="en-US", root=tmp_path)
    case = SimpleNamespace(get=lambda k, d=None: {"reference": "?!"}.get(k, d))
    ctx = SimpleNamespace(suite=suite, params={})
    result = ErrorRate().score(case, Output(case_id="c", text="okay"), ctx)
    assert result.rules[0].evidence.startswith(
        "the reference is empty after the default normaliser ('?!'), so this item "
        "measures only insertions; ")
    assert "reference empty after normalisation" in result.message


@pytest.mark.parametrize("name,heard,found", [
    ("大野", "オーノ", True), ("大野", "おおの", True), ("京子", "キョーコ", True),
    ("京子", "キョウコ", True), ("河野", "コーノ", True),
    ("京子", "キヨウコ", False),  # a large ヨ is another sound: kept apart
    ("河野", "カワノ", False),  # the name's other reading: kept apart
])
def test_cf5_a_long_vowel_mark_reads_as_the_vowel_it_lengthens(name: str, heard: str,
                                                                found: bool) -> None:
    from pytest_dictbench.methods.keypoints.names import compare_names

    scores = compare_names(f"昨日{name}さんと会った。", f"昨日{heard}さんと会った。",
                           match="reading")
    assert (scores.tp, scores.fp, scores.fn) == ((1, 0, 0) if found else (0, 1, 1))


def test_cf31_a_fifo_is_refused_in_one_wording_everywhere(tmp_path: Path) -> None:
    import os

    from pytest_dictbench.errors import ProductError
    from pytest_dictbench.plugin.gate import load_baseline
    from pytest_dictbench.products import load_product
    from pytest_dictbench.workbench.publish import publish

    wording = r"not a regular file \(a FIFO, device, socket or folder is never read\)"
    os.mkfifo(tmp_path / "live.toml")
    with pytest.raises(ProductError, match=rf"live\.toml: {wording}"):
        load_product("live", tmp_path)
    base = tmp_path / "base"
    base.mkdir()
    os.mkfifo(base / "dictbench.json")
    (base / "items.jsonl").write_text("")
    with pytest.raises(DictbenchError, match=rf"dictbench\.json: {wording}"):
        load_baseline("base", tmp_path)
    with pytest.raises(DictbenchError, match=rf"dictbench\.json: {wording}"):
        publish(base, tmp_path / "out")


def test_cf23_the_terminal_leaderboard_shows_the_headline_rates_first() -> None:
    from pytest_dictbench.report.terminal import summary_lines

    row = {"product": "p", "rank": 1, "disfluency_f1": 0.5, "vwer": 0.2, "iwer": 0.1,
           "vcer": 0.1, "icer": 0.05, **{f"a_metric_{i}": 0.0 for i in range(12)}}
    suite = {"id": "v", "title": "V", "method": "verbatim", "headline": "disfluency_f1",
             "canary": {"status": "ok", "missing_in": []}, "leaderboard": [row],
             "comparisons": [], "products": [{"product": "p", "items": 1, "passed": 1,
                                              "failed": 0, "errors": 0, "not_tested": 0,
                                              "empty": 0, "score": 50.0, "rank": 1,
                                              "canary_leaks": []}]}
    header = next(line for line in summary_lines({"suites": [suite]})
                  if line.startswith("product "))
    assert header.split()[:9] == ["product", "rank", "cohort", "score", "disfluency_f1",
                                  "vwer", "iwer", "vcer", "icer"]


def test_cf19_the_terminal_says_when_refine_pipelines_score_the_raw_text() -> None:
    from pytest_dictbench.report.terminal import summary_lines

    def entry(name: str, scored: list[str]) -> dict:
        return {"product": name, "items": 1, "passed": 1, "failed": 0, "errors": 0,
                "not_tested": 0, "empty": 0, "score": 50.0, "rank": None,
                "canary_leaks": [], "pipeline": {"asr": ["p1"], "scored": scored}}

    suite = {"id": "s", "title": "S", "method": "error_rate", "headline": "score",
             "canary": {"status": "ok", "missing_in": []}, "leaderboard": [],
             "comparisons": [], "products": [entry("grid.a", ["raw"]), entry("grid.b", ["raw"]),
                                             entry("grid.c", ["refined"])]}
    lines = summary_lines({"suites": [suite]})
    assert ("s: refine pipelines grid.a, grid.b: the raw recogniser text was scored (the "
            "suite's score_text), not the refined text; set score_text = \"refined\" at the "
            "top of suite.toml to score it") in lines  # CF19


def test_cf15_a_character_diff_keeps_an_emoji_sequence_whole() -> None:
    from pytest_dictbench.text.diff import graphemes, render_diff

    girl, boy = "👩\u200d👩\u200d👧", "👩\u200d👩\u200d👦"
    assert render_diff(f"家族{girl}です", f"家族{boy}です", unit="char") == \
        f"家族[-{girl}-]{{+{boy}+}}です"
    assert graphemes("e\u0301a🇯🇵👍🏽") == ["e\u0301", "a", "🇯🇵", "👍🏽"]
