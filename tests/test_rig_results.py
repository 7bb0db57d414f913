"""Reading a results CSV: accepted forms and every refusal, each naming row and column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rig_support import csv_text, edit_manifest, row, write_package

from pytest_dictbench.errors import SuiteError
from pytest_dictbench.model import Suite
from pytest_dictbench.rig.notes import compose_notes, split_notes
from pytest_dictbench.rig.package import load_package
from pytest_dictbench.rig.results import iter_results, read_results
from pytest_dictbench.rig.rows import COLUMNS, ResultsError


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return load_package(write_package(tmp_path / "pkg"))


def read(tmp_path: Path, suite: Suite, text: str | bytes, name: str = "results.csv"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return read_results(path, suite)


def refused(tmp_path: Path, suite: Suite, rows, match: str, **kw) -> None:
    with pytest.raises(ResultsError, match=match):
        read(tmp_path, suite, csv_text(rows, **kw))


def test_rows_are_read_with_crlf_bom_and_transcript_files(tmp_path: Path, suite: Suite) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "r2.txt").write_bytes("\ufeffSend the draft\r\nto Ana.\r\n".encode())
    rows = [row(), row(rep=2, raw_transcript="", raw_transcript_path="t/r2.txt"),
            row(rep=3, status="not_tested", raw_transcript="", elapsed_seconds="")]
    text = "\ufeff" + csv_text(rows, newline="\r\n")
    first, second, third = read(tmp_path, suite, text)
    assert first.values["raw_transcript"] == "Send the draft to Ana before noon."
    assert second.values["raw_transcript"] == "Send the draft\nto Ana."
    assert second.cells["raw_transcript"] == "Send the draft\nto Ana."
    assert second.cells["raw_transcript_path"] == ""  # exported inline
    assert (first.number, second.number, third.number) == (2, 3, 4)
    assert third.status == "not_tested" and first.values["elapsed_seconds"] == 2.5


def test_inline_cells_lose_one_terminal_newline(tmp_path: Path, suite: Suite) -> None:
    [r] = read(tmp_path, suite, csv_text([row(raw_transcript="two lines\r\nend\n\n")]))
    assert r.values["raw_transcript"] == "two lines\nend\n"


def test_empty_lines_are_ignored_and_blank_status_is_blank(tmp_path: Path, suite: Suite
                                                           ) -> None:
    blank = dict.fromkeys(COLUMNS, "")
    blank.update(app_id="app2", fixture_id="fix", repetition="2")
    rows = read(tmp_path, suite, csv_text([blank]) + ",,,,,,,,,,,,,,,,,,,,,,,,,,,\n")
    assert [(r.status, r.test_profile) for r in rows] == [("blank", "default")]


@pytest.mark.parametrize(("header", "match"), [
    (COLUMNS[:-1], r"row 1, column 28: header: missing column 'notes'"),
    ((*COLUMNS, "extra"), r"row 1, column 29: header: extra column 'extra'"),
    (("status", "benchmark_version", *COLUMNS[2:]),
     r"row 1, column 1: header: found 'status' where 'benchmark_version' belongs"),
    (("Benchmark_Version", *COLUMNS[1:]), r"row 1, column 1: header: found 'Benchmark_Version'"),
])
def test_header_refusals(tmp_path: Path, suite: Suite, header, match: str) -> None:
    refused(tmp_path, suite, [], match, header=header)


@pytest.mark.parametrize(("cells", "match"), [
    ({"status": "done"}, r"row 2, column status: unknown status 'done'"),
    ({"status": "blank"}, r"row 2, column status: unknown status 'blank'"),
    ({"app_id": "app9"}, r"row 2, column app_id: unknown app 'app9'"),
    ({"fixture_id": "nope"}, r"row 2, column fixture_id: unknown fixture 'nope'"),
    ({"repetition": "0"}, r"row 2, column repetition: '0' is outside 1..3"),
    ({"repetition": "4"}, r"row 2, column repetition: '4' is outside 1..3"),
    ({"repetition": "one"}, r"row 2, column repetition: 'one' is not a whole number"),
    ({"repetition": ""}, r"row 2, column repetition: '' is outside 1..3"),
    ({"test_profile": "turbo"}, r"row 2, column test_profile: unknown test profile 'turbo'"),
    ({"run_id": ""}, r"row 2, column run_id: a row with a status needs a run_id"),
    ({"raw_transcript_path": "x.txt"},
     r"row 2, column raw_transcript\+raw_transcript_path: give the transcript inline or as "
     r"a path, not both"),
    ({"raw_transcript": "", "raw_transcript_path": "../outside.txt"},
     r"row 2, column raw_transcript_path: path '../outside.txt' leaves the folder"),
    ({"raw_transcript": "", "raw_transcript_path": "/etc/hostname"},
     r"row 2, column raw_transcript_path: path '/etc/hostname' leaves the folder"),
    ({"raw_transcript": "", "raw_transcript_path": "missing.txt"},
     r"row 2, column raw_transcript_path: cannot read 'missing.txt'"),
    ({"elapsed_seconds": ""}, r"row 2, column elapsed_seconds: required by fixture"),
    ({"elapsed_seconds": "fast"}, r"row 2, column elapsed_seconds: 'fast' is not a number"),
    ({"elapsed_seconds": "-1"}, r"row 2, column elapsed_seconds: '-1' is not a finite"),
    ({"elapsed_seconds": "nan"}, r"row 2, column elapsed_seconds: 'nan' is not a number"),
    ({"edit_actions": "1.5"}, r"row 2, column edit_actions: '1.5' is not a whole number"),
    ({"capture_complete": "yes"}, r"row 2, column capture_complete: 'yes' must be true"),
    ({"plan": " "}, r"row 2, column plan: required metadata is blank on a complete row"),
    ({"hardware": ""}, r"row 2, column hardware: required metadata is blank"),
    ({"processing_path": "cloud"}, r"row 2, column processing_path: 'cloud' is not one of"),
    ({"tested_at": "last tuesday"}, r"row 2, column tested_at: 'last tuesday' is not an ISO"),
    ({"pricing_source_url": "ftp://x"}, r"row 2, column pricing_source_url: 'ftp://x' is not"),
    ({"benchmark_version": "0.9"}, r"row 2, column benchmark_version: must be '1.0.0'"),
])
def test_row_refusals(tmp_path: Path, suite: Suite, cells: dict[str, str], match: str) -> None:
    refused(tmp_path, suite, [row(**cells)], match)


def test_meeting_and_correction_refusals(tmp_path: Path, suite: Suite) -> None:
    refused(tmp_path, suite, [row(fixture="meet", speaker_turns_total="3")],
            r"row 2, column speaker_turns_total: must equal the 2 reference turns")
    refused(tmp_path, suite, [row(fixture="meet", speaker_turns_correct="3")],
            r"row 2, column speaker_turns_correct: exceeds speaker_turns_total")


def test_duplicates_and_bad_rows(tmp_path: Path, suite: Suite) -> None:
    refused(tmp_path, suite, [row(), row(rep=2, run_id="app1-dict-en-1")],
            r"row 3, column run_id: duplicate run_id 'app1-dict-en-1' \(first in row 2\)")
    refused(tmp_path, suite, [row(), row(run_id="other")],
            r"row 3, column repetition: second row for app 'app1', profile 'default', "
            r"fixture 'dict-en', repetition 1 \(first in row 2\)")
    with pytest.raises(ResultsError, match=r"row 2: 3 cells, expected 28"):
        read(tmp_path, suite, ",".join(COLUMNS) + "\na,b,c\n")
    with pytest.raises(ResultsError, match=r"line 2: not valid UTF-8 \(byte 0xff\)"):
        read(tmp_path, suite, (",".join(COLUMNS) + "\n").encode() + b"\xff\n")
    with pytest.raises(ResultsError, match="the results CSV is empty"):
        read(tmp_path, suite, "")


def test_rows_stream_before_a_later_refusal(tmp_path: Path, suite: Suite) -> None:
    """Issue 49: a results file streams: each row comes as it is read (its run ids and
    cells seen kept on disk), so a refusal further on comes after the rows before it."""
    path = tmp_path / "results.csv"
    path.write_text(csv_text([row(), row(rep=2, run_id="second"),
                              row(rep=3, run_id="app1-dict-en-1")]), encoding="utf-8")
    rows = iter_results(path, suite)
    assert [next(rows).repetition, next(rows).repetition] == [1, 2]
    with pytest.raises(ResultsError, match=r"row 4, column run_id: duplicate run_id "
                       r"'app1-dict-en-1' \(first in row 2\)"):
        next(rows)


def test_a_transcript_file_must_be_utf8(tmp_path: Path, suite: Suite) -> None:
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9")
    refused(tmp_path, suite, [row(raw_transcript="", raw_transcript_path="bad.txt")],
            r"row 2, column raw_transcript_path: 'bad.txt' is not valid UTF-8")


def test_non_complete_rows_need_no_metadata(tmp_path: Path, suite: Suite) -> None:
    rows = [row(status=s, rep=i, plan="", hardware="", raw_transcript="", elapsed_seconds="")
            for i, s in enumerate(("failed", "invalid", "unsupported"), 1)]
    assert [r.status for r in read(tmp_path, suite, csv_text(rows))] == [
        "failed", "invalid", "unsupported"]


@pytest.mark.parametrize(("change", "match"), [
    (lambda m: m["execution_gate"].update(ready="no"), "execution_gate.ready must be true"),
    (lambda m: m["ranking"].update(overall_score=True), "overall_score must be false"),
    (lambda m: m["protocol"]["run_order"].update(block_2=["app1"]),
     "run_order.block_2 must list every product exactly once"),
    (lambda m: m["fixtures"][0].update(workflow="podcast"), "workflow must be one of"),
    (lambda m: m["fixtures"][1].update(id="dict-en"), "ids must be non-empty and unique"),
    (lambda m: m["fixtures"][0].update(audio_sha256="0" * 64),
     "audio_sha256 differs from its integrity entry"),
    (lambda m: m["fixtures"][0].update(audio_path=None),
     "execution_gate.ready is true but fixture 'dict-en' has no hashed audio"),
    (lambda m: m["integrity"]["files"].pop(0), "methodology_path 'methodology.md' is not in"),
    (lambda m: m["integrity"]["files"].append({"path": "../x", "sha256": "a" * 64}),
     "integrity file '../x' leaves the suite folder"),
])
def test_package_refusals(tmp_path: Path, change, match: str) -> None:
    path = edit_manifest(write_package(tmp_path), change)
    with pytest.raises(SuiteError, match=match):
        load_package(path)


def test_a_template_with_a_complete_row_is_refused(tmp_path: Path) -> None:
    path = write_package(tmp_path, template=csv_text([row()]))
    with pytest.raises(SuiteError, match="row 2, column status: the blank results template"):
        load_package(path)


def test_a_transcript_over_the_size_limit_is_refused(tmp_path: Path, suite: Suite) -> None:
    path = tmp_path / "r.csv"
    path.write_text(csv_text([row(raw_transcript="x" * 41)]))
    with pytest.raises(ResultsError, match=r"row 2, column raw_transcript: the transcript has "
                                           r"41 characters, more than the limit of 40"):
        read_results(path, suite, max_text_chars=40)


def test_live_notes_round_trip() -> None:
    facts = {"declared": {"hardware": "Mac mini; M2 [2023]"}}
    assert split_notes(compose_notes("app hung", facts)) == ("app hung", facts)
    assert split_notes(compose_notes("", facts)) == ("", facts)
    assert compose_notes("plain", {}) == "plain"
    # a person's notes that merely look like the suffix stay text
    assert split_notes("see [dictbench: not json]") == ("see [dictbench: not json]", {})


def test_the_warm_up_recording_must_be_listed_and_never_measured(tmp_path: Path) -> None:
    manifest = write_package(tmp_path, warmup=True)
    assert load_package(manifest).manifest["warmup_audio"] == "fixtures/audio/warmup.wav"
    for path in ("fixtures/audio/dict-en.wav", "fixtures/audio/unlisted.wav"):
        data = json.loads(manifest.read_text())
        data["protocol"]["warmup_audio_path"] = path
        manifest.write_text(json.dumps(data))
        with pytest.raises(SuiteError, match=r"warmup_audio_path must be a file in "
                           r"integrity\.files that no fixture measures"):
            load_package(manifest)
