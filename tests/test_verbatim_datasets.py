"""Reading verbatim datasets (Parquet, JSONL, HF folders) and writing suites."""

from __future__ import annotations

import hashlib
import json
import sys
import tomllib
import types
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pytest_dictbench.datasets import VerbatimRow, read_rows, rows_to_cases, write_suite
from pytest_dictbench.errors import SuiteError
from pytest_dictbench.suites import load_suite

CANARY = "DICTBENCH-CANARY test-verbatim 00000000-1111-2222-3333-444444444444"
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "  # a header is all the loader looks at
FLAC = b"fLaC\x00\x00\x00\x22"


def _schema(method: str) -> str | None:
    return "case-verbatim.schema.json" if method == "verbatim" else None


def test_parquet_with_embedded_and_referenced_audio(tmp_path: Path) -> None:
    (tmp_path / "clips").mkdir()
    (tmp_path / "clips" / "b.flac").write_bytes(FLAC)
    audio = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    table = pa.table({
        "id": ["utt-a", "utt b/2", "utt-c"],
        "audio": pa.array([{"bytes": WAV, "path": None},
                           {"bytes": None, "path": "clips/b.flac"}, None], type=audio),
        "verbatim_transcript": ["[uh] hi hi", "so [laughter] yes", "th- that"],
        "intended_transcript": ["hi", "so yes", "that"],
    })
    pq.write_table(table, tmp_path / "train-00000-of-00001.parquet")

    rows = read_rows(tmp_path)
    assert [r.id for r in rows] == ["utt-a", "utt-b-2", "utt-c"]
    assert rows[0].audio_bytes == WAV and rows[0].audio_path is None
    assert rows[1].audio_path == tmp_path / "clips" / "b.flac"
    assert rows[1].source_id == "utt b/2"
    assert not rows[2].has_audio
    assert rows_to_cases(rows, canary=CANARY) == [
        {"id": "utt-a", "canary": CANARY, "audio": "audio/utt-a.wav",
         "verbatim": "[uh] hi hi", "intended": "hi"},
        {"id": "utt-b-2", "canary": CANARY, "audio": "audio/utt-b-2.flac",
         "verbatim": "so [laughter] yes", "intended": "so yes", "source_id": "utt b/2"},
        {"id": "utt-c", "canary": CANARY, "verbatim": "th- that", "intended": "that"},
    ]


def test_single_parquet_file(tmp_path: Path) -> None:
    path = tmp_path / "one.parquet"
    pq.write_table(pa.table({"id": ["x"], "audio": [None], "verbatim_transcript": ["a a"],
                             "intended_transcript": ["a"]}), path)
    assert read_rows(path) == [VerbatimRow(id="x", verbatim="a a", intended="a")]


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_jsonl_with_audio_folder_written_as_suite(tmp_path: Path) -> None:
    audio_dir = tmp_path / "wavs"
    audio_dir.mkdir()
    (audio_dir / "one.wav").write_bytes(WAV)
    source = _jsonl(tmp_path / "data.jsonl", [
        {"id": "one", "audio": "one.wav", "verbatim_transcript": "I I [um] left.",
         "intended_transcript": "I left."},
        {"id": "two", "audio": None, "verbatim_transcript": "[laughter] Okay.",
         "intended_transcript": "Okay."},
    ])
    rows = read_rows(source, audio_dir=audio_dir)
    folder = write_suite(rows, tmp_path / "suite", suite_id="en-test", canary=CANARY,
                         title="Test suite", vwer_threshold=0.2)

    suite = load_suite(folder, _schema)
    assert [c.id for c in suite.cases] == ["one", "two"]
    assert suite.params == {"vwer_threshold": 0.2}
    assert (suite.method, suite.locale, suite.canary) == ("verbatim", "en-US", CANARY)
    written = (folder / "audio" / "one.wav").read_bytes()  # the canary as a tag (CF11)
    assert written[8:16] == WAV[8:16] and CANARY.encode() in written
    assert suite.cases[0].data["audio"] == "audio/one.wav"
    listed = {f.path: f.sha256 for f in suite.files}
    assert set(listed) == {"cases.jsonl", "audio/one.wav"}
    for rel, digest in listed.items():
        assert hashlib.sha256((folder / rel).read_bytes()).hexdigest() == digest
    assert all(CANARY in line for line in (folder / "cases.jsonl").read_text().splitlines())
    assert tomllib.loads((folder / "suite.toml").read_text())["canary"] == CANARY


def test_write_suite_refuses_to_overwrite(tmp_path: Path) -> None:
    rows = [VerbatimRow(id="a", verbatim="so [uh] yes", intended="so yes")]
    write_suite(rows, tmp_path, suite_id="s", canary=CANARY, title="t")
    with pytest.raises(SuiteError, match="already here"):
        write_suite(rows, tmp_path, suite_id="s", canary=CANARY, title="t")
    write_suite(rows, tmp_path, suite_id="s", canary=CANARY, title="t", overwrite=True)


def test_write_suite_checks_the_manifest_first(tmp_path: Path) -> None:
    rows = [VerbatimRow(id="a", verbatim="yes", intended="yes")]
    with pytest.raises(SuiteError, match="id"):
        write_suite(rows, tmp_path / "s", suite_id="Bad Id", canary=CANARY, title="t")
    assert not (tmp_path / "s").exists()


def test_missing_audio_file_is_named(tmp_path: Path) -> None:
    source = _jsonl(tmp_path / "d.jsonl", [{"id": "a", "audio": "gone.wav",
                                            "verbatim_transcript": "a",
                                            "intended_transcript": "a"}])
    with pytest.raises(SuiteError, match="audio of case 'a' not found"):
        write_suite(read_rows(source), tmp_path / "s", suite_id="s", canary=CANARY, title="t")


def test_missing_columns_and_duplicate_ids(tmp_path: Path) -> None:
    source = _jsonl(tmp_path / "d.jsonl", [{"id": "a", "verbatim_transcript": "a"}])
    with pytest.raises(SuiteError, match=r"row 1: missing column\(s\) intended_transcript"):
        read_rows(source)
    source = _jsonl(tmp_path / "e.jsonl", [
        {"id": "a b", "verbatim_transcript": "a", "intended_transcript": "a"},
        {"id": "a-b", "verbatim_transcript": "b", "intended_transcript": "b"},
    ])
    with pytest.raises(SuiteError, match="row 2: case id 'a-b' already used by row 1"):
        read_rows(source)


def test_unknown_source(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(SuiteError, match="not a dataset this reader knows"):
        read_rows(tmp_path / "notes.txt")


def _hf_folder(tmp_path: Path) -> Path:
    (tmp_path / "state.json").write_text("{}")
    return tmp_path


def test_hf_folder_without_the_datasets_library(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # import fails even if installed
    with pytest.raises(SuiteError, match=r"pip install 'pytest-dictbench\[datasets\]'"):
        read_rows(_hf_folder(tmp_path))


class _FakeAudio:
    def __init__(self, decode: bool = True) -> None:
        self.decode = decode


class _FakeDataset(list):
    """Just the surface of ``datasets.Dataset`` the reader touches."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        super().__init__(rows)
        self.features = {"audio": _FakeAudio()}
        self.cast_to: Any = None

    def cast_column(self, name: str, feature: _FakeAudio) -> _FakeDataset:
        assert name == "audio" and feature.decode is False
        self.cast_to = feature
        return self


class _FakeDatasetDict(dict):
    pass


def test_hf_folder_through_a_stand_in_library(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # A stand-in for `datasets` (not installed here): checks the glue only, i.e. split
    # choice, undecoded audio and the row mapping, not the real library.
    split = _FakeDataset([{"id": "a", "audio": {"bytes": WAV, "path": "a.wav"},
                           "verbatim_transcript": "[um] yes", "intended_transcript": "yes"}])
    fake = types.ModuleType("datasets")
    fake.Audio = _FakeAudio  # type: ignore[attr-defined]
    fake.DatasetDict = _FakeDatasetDict  # type: ignore[attr-defined]
    fake.load_from_disk = lambda path: _FakeDatasetDict(test=split, train=split)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "datasets", fake)
    folder = _hf_folder(tmp_path)
    with pytest.raises(SuiteError, match=r"choose a split with split=\.\.\.: this dataset "
                                         r"has test, train"):
        read_rows(folder)
    rows = read_rows(folder, split="test")
    assert rows == [VerbatimRow(id="a", verbatim="[um] yes", intended="yes",
                                audio_bytes=WAV, audio_name="a.wav")]
    assert split.cast_to is not None


def test_audio_paths_from_data_stay_inside_the_dataset(tmp_path: Path) -> None:
    (tmp_path / "secret.wav").write_bytes(b"RIFF")
    data = tmp_path / "data"
    data.mkdir()
    source = _jsonl(data / "d.jsonl", [{"id": "a", "audio": "../secret.wav",
                                        "verbatim_transcript": "a",
                                        "intended_transcript": "a"}])
    with pytest.raises(SuiteError, match="leaves the suite folder"):
        read_rows(source)
