"""``dictbench hash`` and ``dictbench synth`` on a rig package manifest."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import soundfile as sf
from rig_support import edit_manifest, write_package

from pytest_dictbench.cli import main
from pytest_dictbench.rig.package import load_package


def hash_a_changed_reference(tmp_path: Path, *, name_folder: bool = False) -> Path:
    """``dictbench hash`` (on the manifest, or with ``name_folder`` on its folder) after
    a reference of the package in ``tmp_path`` changed: the manifest holds the new file's
    hash. The manifest's path."""
    path = write_package(tmp_path)
    reference = tmp_path / "fixtures" / "references" / "dict-en.txt"
    reference.write_text("Send the final draft to Ana before noon.\n", encoding="utf-8")
    assert main(["hash", str(tmp_path if name_folder else path)]) == 0
    entries = {e["path"]: e["sha256"] for e in json.loads(path.read_text())["integrity"]["files"]}
    assert entries["fixtures/references/dict-en.txt"] == hashlib.sha256(
        reference.read_bytes()).hexdigest()
    return path


def test_hash_refreshes_the_integrity_list(tmp_path: Path, capsys) -> None:
    hash_a_changed_reference(tmp_path)
    assert "integrity file(s) hashed" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")
def test_synth_writes_the_package_audio(tmp_path: Path) -> None:
    path = edit_manifest(write_package(tmp_path, ready=False), lambda m: m["protocol"].update(
        audio_specification={
            "format": "WAV", "sample_rate_hz": 48000, "channels": 1, "bit_depth": 24,
            "integrated_loudness_lufs": -23, "true_peak_max_dbtp": -1,
            "leading_silence_ms": 500}))
    assert main(["synth", str(path)]) == 0
    suite = load_package(path)
    meeting = suite.case("meet").data
    info = sf.info(str(tmp_path / meeting["audio"]))
    assert (info.samplerate, info.channels, info.subtype) == (48000, 1, "PCM_24")
    fixture = next(f for f in json.loads(path.read_text())["fixtures"] if f["id"] == "meet")
    assert fixture["audio_sha256"] == hashlib.sha256(
        (tmp_path / fixture["audio_path"]).read_bytes()).hexdigest()
    assert fixture["duration_seconds"] > 1.0


def test_hash_takes_the_package_folder_as_the_manifest_path(tmp_path: Path, capsys) -> None:
    # issue 24: 'dictbench hash cases/mac-rig' failed ('no suite manifest here')
    path = hash_a_changed_reference(tmp_path, name_folder=True)
    assert capsys.readouterr().out.startswith(f"{path}: ")
    shutil.copy(path, tmp_path / "benchmark-manifest-v2.json")
    assert main(["hash", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"dictbench: {tmp_path}: the folder holds several rig package manifests "
        "(benchmark-manifest-v1.json, benchmark-manifest-v2.json); name the one to use")
