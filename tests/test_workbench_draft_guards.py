"""``dictbench draft``, ``refine`` and ``publish`` on bad options, odd folders and hand
edits: checked before anything is written, nothing half-made left behind, nothing lost
without a word (findings 18-19, 21-27 of the review)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from judge_server import MessagesServer
from workbench_support import drafter_for, keypoint_responder, make_review_suite, write_wav

from pytest_dictbench.cli import main
from pytest_dictbench.workbench.draft import points_sha256, refine_suite, text_sha256

REPO = Path(__file__).parents[1]
JUDGE = '[judge]\ntimeout = 5.0\n[[judge.judges]]\nname = "a"\nmodel = "m-a"\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``rec/`` with one WAV, a judge table, the cache product ``example`` (it has no
    outputs for a new suite, so each case ends without a transcript), no API key."""
    write_wav(tmp_path / "rec" / "a.wav", 1.0)
    (tmp_path / "judge.toml").write_text(JUDGE)
    shutil.copy(REPO / "products/example.toml", tmp_path / "example.toml")
    (tmp_path / "products").mkdir()
    shutil.move(tmp_path / "example.toml", tmp_path / "products/example.toml")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def draft(*extra: str, out: str = "cases/new") -> int:
    return main(["draft", "rec", "--out", out, "--judge-config", "judge.toml",
                 "--product", "example", *extra])


@pytest.mark.parametrize("value", ["nan", "inf", "1e-9", "0.5", "0", "-15"])
def test_per_seconds_is_checked_before_anything_is_written(
        project: Path, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Findings 18 and 21."""
    assert draft(f"--per-seconds={value}") == 2
    assert "--per-seconds must be a finite number of seconds, at least 1" in \
        capsys.readouterr().err
    assert not (project / "cases").exists()


def test_an_unknown_product_leaves_nothing_behind(project: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 19: checked first; a rerun is not blocked by a half-made suite."""
    assert main(["draft", "rec", "--out", "cases/n2", "--judge-config", "judge.toml"]) == 2
    assert "whisper-tiny" in capsys.readouterr().err
    assert not (project / "cases" / "n2").exists()
    assert not (project / "cases").exists() or os.listdir(project / "cases") == []


def test_a_crash_while_drafting_leaves_nothing_behind(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 19: the suite is built beside ``--out`` and renamed into place at the end."""
    from pytest_dictbench.workbench import draft as drafting

    def crash(*args: object, **kwargs: object) -> None:
        raise RuntimeError("killed")

    monkeypatch.setattr(drafting, "_transcribe", crash)
    with pytest.raises(RuntimeError):
        draft()
    assert os.listdir(project / "cases") == []
    monkeypatch.undo()
    monkeypatch.chdir(project)
    assert draft() == 1  # no transcript (cache product), but the suite is made
    assert (project / "cases/new/suite.toml").is_file()


def test_odd_entries_in_the_recordings_folder_are_listed(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Findings 18 and 23: a non-UTF-8 name, a subfolder, a link loop, a device."""
    rec = project / "rec"
    shutil.copy(rec / "a.wav", os.fsencode(rec) + b"/bad\xff.wav")
    write_wav(rec / "sub" / "d.wav", 0.5)
    (rec / "loop").symlink_to(".")
    (rec / "z.wav").symlink_to("/dev/zero")
    assert draft() == 1  # the cases have no transcript; the listing is what we check
    out = capsys.readouterr().out
    assert "bad\\xff.wav: the file name is not valid UTF-8, skipped" in out
    assert "sub/: a folder, not searched" in out
    assert "loop/: a link to a folder, not searched" in out
    assert "z.wav: not a regular file" in out
    rows = [json.loads(x) for x in (project / "cases/new/cases.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["a"]


def test_an_output_folder_inside_a_suite_or_a_file_is_refused(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 22."""
    make_review_suite(project / "cases" / "kp")
    assert draft(out="cases/kp/sub") == 2
    assert "inside the suite" in capsys.readouterr().err
    assert not (project / "cases/kp/sub").exists()
    (project / "afile").write_text("x")
    assert draft(out="afile") == 2
    assert "not a folder" in capsys.readouterr().err


def test_the_no_key_hint_fits_draft_and_options_are_not_abbreviated(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 24."""
    (project / "products/example").mkdir()
    (project / "products/example/new.jsonl").write_text(
        json.dumps({"case_id": "a", "text": "we met at noon", "status": "complete"}) + "\n")
    draft()
    out = capsys.readouterr().out
    assert "--judge=replay" not in out
    assert "or draft with --judge=off and add key points by hand in 'dictbench review'" in out
    with pytest.raises(SystemExit):  # not taken for --judge-config
        main(["draft", "rec", "--out", "cases/n3", "--judge=replay"])
    assert "argument --judge: invalid choice: 'replay'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["draft", "rec", "--out", "cases/n3", "--judge-conf=judge.toml"])
    assert "unrecognized arguments: --judge-conf=judge.toml" in capsys.readouterr().err


def test_draft_with_judge_off_needs_no_judge_and_the_suite_collects(
        project: Path, capsys: pytest.CaptureFixture[str], pytester: pytest.Pytester) -> None:
    """Issue 24: without a key, ``--judge=off`` drafts the transcripts; the draft loads and
    a run says its cases are drafts instead of failing to collect."""
    (project / "products/example").mkdir()
    (project / "products/example/new.jsonl").write_text(
        json.dumps({"case_id": "a", "text": "we met at noon", "status": "complete"}) + "\n")
    os.chdir(project)  # pytester moved to its own folder
    code = main(["draft", "rec", "--out", "cases/new", "--product", "example", "--judge=off"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "1 case(s) without key points (--judge=off): write them in 'dictbench review " \
           "cases/new', then approve each case" in out
    rows = [json.loads(x) for x in (project / "cases/new/cases.jsonl").read_text().splitlines()]
    assert [(r["id"], r["status"], r["reference"], r["key_points"]) for r in rows] == [
        ("a", "draft", "we met at noon", [])]
    assert "[judge]" not in (project / "cases/new/suite.toml").read_text()
    result = pytester.runpytest_subprocess(str(project / "cases/new"), "--product=example",
                                           f"--rootdir={project}", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED, result.stdout.str()
    result.stdout.fnmatch_lines(["dictbench: 1 draft case* not collected*"])
    assert "error" not in result.stdout.str().lower()


def _drafted_suite(tmp_path: Path) -> Path:
    root = make_review_suite(tmp_path / "suite")
    rows = [json.loads(x) for x in (root / "cases.jsonl").read_text().splitlines()]
    for row in rows:
        row["status"] = "approved"
        row["drafted"] = {"reference_sha256": text_sha256(row["reference"]),
                          "reference_form_sha256": "", "key_points_sha256":
                          points_sha256(row["key_points"])}
    rows[1]["key_points"] = [{"id": "k1", "text": "edited by hand", "severity": "minor"}]
    rows[1]["reference"] = "draft transcript number 2, corrected"
    rows[2]["reference"] = "a new transcript for three"  # points as drafted
    (root / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_refine_keeps_hand_edited_points_unless_forced(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 25: the hand edit is named and kept; with --force it is replaced and the
    old points are kept in drafted.previous_key_points."""
    root = _drafted_suite(tmp_path)
    with MessagesServer(keypoint_responder) as server:
        result = refine_suite(root, drafter=drafter_for(server.url))
        assert (result.refined, result.kept) == (["rec-3"], ["rec-2"])
        assert any("rec-2: its key points were edited by hand" in line
                   for line in result.lines())
        kept = [json.loads(x) for x in (root / "cases.jsonl").read_text().splitlines()][1]
        assert kept["key_points"][0]["text"] == "edited by hand"
        forced = refine_suite(root, drafter=drafter_for(server.url), force=True)
    assert (forced.refined, forced.replaced) == (["rec-2"], ["rec-2"])
    row = [json.loads(x) for x in (root / "cases.jsonl").read_text().splitlines()][1]
    assert row["drafted"]["previous_key_points"] == [
        {"id": "k1", "text": "edited by hand", "severity": "minor"}]
    assert row["status"] == "draft" and row["key_points"][0]["text"].startswith("point 1")


def test_refine_ignores_a_change_of_formatting_only(tmp_path: Path) -> None:
    """Finding 25: full-width digits and trailing spaces are no new transcript."""
    from pytest_dictbench.workbench.draft import text_form

    root = make_review_suite(tmp_path / "suite")
    rows = [json.loads(x) for x in (root / "cases.jsonl").read_text().splitlines()]
    for row in rows:
        row["drafted"]["reference_sha256"] = text_sha256(row["reference"])
    rows[0]["reference"] = "会議は11時から"
    rows[0]["drafted"] = {"reference_sha256": text_sha256(rows[0]["reference"]),
                          "reference_form_sha256": text_sha256(text_form("会議は11時から"))}
    rows[0]["reference"] = "会議は１１時から   "
    (root / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = (root / "cases.jsonl").read_bytes()
    with MessagesServer(keypoint_responder) as server:
        result = refine_suite(root, drafter=drafter_for(server.url))
        assert result.refined == [] and server.requests == []
    assert (root / "cases.jsonl").read_bytes() == before


def _report(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "dictbench.json").write_text(json.dumps({"suites": []}))
    (folder / "items.jsonl").write_text('{"text": "every output"}\n')
    return folder


def test_publish_refuses_the_report_folder_and_a_folder_with_other_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 26."""
    reports = _report(tmp_path / "reports")
    assert main(["publish", str(reports), str(reports)]) == 2
    assert "report folder itself" in capsys.readouterr().err
    assert not (reports / "summary.json").exists()
    old = tmp_path / "old"
    old.mkdir()
    shutil.copy(reports / "items.jsonl", old)
    assert main(["publish", str(reports), str(old)]) == 2
    assert "already holds items.jsonl" in capsys.readouterr().err
    assert main(["publish", str(reports), str(old), "--force"]) == 0
    fresh = tmp_path / "fresh"
    assert main(["publish", str(reports), str(fresh)]) == 0
    assert main(["publish", str(reports), str(fresh)]) == 0  # an earlier summary is fine


def test_publish_to_a_file_is_an_error_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 27."""
    reports = _report(tmp_path / "reports")
    (tmp_path / "OUTF").write_text("")
    assert main(["publish", str(reports), str(tmp_path / "OUTF")]) == 2
    assert "OUTF: exists and is not a folder" in capsys.readouterr().err


def test_drafts_without_key_points_do_not_stop_the_suite_loading(tmp_path: Path) -> None:
    """Finding 20: a draft is not a benchmark item, so its method's schema waits for its
    approval; the approved cases load and run."""
    from pytest_dictbench.methods.builtin import builtin_methods
    from pytest_dictbench.suites import load_suite

    root = make_review_suite(tmp_path / "s")
    rows = [json.loads(x) for x in (root / "cases.jsonl").read_text().splitlines()]
    rows[0]["status"] = "approved"
    rows[1].update(key_points=[], reference="")
    (root / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    schemas = {m.name: m.case_schema for m in builtin_methods()}
    suite = load_suite(root, schemas.get)
    assert [c.id for c in suite.cases] == ["rec-1"]
    assert [c.id for c in suite.drafts] == ["rec-2", "rec-3"]


def test_the_documented_judge_file_loads(tmp_path: Path) -> None:
    """Issue 24: docs/workbench.md shows a complete judge file; it must load as shown."""
    import re

    from pytest_dictbench.workbench.draft import load_judge_table

    doc = (REPO / "docs/workbench.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(\[judge\]\n.*?)```", doc, re.S)
    assert block is not None
    (tmp_path / "judge.toml").write_text(block.group(1), encoding="utf-8")
    settings = load_judge_table(tmp_path / "judge.toml")[1]
    assert [j.name for j in settings.judges] == ["judge-a", "judge-b"]
    assert settings.budget_usd == 2.0
