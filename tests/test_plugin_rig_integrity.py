"""Importing a rig package verifies its hashes first, through a real pytest run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyloudnorm  # noqa: F401
import pytest
import scipy.optimize  # noqa: F401
import soundfile
import soxr  # noqa: F401  (the canonical audio's true peak, measured on every import)

from pytest_dictbench.rig.synth import hash_package

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


def _import(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """An import of the package copy, in a process of its own."""
    return pytester.runpytest_subprocess("rig", "--dictbench-results", "rig/example-results.csv",
                              "-p", "no:cacheprovider", *args)


def _rig(pytester: pytest.Pytester) -> dict:
    report = json.loads((pytester.path / "reports" / "dictbench.json").read_text())
    return report["suites"][0]["rig"]


def test_canonical_audio_off_the_specification_blocks_every_rank(
        pytester: pytest.Pytester, bundled: Path) -> None:
    # R20: a 44.1 kHz fixture, rehashed, used to be ranked as usual
    wav = bundled / "fixtures" / "audio" / "dictation-en-us-general.wav"
    data, _ = soundfile.read(wav, dtype="int32")
    soundfile.write(wav, data, 44100, subtype="PCM_24", format="WAV")
    hash_package(bundled / "benchmark-manifest-v1.json")
    result = _import(pytester)
    reason = ("canonical audio fails the specification: dictation-en-us-general: "
              "sample_rate: expected 48000 Hz, measured 44100 Hz (fail)")
    rig = _rig(pytester)
    assert rig["audio_specification"]["blocks_ranks"] is True
    assert rig["audio_specification"]["failures"][0]["fixture_id"] == "dictation-en-us-general"
    assert all(t["cohorts"] == [] for t in rig["tables"])
    assert all(e["reasons"][0].startswith(reason) for t in rig["tables"]
               for e in t["not_ranked"])
    markdown = (pytester.path / "reports" / "dictbench.md").read_text()
    assert "Canonical audio fails the specification, so no ranks are published: " \
           "dictation-en-us-general" in markdown
    assert "Canonical audio fails the specification" in \
        (pytester.path / "reports" / "dictbench.html").read_text()
    result.stdout.fnmatch_lines(["*/(run): audio specification dictation-en-us-general: "
                                 "sample_rate: expected 48000 Hz, measured 44100 Hz (fail)"
                                 " (no ranks published)"])


def test_the_reports_say_the_package_was_verified(pytester: pytest.Pytester,
                                                  bundled: Path) -> None:
    # R19: neither dictbench.json nor dictbench.md mentioned integrity
    _import(pytester)
    rig = _rig(pytester)
    files = len(json.loads((bundled / "benchmark-manifest-v1.json").read_text())
                ["integrity"]["files"])
    assert (rig["integrity_verified"], rig["integrity"]) == (
        True, {"algorithm": "sha256", "files": files})
    assert rig["audio_specification"] == {"checked": True, "failures": [], "problem": None,
                                          "blocks_ranks": False}
    assert any(t["cohorts"] for t in rig["tables"])
    markdown = (pytester.path / "reports" / "dictbench.md").read_text()
    assert f"Package integrity verified before scoring: every listed file's sha256 " \
           f"matched ({files} files)." in markdown
    assert "Canonical audio meets the package's audio specification." in markdown


def test_excluded_rows_are_in_the_reports_with_and_without_xdist(
        pytester: pytest.Pytester, bundled: Path) -> None:
    # R13/R14: the exclusions were pytest warnings only
    csv = bundled / "example-results.csv"
    csv.write_text(csv.read_text() + "1.0.0,not_tested,murmurdesk,,correction-en-us-seeded,"
                   + "," * 22 + "\n" + "," * 27 + "\n")
    _import(pytester)
    rig = _rig(pytester)
    assert rig["exclusions"] == [
        {"row": 107, "status": "not_tested", "app_id": "murmurdesk",
         "fixture_id": "correction-en-us-seeded", "reason": "repetition: '' is outside 1..3"},
        {"row": 108, "status": "blank", "app_id": "", "fixture_id": "",
         "reason": "an unfilled template row"}]
    markdown = (pytester.path / "reports" / "dictbench.md").read_text()
    assert "| 107 | not\\_tested | murmurdesk | correction-en-us-seeded | repetition: '' " \
           "is outside 1..3 |" in markdown
    assert "| 108 | blank | - | - | an unfilled template row |" in markdown
    assert "2 row(s) of the results CSV excluded from scoring" in markdown
    serial = (pytester.path / "reports" / "dictbench.json").read_bytes()
    _import(pytester, "-n", "2")
    assert (pytester.path / "reports" / "dictbench.json").read_bytes() == serial


@pytest.mark.parametrize("blocked", [["pyloudnorm"], ["icu", "pyloudnorm"]])
def test_a_missing_rig_package_is_one_line_naming_the_extra(
        pytester: pytest.Pytester, bundled: Path, blocked: list[str]) -> None:
    # S40: without a rig package (meeteval then) the items failed with a ~740-line traceback
    pytester.makeconftest("import sys\n" + "".join(f"sys.modules[{m!r}] = None\n"
                                                   for m in blocked))
    result = _import(pytester)
    assert result.ret == 2
    named = {"icu": "'PyICU'", "pyloudnorm": "'pyloudnorm'"}
    plural = "s" if len(blocked) > 1 else ""
    result.stdout.fnmatch_lines([
        f"*rig/benchmark-manifest-v1.json: a rig package run needs the optional "
        f"package{plural} {', '.join(named[m] for m in blocked)}: "
        "pip install 'pytest-dictbench[[]rig]'"])  # [[] is a literal [ in fnmatch
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert not (pytester.path / "reports" / "dictbench.json").exists()


INTENDED = ["correction-en-us-seeded[echoline-r3]", "correction-en-us-seeded[parlo-r2]",
            "dictation-en-us-general[echoline-r1]", "dictation-en-us-general[echoline-r3]",
            "dictation-en-us-technical[echoline-r3]", "dictation-es-es-general[echoline-r3]",
            "dictation-fr-fr-general[echoline-r3]", "file-en-us-interview[echoline-r3]",
            "file-en-us-interview[parlo-r2]", "meeting-en-us-three-speaker[echoline-r3]"]


def test_the_bundled_example_says_which_failures_are_intended(
        pytester: pytest.Pytester, bundled: Path) -> None:
    # issue 24: the demo exited 1 with its intended example faults and nothing said so
    result = _import(pytester)
    assert result.ret == 1
    line = (f"10 of the 10 intended example faults failed as intended (so the run exits 1): "
            f"{', '.join(INTENDED)}.")
    result.stdout.fnmatch_lines(["mac-rig: Example package for pytest-dictbench; the bundled "
                                 "results are example data for fictional apps.",
                                 f"mac-rig: {line}"])
    assert "Not intended" not in result.stdout.str()
    assert _rig(pytester)["example"]["unexpected_faults"] == []
    markdown = (pytester.path / "reports" / "dictbench.md").read_text()
    assert "10 of the 10 intended example faults failed as intended" in markdown
    # a fault the package does not list is called a real problem
    manifest = bundled / "benchmark-manifest-v1.json"
    data = json.loads(manifest.read_text())
    data["disclosure"]["intended_faults"].remove("file-en-us-interview[parlo-r2]")
    manifest.write_text(json.dumps(data))
    result = _import(pytester)
    result.stdout.fnmatch_lines([
        "mac-rig: 9 of the 9 intended example faults failed as intended*",
        "mac-rig: Not intended, so a real problem: file-en-us-interview[parlo-r2]."])
