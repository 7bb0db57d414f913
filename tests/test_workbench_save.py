"""Saving in the review workbench: validate first, write second, one case at a time,
and never bless a file the workbench did not write (findings 6-10, 12 of the review)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from workbench_support import make_review_suite

from pytest_dictbench.audio.io import sha256_file
from pytest_dictbench.errors import DictbenchError
from pytest_dictbench.suites import read_toml
from pytest_dictbench.workbench.review import EditError, apply_edit, suite_view, update_case
from pytest_dictbench.workbench.store import ConcurrentEdit, read_cases


def listed(root: Path) -> dict[str, str]:
    return {f["path"]: f["sha256"] for f in read_toml(root / "suite.toml")["files"]}


def hashed_suite(tmp_path: Path) -> Path:
    """The review suite with every file (audio too) listed in ``[[files]]``."""
    from pytest_dictbench.hashes import write_files_table

    root = make_review_suite(tmp_path / "s")
    entries = [{"path": "cases.jsonl", "sha256": sha256_file(root / "cases.jsonl")}]
    entries += [{"path": f"audio/rec-{n}.wav", "sha256": sha256_file(root / f"audio/rec-{n}.wav")}
                for n in (1, 2, 3)]
    write_files_table(root, entries)
    return root


def accept(root: Path) -> None:
    """List the digest of ``cases.jsonl`` as it is now (a person ran ``dictbench hash``
    after an outside edit; saves are refused over a stale digest)."""
    from pytest_dictbench.hashes import write_files_table

    entries = read_toml(root / "suite.toml")["files"]
    for entry in entries:
        if entry["path"] == "cases.jsonl":
            entry["sha256"] = sha256_file(root / "cases.jsonl")
    write_files_table(root, entries)


def rewrite_row(root: Path, index: int, **fields: object) -> None:
    lines = (root / "cases.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    row = json.loads(lines[index]) | fields
    lines[index] = json.dumps(row) + "\n"
    (root / "cases.jsonl").write_text("".join(lines), encoding="utf-8")


def test_a_refused_save_leaves_both_files_byte_identical(tmp_path: Path) -> None:
    """Finding 6: the edited case fails the text limit; nothing is written."""
    root = hashed_suite(tmp_path)
    before = {p: (root / p).read_bytes() for p in ("cases.jsonl", "suite.toml")}
    with pytest.raises(EditError, match=r"more than the limit.*nothing was saved"):
        update_case(root, read_cases(root).fingerprint,
                    {"id": "rec-1", "reference": "a" * 200_001})
    assert {p: (root / p).read_bytes() for p in before} == before
    # and the next save, from the same fingerprint, is not refused as a concurrent edit
    result = update_case(root, read_cases(root).fingerprint,
                         {"id": "rec-1", "reference": "we met at one"})
    assert result["case"]["reference"] == "we met at one"


def test_another_broken_case_does_not_block_this_save(tmp_path: Path) -> None:
    """Finding 7: a problem of another case is a warning on the page, not a refusal."""
    root = hashed_suite(tmp_path)
    rewrite_row(root, 1, reference="a" * 300_000)
    with (root / "cases.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"id": '"><svg onload=1>', "canary": "c"}) + "\n")
    accept(root)
    view = suite_view(root)
    assert "more than the limit" in view["problems"]["rec-2"]
    assert '"><svg onload=1>' in view["problems"]
    result = update_case(root, view["fingerprint"], {"id": "rec-1", "reference": "edited"})
    assert result["case"]["reference"] == "edited"
    assert listed(root)["cases.jsonl"] == sha256_file(root / "cases.jsonl")


def test_a_save_refreshes_only_the_cases_digest_and_reports_outside_changes(
        tmp_path: Path) -> None:
    """Finding 8: audio replaced outside the workbench is reported, never re-blessed."""
    root = hashed_suite(tmp_path)
    old = listed(root)
    sf.write(root / "audio/rec-3.wav", np.ones(8000, dtype="int16"), 16000)
    result = update_case(root, read_cases(root).fingerprint,
                         {"id": "rec-1", "reference": "edited"})
    now = listed(root)
    assert now["audio/rec-3.wav"] == old["audio/rec-3.wav"] != sha256_file(
        root / "audio/rec-3.wav")
    assert now["cases.jsonl"] == sha256_file(root / "cases.jsonl") != old["cases.jsonl"]
    assert any("audio/rec-3.wav changed outside the workbench" in w
               for w in result["warnings"])
    assert any("audio/rec-3.wav" in w for w in suite_view(root)["warnings"])


def test_a_stale_cases_digest_is_reported_on_the_page(tmp_path: Path) -> None:
    """Finding 9: an interrupted save (cases written, manifest not) is said on start."""
    root = hashed_suite(tmp_path)
    rewrite_row(root, 0, reference="half-saved")
    warnings = suite_view(root)["warnings"]
    assert any("cases.jsonl" in w and "interrupted" in w for w in warnings)


def test_a_save_rewrites_only_the_edited_line(tmp_path: Path) -> None:
    """Other cases keep their bytes (ASCII escapes, CRLF line ends) through a save."""
    root = hashed_suite(tmp_path)
    lines = (root / "cases.jsonl").read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"draft transcript number 2", b"caf\\u00e9 ") + b"\r"
    (root / "cases.jsonl").write_bytes(b"\n".join(lines))
    accept(root)
    before = (root / "cases.jsonl").read_bytes().split(b"\n")
    update_case(root, read_cases(root).fingerprint, {"id": "rec-1", "reference": "x"})
    after = (root / "cases.jsonl").read_bytes().split(b"\n")
    assert after[1:] == before[1:] and after[0] != before[0]


@pytest.mark.parametrize("text", ["\nwe met", "we met  ", "  we\tmet\n\n"])
def test_text_is_saved_exactly_as_edited(tmp_path: Path, text: str) -> None:
    """Finding 10: no trimming of the transcript or of a key point."""
    root = hashed_suite(tmp_path)
    update_case(root, read_cases(root).fingerprint, {
        "id": "rec-2", "reference": text,
        "key_points": [{"id": "k1", "text": text, "severity": "minor"}]})
    row = read_cases(root).row("rec-2")
    assert row["reference"] == text and row["key_points"][0]["text"] == text


@pytest.mark.parametrize("saved", ["one\r\ntwo\r\n", "one\rtwo"])
def test_line_ends_are_kept_as_the_suites(saved: str) -> None:
    """A text box hands back LF: an unedited transcript keeps its bytes, an edited one
    the line ends it had."""
    row = {"id": "c1", "reference": saved, "status": "draft"}
    as_shown = saved.replace("\r\n", "\n").replace("\r", "\n")
    assert apply_edit(row, {"id": "c1", "reference": as_shown})["reference"] == saved
    edited = apply_edit(row, {"id": "c1", "reference": as_shown + "three"})["reference"]
    assert edited == saved + "three"


def test_a_keypoints_case_without_key_points_cannot_be_approved(tmp_path: Path) -> None:
    """Finding 12: approving it would make the suite unloadable."""
    root = hashed_suite(tmp_path)
    before = (root / "cases.jsonl").read_bytes()
    with pytest.raises(EditError, match="add at least one key point"):
        update_case(root, read_cases(root).fingerprint,
                    {"id": "rec-1", "key_points": [], "status": "approved"})
    assert (root / "cases.jsonl").read_bytes() == before
    # as a draft it may be saved without points, and the page flags it
    update_case(root, read_cases(root).fingerprint, {"id": "rec-1", "key_points": []})
    assert "key points need review" in suite_view(root)["problems"]["rec-1"]


@pytest.mark.parametrize("damage", ["missing", "folder", "not audio", "outside"])
def test_a_case_with_bad_audio_cannot_be_approved(tmp_path: Path, damage: str) -> None:
    root = hashed_suite(tmp_path)
    audio = root / "audio/rec-1.wav"
    audio.unlink()
    if damage == "folder":
        audio.mkdir()
    elif damage == "not audio":
        audio.write_text("hello")
    elif damage == "outside":
        (tmp_path / "x.wav").write_text("x")
        audio.symlink_to(tmp_path / "x.wav")
    before = (root / "cases.jsonl").read_bytes()
    with pytest.raises(EditError, match="audio"):
        update_case(root, read_cases(root).fingerprint,
                    {"id": "rec-1", "status": "approved"})
    assert (root / "cases.jsonl").read_bytes() == before


def test_a_case_of_a_method_without_a_transcript_field_can_be_approved(
        tmp_path: Path) -> None:
    """Only a case that has a ``reference`` needs one to be approved; a keypoints case
    without one is refused by its schema."""
    row = {"id": "c1", "canary": "c", "script": "s", "status": "draft"}
    assert apply_edit(row, {"id": "c1", "status": "approved"})["status"] == "approved"
    with pytest.raises(EditError, match="without a transcript"):
        apply_edit(dict(row, reference=" "), {"id": "c1", "status": "approved"})
    root = hashed_suite(tmp_path)
    rows = [json.loads(x) for x in (root / "cases.jsonl").read_text().splitlines()]
    del rows[0]["reference"]
    (root / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(EditError, match="reference"):
        update_case(root, read_cases(root).fingerprint, {"id": "rec-1", "status": "approved"})


def test_a_save_with_no_edit_keeps_the_file_byte_identical(tmp_path: Path) -> None:
    """Review defect 2: a line written with ``\\u`` escapes and other spacing is not
    re-serialised by a save that changes nothing (what Ctrl+S sends): neither file is
    touched."""
    root = make_review_suite(tmp_path / "s")
    rows = [json.loads(x) for x in (root / "cases.jsonl").read_text().splitlines()]
    rows[0]["reference"] = "田中さんと新宿で会った"
    (root / "cases.jsonl").write_text(
        "".join(json.dumps(r, indent=None, separators=(" , ", " : ")) + "\n" for r in rows))
    from pytest_dictbench.hashes import refresh_hashes

    refresh_hashes(root)
    before = {p: (root / p).read_bytes() for p in ("cases.jsonl", "suite.toml")}
    fingerprint = read_cases(root).fingerprint
    result = update_case(root, fingerprint, {
        "id": "rec-1", "reference": rows[0]["reference"], "key_points": rows[0]["key_points"]})
    assert {p: (root / p).read_bytes() for p in before} == before
    assert result["fingerprint"] == fingerprint
    # an edit still rewrites that line (and only it)
    update_case(root, fingerprint, {"id": "rec-1", "reference": "edited"})
    after = (root / "cases.jsonl").read_bytes().split(b"\n")
    assert after[1:] == before["cases.jsonl"].split(b"\n")[1:]
    assert read_cases(root).row("rec-1")["reference"] == "edited"


def test_an_outside_edit_of_the_cases_file_is_never_blessed_by_a_save(
        tmp_path: Path) -> None:
    """Review defect 3: another case's line edited outside the workbench (the page
    loaded afterwards, so the fingerprint matches) is reported, and saving any case is
    refused, writing nothing, until the change is checked and hashed on purpose."""
    root = hashed_suite(tmp_path)
    lines = (root / "cases.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1].replace("draft transcript number 2", "SWAPPED OUTSIDE")
    (root / "cases.jsonl").write_text("".join(lines), encoding="utf-8")
    before = {p: (root / p).read_bytes() for p in ("cases.jsonl", "suite.toml")}
    view = suite_view(root)
    assert any("cases.jsonl" in w and "dictbench hash" in w for w in view["warnings"])
    for edit in ({"id": "rec-1", "reference": "edited rec-1"},
                 {"id": "rec-1", "status": "approved"}):
        with pytest.raises(ConcurrentEdit, match=r"dictbench hash.*nothing was saved"):
            update_case(root, view["fingerprint"], edit)
        assert {p: (root / p).read_bytes() for p in before} == before
    # once the person hashes the change on purpose, saving works again
    from pytest_dictbench.hashes import refresh_hashes

    refresh_hashes(root)
    result = update_case(root, read_cases(root).fingerprint,
                         {"id": "rec-1", "reference": "edited rec-1"})
    assert listed(root)["cases.jsonl"] == sha256_file(root / "cases.jsonl")
    assert result["warnings"] == []


def test_a_file_rewritten_with_its_old_size_and_mtime_is_still_stale(
        tmp_path: Path) -> None:
    """Reviewer's suspicion: the digest cache was keyed by (path, size, mtime), so audio
    replaced by bytes of the same size with its mtime put back was called unchanged.
    The key now includes the inode and ctime, which no one can set back."""
    import os

    from pytest_dictbench.hashes import stale_files

    root = hashed_suite(tmp_path)
    audio = root / "audio/rec-3.wav"
    assert stale_files(root) == []
    info = audio.stat()
    data = bytearray(audio.read_bytes())
    data[-10:] = b"\x7f" * 10
    audio.write_bytes(bytes(data))
    os.utime(audio, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert audio.stat().st_size == info.st_size
    assert stale_files(root) == ["audio/rec-3.wav"]


@pytest.mark.parametrize(("ini", "text"), [
    ("pytest.ini", "[pytest]\ndictbench_max_text_chars = 70\n"),
    ("pyproject.toml", "[tool.pytest.ini_options]\ndictbench_max_text_chars = \"7_0\"\n"),
    ("tox.ini", "[pytest]\ndictbench_max_text_chars = 70\n")])
def test_a_save_is_checked_against_the_project_s_text_limit(
        tmp_path: Path, ini: str, text: str) -> None:
    """Reviewer's suspicion: the workbench checked the default limit (200,000), so a
    save the benchmark run would refuse under the project's ini limit was accepted."""
    (tmp_path / ini).write_text(text, encoding="utf-8")
    root = hashed_suite(tmp_path)
    before = (root / "cases.jsonl").read_bytes()
    with pytest.raises(EditError, match=r"more than the limit.*nothing was saved"):
        update_case(root, read_cases(root).fingerprint, {"id": "rec-1", "reference": "a" * 71})
    assert (root / "cases.jsonl").read_bytes() == before
    update_case(root, read_cases(root).fingerprint, {"id": "rec-1", "reference": "a" * 70})
    assert read_cases(root).row("rec-1")["reference"] == "a" * 70


def test_a_bad_project_text_limit_is_named(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\ndictbench_max_text_chars = ²\n")
    root = hashed_suite(tmp_path)
    with pytest.raises(DictbenchError, match=r"pytest.ini.*integer >= 1|integer >= 1.*pytest"):
        update_case(root, read_cases(root).fingerprint, {"id": "rec-1", "reference": "x"})
