"""``--dictbench-verify``: integrity checks as tests."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
import soundfile as sf
from support import CANARY, MINI_CASES, jsonl

SPEC = '[audio]\ncontainer = "WAV"\nsample_rate = 16000\nchannels = 1\n'


def tone(path, rate: int) -> None:
    t = np.arange(rate) / rate
    sf.write(path, 0.1 * np.sin(2 * np.pi * 440 * t), rate, subtype="PCM_16", format="WAV")


@pytest.fixture
def verified(pytester: pytest.Pytester, write_suite) -> pytest.Pytester:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    cases = [dict(c, audio=f"audio/{c['id']}.wav") for c in MINI_CASES]
    root = write_suite(cases=cases)
    (root / "audio").mkdir()
    for case in cases:
        tone(root / case["audio"], 16000)
    digest = hashlib.sha256((root / "cases.jsonl").read_bytes()).hexdigest()
    write_suite(cases=cases, extra=f'{SPEC}\n[[files]]\npath = "cases.jsonl"\n'
                                   f'sha256 = "{digest}"\n')
    return pytester


def test_all_checks_pass_and_are_named(verified: pytest.Pytester) -> None:
    result = verified.runpytest("--dictbench-verify", "-v")
    result.stdout.fnmatch_lines([
        "*suite.toml::manifest PASSED*",
        "*suite.toml::sha256[[]cases.jsonl[]] PASSED*",
        "*suite.toml::canary[[]cases.jsonl[]] PASSED*",
        "*suite.toml::audio[[]audio/c1.wav[]] PASSED*",
        "*suite.toml::execution_gate PASSED*",
    ])
    # audio files are data files too: they carry no canary here, so those checks fail
    result.assert_outcomes(passed=8, failed=4)
    assert not (verified.path / "reports").exists()


def test_one_changed_byte_fails_naming_the_file(verified: pytest.Pytester) -> None:
    cases = verified.path / "cases/mini/cases.jsonl"
    data = bytearray(cases.read_bytes())
    at = data.index(b"Maria") + 3
    data[at] ^= 0x01  # "Maria" -> "Mar`a": still valid JSON, a different file
    cases.write_bytes(bytes(data))
    result = verified.runpytest("--dictbench-verify", "-k", "sha256")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cases/mini/cases.jsonl: sha256 * does not match the listed*"])
    # only the cases file is off (a review save cut short, or an edit by hand): say what to do
    result.stdout.fnmatch_lines(["*check the cases, then run 'dictbench hash *cases/mini'*"])


def test_audio_breaking_the_specification(verified: pytest.Pytester) -> None:
    tone(verified.path / "cases/mini/audio/c2.wav", 22050)
    result = verified.runpytest("--dictbench-verify", "-k", "audio and not canary")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*audio/c2.wav: sample_rate: expected 16000*measured 22050*"])


def test_missing_canary_and_closed_gate(pytester: pytest.Pytester, write_suite) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite(cases_text=jsonl(MINI_CASES),
                extra='[execution_gate]\nready = false\nblocking_items = ["record audio"]\n')
    result = pytester.runpytest("--dictbench-verify")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines([
        f"*cases.jsonl: the canary string {CANARY!r} is missing*",
        "*execution gate is closed; blocking items: record audio; ranking is suppressed*",
    ])


def test_broken_manifest_is_one_failing_check(pytester: pytest.Pytester, write_suite) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite(cases_text=jsonl([dict(MINI_CASES[0], canary=CANARY)]) + "{oops\n")
    result = pytester.runpytest("--dictbench-verify")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cases.jsonl:2: malformed JSON*"])


def test_verify_and_product_are_exclusive(verified: pytest.Pytester) -> None:
    result = verified.runpytest("--dictbench-verify", "--product=p1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_case_consistency_check(pytester: pytest.Pytester, write_suite) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    cases = [{"id": "v1", "verbatim": "I [uh] went home.", "intended": "I went home."},
             {"id": "v2", "verbatim": "We left.", "intended": "We never left."}]
    write_suite(cases=cases, method="verbatim", params="vwer_threshold = 0.2")
    result = pytester.runpytest("--dictbench-verify", "-v")
    result.stdout.fnmatch_lines(["*::case[[]v1[]] PASSED*", "*::case[[]v2[]] FAILED*"])
    result.stdout.fnmatch_lines(["*case 'v2': *"])
    assert json.loads((pytester.path / "cases/mini/cases.jsonl").read_text().splitlines()[0])


def test_drafts_check_names_the_drafts_that_still_need_key_points(
        pytester: pytest.Pytester) -> None:
    """Workbench finding 20: a draft without key points (no API key when drafting, an empty
    answer) or without a transcript is flagged in the drafts check, not only counted."""
    from workbench_support import make_review_suite

    root = make_review_suite(pytester.path / "cases" / "s")
    rows = [json.loads(x) for x in (root / "cases.jsonl").read_text().splitlines()]
    rows[0]["status"] = "approved"
    rows[1]["key_points"] = []
    rows[2]["reference"] = ""
    (root / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    from pytest_dictbench.hashes import refresh_hashes

    refresh_hashes(root)
    result = pytester.runpytest("--dictbench-verify", "cases/s", "-k", "drafts")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*2 draft case(s) not yet approved (rec-2, rec-3); without "
                                 "key points: rec-2; without a transcript: rec-3; review*"])
