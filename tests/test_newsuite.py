"""``dictbench new``: a suite from a folder of recordings (issue 47, CF26) and the canary
tag that ``write_suite`` and ``dictbench new`` add to WAV and FLAC audio (CF11)."""

from __future__ import annotations

import csv
import json
import tomllib
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_dictbench.audio.canary_tag import with_canary
from pytest_dictbench.cli import main
from pytest_dictbench.datasets import VerbatimRow, write_suite
from pytest_dictbench.errors import SuiteError
from pytest_dictbench.newsuite import find_recordings, new_suite, read_manifest

CANARY = "DICTBENCH-CANARY t 0000"


def _tone(path: Path, seconds: float = 0.5, fmt: str = "WAV") -> np.ndarray:
    rate = 16000
    t = np.arange(int(rate * seconds)) / rate
    samples = (0.1 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, samples, rate, subtype="PCM_16", format=fmt)
    return sf.read(path, dtype="int16")[0]


def _recordings(folder: Path) -> Path:
    for name, words in [("note-01", "Call Priya at ten."), ("note-02", "Buy milk and eggs.")]:
        _tone(folder / f"{name}.wav")
        (folder / f"{name}.txt").write_text(words + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("fmt,suffix", [("WAV", ".wav"), ("FLAC", ".flac")])
def test_canary_tag_keeps_the_samples(tmp_path: Path, fmt: str, suffix: str) -> None:
    """CF11: the canary goes into a tag; the decoded audio is unchanged."""
    path = tmp_path / f"a{suffix}"
    before = _tone(path, fmt=fmt)
    tagged = with_canary(path.read_bytes(), CANARY, where=path)
    assert CANARY.encode() in tagged
    (tmp_path / f"b{suffix}").write_bytes(tagged)
    after, rate = sf.read(tmp_path / f"b{suffix}", dtype="int16")
    assert rate == 16000 and np.array_equal(before, after)
    assert with_canary(tagged, CANARY, where=path) == tagged  # once is enough


def test_canary_tag_refuses_other_containers(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match=r"x\.mp3: not a WAV or FLAC file"):
        with_canary(b"ID3\x03junk", CANARY, where=tmp_path / "x.mp3")


def test_write_suite_output_passes_the_canary_check(pytester: pytest.Pytester) -> None:
    """CF11: a suite written by write_suite passes --dictbench-verify's canary checks."""
    wav = pytester.path / "src" / "v1.wav"
    _tone(wav)
    rows = [VerbatimRow(id="v1", verbatim="so [uh] yes", intended="so yes", audio_path=wav)]
    write_suite(rows, pytester.path / "cases" / "my-verbatim", suite_id="my-verbatim",
                title="t", canary="DICTBENCH-CANARY my-verbatim 0001")
    result = pytester.runpytest("--dictbench-verify", "cases/my-verbatim", "-v")
    result.stdout.fnmatch_lines(["*canary[[]audio/v1.wav[]] PASSED*"])
    assert result.ret == 0 and result.parseoutcomes() == {"passed": 7}


def test_new_from_a_folder_passes_verify_and_runs(pytester: pytest.Pytester) -> None:
    """Issue 47: one command from recordings + transcripts to a suite that verifies and
    runs (here against a cached product whose outputs are the references)."""
    source = _recordings(pytester.path / "recordings")
    assert main([
        "new", str(source), "--out", str(pytester.path / "cases" / "my-notes")]) == 0
    root = pytester.path / "cases" / "my-notes"
    manifest = tomllib.loads((root / "suite.toml").read_text())
    assert (manifest["id"], manifest["method"]) == ("my-notes", "error_rate")
    cases = [json.loads(line) for line in (root / "cases.jsonl").read_text().splitlines()]
    assert [(c["id"], c["reference"], c["audio"]) for c in cases] == [
        ("note-01", "Call Priya at ten.", "audio/note-01.wav"),
        ("note-02", "Buy milk and eggs.", "audio/note-02.wav")]
    # the user's recordings are left as they were
    assert manifest["canary"].encode() not in (source / "note-01.wav").read_bytes()
    verify = pytester.runpytest("--dictbench-verify", "cases/my-notes")
    # the manifest, 3 sha256, 3 canary checks, the execution gate
    assert verify.ret == 0 and verify.parseoutcomes() == {"passed": 8}, verify.stdout.str()
    (pytester.path / "products" / "echo").mkdir(parents=True)
    (pytester.path / "products" / "echo.toml").write_text(
        'name = "echo"\nversion = "1"\nadapter = "cache"\n')
    (pytester.path / "products" / "echo" / "my-notes.jsonl").write_text("".join(
        json.dumps({"case_id": c["id"], "text": c["reference"]}) + "\n" for c in cases))
    pytester.makeini("[pytest]\ndictbench_products = products\n")
    run = pytester.runpytest("cases/my-notes", "--product=echo")
    run.assert_outcomes(passed=2)
    assert "canary missing" not in run.stdout.str()


def test_new_names_the_recording_without_a_transcript(tmp_path: Path) -> None:
    source = _recordings(tmp_path / "rec")
    (source / "note-02.txt").unlink()
    with pytest.raises(SuiteError, match=r"note-02\.wav: no transcript beside it: write "
                                         r"the words spoken into note-02\.txt"):
        new_suite(source, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_new_refuses_an_unreadable_recording_and_a_used_folder(tmp_path: Path) -> None:
    source = _recordings(tmp_path / "rec")
    (source / "note-02.wav").write_bytes(b"RIFF\x04\x00\x00\x00WAVE")
    with pytest.raises(SuiteError, match=r"note-02\.wav: not a readable recording"):
        new_suite(source, tmp_path / "out")
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "x").write_text("")
    with pytest.raises(SuiteError, match="is not empty"):
        new_suite(tmp_path / "rec", tmp_path / "used")


def _write_manifest(path: Path, rows: list[dict[str, str]], delimiter: str) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter=delimiter)
        writer.writeheader()
        writer.writerows(rows)


@pytest.mark.parametrize("suffix,delimiter", [(".csv", ","), (".tsv", "\t")])
def test_manifest_errors_name_the_line(tmp_path: Path, suffix: str, delimiter: str) -> None:
    _tone(tmp_path / "a.wav")
    path = tmp_path / f"m{suffix}"
    _write_manifest(path, [{"audio": "a.wav", "reference": "one"},
                           {"audio": "gone.wav", "reference": "two"}], delimiter)
    with pytest.raises(SuiteError, match=rf"m\{suffix}:3: the audio file 'gone.wav' does "):
        read_manifest(path)
    _write_manifest(path, [{"audio": "a.wav", "reference": " "}], delimiter)
    with pytest.raises(SuiteError, match=rf"m\{suffix}:2: the reference transcript is empty"):
        read_manifest(path)
    _write_manifest(path, [{"file": "a.wav", "reference": "x"}], delimiter)
    with pytest.raises(SuiteError, match=rf"m\{suffix}:2: the columns 'audio' and 'reference'"):
        read_manifest(path)


def test_manifest_paths_stay_inside_its_folder(tmp_path: Path) -> None:
    _tone(tmp_path / "a.wav")
    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "m.csv"
    _write_manifest(path, [{"audio": "../a.wav", "reference": "x"}], ",")
    with pytest.raises(SuiteError, match="leaves the suite folder"):
        read_manifest(path)


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")),
                min_size=1, max_size=40).filter(lambda s: s.strip())


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(_TEXT, min_size=1, max_size=4),
       kind=st.sampled_from([".csv", ".tsv", ".jsonl", "folder"]))
def test_every_manifest_format_reads_back_the_texts(tmp_path_factory: pytest.TempPathFactory,
                                                    texts: list[str], kind: str) -> None:
    """Property: whatever the (non-blank) transcript text, each format gives it back
    stripped, one recording per row, in order."""
    folder = tmp_path_factory.mktemp("m")
    rows = []
    for index, text in enumerate(texts):
        name = f"r{index:02d}.wav"
        (folder / name).write_bytes(b"RIFF\x04\x00\x00\x00WAVE")
        rows.append({"audio": name, "reference": text})
        if kind == "folder":
            (folder / f"r{index:02d}.txt").write_text(text, encoding="utf-8")
    if kind == "folder":
        found = find_recordings(folder)
    elif kind == ".jsonl":
        (folder / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        found = read_manifest(folder / "m.jsonl")
    else:
        _write_manifest(folder / f"m{kind}", rows, "\t" if kind == ".tsv" else ",")
        found = read_manifest(folder / f"m{kind}")
    assert [r.reference for r in found] == [t.strip() for t in texts]
    assert [r.id for r in found] == [f"r{i:02d}" for i in range(len(texts))]


def test_cf26_dictbench_canary_tags_a_hand_made_suite(pytester: pytest.Pytester,
                                                      write_suite) -> None:
    """CF26: a suite written by hand with the user's WAVs fails the canary check, the run
    says how to fix it, and ``dictbench canary`` does."""
    cases = [{"id": "c1", "reference": "hello there", "audio": "audio/c1.wav"}]
    root = write_suite(cases=cases)
    _tone(root / "audio" / "c1.wav")
    main(["hash", str(root)])
    verify = pytester.runpytest("--dictbench-verify", "cases/mini", "-v")
    verify.stdout.fnmatch_lines(["*canary[[]audio/c1.wav[]] FAILED*"])
    (pytester.path / "products" / "echo").mkdir(parents=True)
    (pytester.path / "products" / "echo.toml").write_text(
        'name = "echo"\nversion = "1"\nadapter = "cache"\n')
    (pytester.path / "products" / "echo" / "mini.jsonl").write_text(
        '{"case_id": "c1", "text": "hello there"}\n')
    pytester.makeini("[pytest]\ndictbench_products = products\n")
    run = pytester.runpytest("cases/mini", "--product=echo")
    run.stdout.fnmatch_lines(["mini: canary missing in audio/c1.wav (for WAV and FLAC audio, "
                              "`dictbench canary SUITE` adds it as a tag)"])
    assert main(["canary", str(root)]) == 0
    assert pytester.runpytest("--dictbench-verify", "cases/mini").ret == 0


def test_new_from_verbatim_columns_makes_a_verbatim_suite(pytester: pytest.Pytester) -> None:
    """Issue 47: the method follows the columns given: verbatim and intended transcripts
    make a ``verbatim`` suite (through read_rows / write_suite), canary-tagged."""
    _tone(pytester.path / "data" / "v1.wav")
    (pytester.path / "data" / "data.jsonl").write_text(json.dumps(
        {"id": "v1", "audio": "v1.wav", "verbatim_transcript": "so [uh] yes",
         "intended_transcript": "so yes"}) + "\n")
    assert main(["new", str(pytester.path / "data" / "data.jsonl"), "--out",
                 str(pytester.path / "cases" / "my-verbatim")]) == 0
    manifest = tomllib.loads((pytester.path / "cases/my-verbatim/suite.toml").read_text())
    assert manifest["method"] == "verbatim"
    verify = pytester.runpytest("--dictbench-verify", "cases/my-verbatim")
    assert verify.ret == 0, verify.stdout.str()
