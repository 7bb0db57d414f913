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
