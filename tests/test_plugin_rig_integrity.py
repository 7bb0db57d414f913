"""Importing a rig package verifies its hashes first, through a real pytest run."""

from __future__ import annotations

import shutil
from pathlib import Path

import meeteval.wer.wer.cp  # noqa: F401
import pyloudnorm  # noqa: F401
import pytest
import scipy.optimize  # noqa: F401

REPO = Path(__file__).resolve().parent.parent
BUNDLED = REPO / "cases" / "mac-rig"


@pytest.fixture
def bundled(pytester: pytest.Pytester) -> Path:
    target = pytester.path / "rig"
    shutil.copytree(BUNDLED, target)
    return target


def test_a_tampered_reference_stops_the_import_naming_the_file(
        pytester: pytest.Pytester, bundled: Path) -> None:
    # R19: the import used to score against the edited reference
    ref = bundled / "fixtures" / "references" / "dictation-en-us-general.txt"
    ref.write_text(ref.read_text().replace("Thursday", "Thurzday"))
    result = pytester.runpytest("rig", "--dictbench-results", "rig/example-results.csv",
                                "-p", "no:cacheprovider")
    assert result.ret == 2
    result.stdout.fnmatch_lines(["*fixtures/references/dictation-en-us-general.txt: sha256 * "
                                 "does not match the listed *"])
    assert not (pytester.path / "reports" / "dictbench.json").exists()


def test_tampered_audio_stops_the_import(pytester: pytest.Pytester, bundled: Path) -> None:
    wav = next((bundled / "fixtures" / "audio").glob("*.wav"))
    data = bytearray(wav.read_bytes())
    data[-1] ^= 1
    wav.write_bytes(bytes(data))
    result = pytester.runpytest("rig", "--dictbench-results", "rig/example-results.csv",
                                "-p", "no:cacheprovider")
    assert result.ret == 2
    result.stdout.fnmatch_lines([f"*fixtures/audio/{wav.name}: sha256 * does not match*"])


def test_a_scorer_accepted_file_with_a_malformed_not_tested_row_imports(
        pytester: pytest.Pytester, bundled: Path) -> None:
    # R14: one unfilled not_tested row used to refuse the whole file (rc 2, no tables)
    csv = bundled / "example-results.csv"
    csv.write_text(csv.read_text() + "1.0.0,not_tested,murmurdesk,,correction-en-us-seeded,"
                   + "," * 22 + "\n" + "," * 27 + "\n")
    result = pytester.runpytest("rig", "--dictbench-results", "rig/example-results.csv",
                                "-p", "no:cacheprovider")
    assert result.ret == 1  # the bundled example's own failures, as without the rows
    result.stdout.fnmatch_lines([
        "*row 107 (not_tested, murmurdesk, correction-en-us-seeded): excluded: repetition: "
        "'' is outside 1..3*",
        "*row 108 (blank): excluded: an unfilled template row*"])
    assert (pytester.path / "reports" / "dictbench.json").exists()
