"""A rig package is refused where the methodology's scorer refuses it (issue 26)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from rig_support import edit_manifest, write_package

from pytest_dictbench.errors import SuiteError
from pytest_dictbench.methods.rig.tables import RigRules
from pytest_dictbench.rig.package import load_package, verify_package


def _edit(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _rehash(manifest: Path) -> None:
    data = json.loads(manifest.read_text())
    for entry in data["integrity"]["files"]:
        entry["sha256"] = hashlib.sha256((manifest.parent / entry["path"]).read_bytes()
                                         ).hexdigest()
    for fixture in data["fixtures"]:
        if fixture.get("audio_path"):
            fixture["audio_sha256"] = hashlib.sha256(
                (manifest.parent / fixture["audio_path"]).read_bytes()).hexdigest()
    manifest.write_text(json.dumps(data, indent=2))


def test_a_duplicated_execution_gate_is_refused_naming_the_key(tmp_path: Path) -> None:
    # R16: the second "execution_gate" would open a closed gate
    path = write_package(tmp_path)
    text = path.read_text()
    text = text.replace('"execution_gate": {', '"execution_gate": {"ready": false, '
                        '"blocking_items": ["Record canonical audio."]},\n'
                        '  "execution_gate": {', 1)
    _edit(path, text)
    with pytest.raises(SuiteError, match="duplicate key 'execution_gate'"):
        load_package(path)


def test_a_doubled_reference_path_is_refused(tmp_path: Path) -> None:
    path = write_package(tmp_path)
    text = path.read_text().replace(
        '"reference_path": "fixtures/references/dict-en.txt",',
        '"reference_path": "fixtures/references/dict-en.txt", '
        '"reference_path": "fixtures/references/meet.txt",', 1)
    _edit(path, text)
    with pytest.raises(SuiteError, match="duplicate key 'reference_path'"):
        load_package(path)


@pytest.mark.parametrize(("old", "new", "match"), [
    ('"required_repetitions": 3,\n    "run_order"',
     '"required_repetitions": 3, "calibration": {"level_tolerance_db": NaN},\n    "run_order"',
     "NaN is not a number JSON allows"),
    ('"required_repetitions": 3,\n    "run_order"',
     '"required_repetitions": 3, "calibration": {"onset_tolerance_ms": Infinity},\n'
     '    "run_order"', "Infinity is not a number JSON allows"),
])
def test_non_finite_numbers_are_refused(tmp_path: Path, old: str, new: str, match: str
                                        ) -> None:
    # R17: a NaN or infinite tolerance can never be exceeded
    path = write_package(tmp_path)
    text = path.read_text()
    assert old in text
    _edit(path, text.replace(old, new, 1))
    with pytest.raises(SuiteError, match=match):
        load_package(path)


@pytest.mark.parametrize(("change", "match"), [
    (lambda m: m["fixtures"][0].update(locale="en_US"),
     r"fixture 'dict-en': locale 'en_US' is not a BCP 47 tag \(write 'en-US'\)"),
    (lambda m: m["ranking"].update(minimum_apps=1.5),
     "ranking.minimum_apps must be a positive integer"),
    (lambda m: m["ranking"].update(minimum_apps=0),
     "ranking.minimum_apps must be a positive integer"),
    (lambda m: m["protocol"].update(calibration={"level_tolerance_db": "0.2"}),
     "protocol.calibration.level_tolerance_db must be a number >= 0"),
    (lambda m: m["execution_gate"].update(blocking_items="Hash it."),
     "execution_gate.blocking_items must be a list of texts"),
])
def test_manifest_values_are_checked(tmp_path: Path, change, match: str) -> None:
    # R17, R18
    path = edit_manifest(write_package(tmp_path), change)
    with pytest.raises(SuiteError, match=match):
        load_package(path)


def test_ready_with_blocking_items_is_a_closed_gate(tmp_path: Path) -> None:
    # R22: a listed blocking item means the rig is not ready
    path = edit_manifest(write_package(tmp_path), lambda m: m.update(execution_gate={
        "ready": True, "blocking_items": ["Freeze app versions."]}))
    suite = load_package(path)
    assert suite.manifest["execution_gate"] == {"ready": False,
                                                "blocking_items": ["Freeze app versions."]}
    rules = RigRules(suite.manifest["package"])
    assert not rules.gate_ready and rules.blocking == ("Freeze app versions.",)


@pytest.mark.parametrize(("change", "match"), [
    (lambda t: t[0].update(speaker="speaker_d"),
     r"turn 1: speaker 'speaker_d' is not in the file's speakers"),
    (lambda t: t[1].update(speaker=""), r"turn 2: speaker must be a non-empty text"),
    (lambda t: t[0].update(text=" "), r"turn 1: text must be a non-empty text"),
    (lambda t: t.append(dict(t[1])), r"turn 3 repeats turn 2"),
    (lambda t: t.reverse(), r"turn 1: turn numbers must run 1, 2, 3, ... in order"),
])
def test_broken_reference_turns_are_refused(tmp_path: Path, change, match: str) -> None:
    # R45: broken segments used to load silently and change ranked accuracy
    path = write_package(tmp_path)
    segments = tmp_path / "fixtures" / "segments" / "meet.json"
    data = json.loads(segments.read_text())
    data["speakers"] = ["speaker_a", "speaker_b"]
    change(data["turns"])
    segments.write_text(json.dumps(data))
    _rehash(path)
    with pytest.raises(SuiteError, match=match) as info:
        load_package(path)
    assert "meet.json" in str(info.value)


def test_verify_package_names_a_tampered_reference(tmp_path: Path) -> None:
    # R19: the scorer verifies every hash before scoring
    path = write_package(tmp_path)
    suite = load_package(path)
    verify_package(suite)  # intact: nothing raised
    ref = tmp_path / "fixtures" / "references" / "dict-en.txt"
    ref.write_text(ref.read_text().replace("noon", "moon"))
    with pytest.raises(SuiteError, match=r"fixtures/references/dict-en\.txt: sha256 [0-9a-f]{12}"
                       r"\S* does not match the listed [0-9a-f]{12}"):
        verify_package(load_package(path))


def test_verify_package_refuses_a_missing_or_special_file(tmp_path: Path) -> None:
    import os

    path = write_package(tmp_path)
    audio = tmp_path / "fixtures" / "audio" / "meet.wav"
    audio.unlink()
    os.mkfifo(audio)
    with pytest.raises(SuiteError, match="not a regular file"):
        verify_package(load_package(path))


def test_swapped_digests_name_the_other_file(tmp_path: Path) -> None:
    # R23 (a), at import
    path = write_package(tmp_path)
    data = json.loads(path.read_text())
    files = {e["path"]: e for e in data["integrity"]["files"]}
    a, b = files["fixtures/references/dict-en.txt"], files["fixtures/references/meet.txt"]
    a["sha256"], b["sha256"] = b["sha256"], a["sha256"]
    path.write_text(json.dumps(data))
    with pytest.raises(SuiteError, match=r"dict-en\.txt: sha256 .* \(it is the digest listed "
                       r"for 'fixtures/references/meet\.txt': swapped entries\?\)"):
        verify_package(load_package(path))


def test_unknown_fixture_keys_are_named_with_their_json_path(tmp_path: Path) -> None:
    # R17: an unknown key ("colour", or a typo of a real one) was ignored without a word
    from pytest_dictbench.rig.package import unknown_keys

    path = write_package(tmp_path)
    assert unknown_keys(load_package(path)) == []
    data = json.loads(path.read_text())
    data["fixtures"][1]["colour"] = "red"
    path.write_text(json.dumps(data))
    assert unknown_keys(load_package(path)) == [
        "fixtures[1].colour (fixture 'meet'): unknown key, ignored"]


########################################################################################
# Property: a valid manifest mutated in one field loads or is refused as a SuiteError
# naming the manifest, never another exception.
########################################################################################

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-1e3, 1e3, allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=3),
    max_leaves=6)
_FIELDS = (("benchmark_id",), ("schema_version",), ("execution_gate",),
           ("execution_gate", "ready"), ("execution_gate", "blocking_items"), ("products",),
           ("integrity",), ("integrity", "files"), ("protocol",),
           ("protocol", "required_repetitions"), ("protocol", "run_order"),
           ("protocol", "profiles"), ("protocol", "calibration"), ("ranking",),
           ("ranking", "minimum_apps"), ("fixtures",), ("fixtures", 0),
           ("fixtures", 0, "locale"), ("fixtures", 0, "workflow"),
           ("fixtures", 0, "required_repetitions"), ("fixtures", 0, "required_fields"),
           ("fixtures", 1, "segments_path"), ("fixtures", 2, "seed_path"),
           ("fixtures", 0, "audio_path"), ("fixtures", 0, "reference_path"))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(_FIELDS), value=_json)
def test_one_mutated_manifest_field_loads_or_is_refused_naming_the_manifest(
        tmp_path: Path, field: tuple, value: object) -> None:
    """Every mutated manifest either loads or raises SuiteError naming a package file."""
    path = tmp_path / "benchmark-manifest-v1.json"
    if not path.exists():
        write_package(tmp_path)
        (tmp_path / "valid.json").write_text(path.read_text())
    data = json.loads((tmp_path / "valid.json").read_text())
    target = data
    for key in field[:-1]:
        target = target[key]
    target[field[-1]] = value
    path.write_text(json.dumps(data))
    try:
        load_package(path)
    except SuiteError as exc:
        assert str(tmp_path) in str(exc)


def test_a_listed_file_that_is_a_symlink_is_refused_at_import(tmp_path: Path) -> None:
    # R23 (b): a symlink to another listed file passed with its digest updated
    path = write_package(tmp_path)
    meet = tmp_path / "fixtures" / "audio" / "meet.wav"
    meet.unlink()
    meet.symlink_to("dict-en.wav")
    _rehash(path)
    with pytest.raises(SuiteError, match="a listed file is a symbolic link"):
        verify_package(load_package(path))
