"""Speech synthesis of case scripts and voice assignment (audio.synth)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_dictbench.audio.io import audio_info, read_audio, sha256_file
from pytest_dictbench.audio.spec import AudioSpec, check_audio
from pytest_dictbench.audio.synth import (
    EN_VOICES,
    JA_VOICES,
    SynthError,
    Voice,
    assign_voices,
    render_speech,
    synth_case,
    synth_suite_cases,
    voices_for_locale,
)
from pytest_dictbench.model import Case

CANARY = "DICTBENCH-CANARY 7f3e-test-only"
EN_TEXT = "The meeting moves to Thursday at three, in room twelve."
JA_TEXT = "会議は木曜日の三時に変更になりました。"
SPEC = AudioSpec.from_table(
    {
        "container": "FLAC",
        "sample_rate": 16000,
        "channels": 1,
        "bit_depth": 16,
        "loudness_lufs": -23.0,
        "loudness_tolerance": 0.5,
        "true_peak_max_dbtp": -1.0,
        "silence_ms": 300,
        "silence_tolerance_ms": 100,
    }
)


# --- English via espeak-ng -----------------------------------------------------------


def test_english_file_meets_the_spec_and_carries_the_canary(tmp_path: Path) -> None:
    result = synth_case(EN_TEXT, "en-US", "en-us", tmp_path / "en.flac", canary=CANARY)
    path = Path(result["path"])
    failures = [f.describe() for f in check_audio(path, SPEC) if not f.passed]
    assert failures == []
    with sf.SoundFile(path) as sound:
        assert sound.copy_metadata().get("comment") == CANARY
    assert CANARY.encode() in path.read_bytes()
    assert result["sha256"] == sha256_file(path)
    assert result["voice"] == "en-us"
    assert result["duration"] == pytest.approx(audio_info(path).duration, abs=1e-4)
    # Spoken text plus 2 × 300 ms padding: well over a second, well under ten.
    assert 1.5 < result["duration"] < 10


def test_english_text_is_never_interpreted_by_a_shell_or_as_options(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = f'-w {marker} "quoted" it\'s; touch {marker} $(touch {marker}) `touch {marker}`'
    samples, rate = render_speech(text, EN_VOICES[0])
    assert not marker.exists()
    # espeak spoke the whole line (about 20 words) rather than failing or parsing "-w".
    assert samples.size / rate > 3.0


def test_english_voices_sound_different(tmp_path: Path) -> None:
    a, _ = render_speech("Hello there.", Voice("a", "espeak-ng", "en-us"))
    b, _ = render_speech("Hello there.", Voice("b", "espeak-ng", "en-us+f3"))
    assert a.shape != b.shape or not np.array_equal(a, b)


def test_unknown_espeak_voice_is_a_synth_error() -> None:
    # espeak-ng itself would speak Norwegian for "no-such-voice" ("no" prefix) and
    # ignore an unknown variant; both must be refused instead.
    with pytest.raises(SynthError, match="no voice 'no-such-voice'"):
        render_speech("hello", Voice("x", "espeak-ng", "no-such-voice"))
    with pytest.raises(SynthError, match="no variant 'nosuch'"):
        render_speech("hello", Voice("x", "espeak-ng", "en-us+nosuch"))
    with pytest.raises(SynthError, match="not an espeak-ng voice"):
        render_speech("hello", Voice("x", "espeak-ng", "-x;rm"))


def test_english_synthesis_is_byte_identical(tmp_path: Path) -> None:
    first = synth_case(EN_TEXT, "en-US", "en-gb+f2", tmp_path / "a.flac", canary=CANARY)
    second = synth_case(EN_TEXT, "en-US", "en-gb+f2", tmp_path / "b.flac", canary=CANARY)
    assert first["sha256"] == second["sha256"]
    assert Path(first["path"]).read_bytes() == Path(second["path"]).read_bytes()


# --- Japanese via pyopenjtalk --------------------------------------------------------


def test_japanese_synthesis_is_deterministic_across_voice_switches(tmp_path: Path) -> None:
    """The HTS engine is shared state: a pitch-shifted voice must not leak into the next."""
    first = synth_case(JA_TEXT, "ja-JP", "ja-mei", tmp_path / "1.flac", canary=CANARY)
    high = synth_case(JA_TEXT, "ja-JP", "ja-mei-high", tmp_path / "2.flac", canary=CANARY)
    again = synth_case(JA_TEXT, "ja-JP", "ja-mei", tmp_path / "3.flac", canary=CANARY)
    assert first["sha256"] == again["sha256"] != high["sha256"]
    failures = [f.describe() for f in check_audio(first["path"], SPEC) if not f.passed]
    assert failures == []


def test_japanese_fast_voice_is_shorter() -> None:
    normal, rate = render_speech(JA_TEXT, JA_VOICES[0])
    fast, fast_rate = render_speech(JA_TEXT, JA_VOICES[1])
    assert rate == fast_rate == 48000
    # speed 1.15 → about 1/1.15 = 0.87 of the length; allow for fixed pauses.
    assert 0.8 < fast.size / normal.size < 0.95


def test_japanese_synthesis_needs_no_network_and_matches_across_processes(
    tmp_path: Path,
) -> None:
    """A fresh interpreter with sockets disabled loads pyopenjtalk, speaks, and writes
    the very bytes this process writes for the same inputs."""
    script = textwrap.dedent(
        f"""
        import socket
        def refuse(*args, **kwargs):
            raise OSError("network disabled by test")
        socket.socket.connect = refuse
        socket.create_connection = refuse
        from pytest_dictbench.audio.synth import synth_case
        result = synth_case({JA_TEXT!r}, "ja-JP", "ja-mei-low", {str(tmp_path / "n.flac")!r},
                            canary={CANARY!r})
        print(result["sha256"])
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    here = synth_case(JA_TEXT, "ja-JP", "ja-mei-low", tmp_path / "h.flac", canary=CANARY)
    assert done.stdout.strip() == here["sha256"]


@pytest.mark.parametrize("voice", JA_VOICES + EN_VOICES, ids=lambda v: v.name)
def test_every_built_in_voice_speaks(voice: Voice) -> None:
    text = "はい、承知しました。" if voice.engine == "openjtalk" else "Yes, understood."
    samples, rate = render_speech(text, voice)
    assert 0.5 < samples.size / rate < 5.0
    assert 0.05 < float(np.max(np.abs(samples))) <= 1.0


# --- options and errors --------------------------------------------------------------


def test_rate_loudness_and_silence_options_are_applied(tmp_path: Path) -> None:
    result = synth_case(
        EN_TEXT, "en-GB", "en-gb-x-rp", tmp_path / "x.flac", canary=CANARY,
        rate=22050, target_lufs=-30.0, silence_ms=600,
    )  # fmt: skip
    spec = AudioSpec(
        sample_rate=22050, loudness_lufs=-30.0, loudness_tolerance=0.2,
        silence_ms=600, silence_tolerance_ms=50,
    )  # fmt: skip
    failures = [f.describe() for f in check_audio(result["path"], spec) if not f.passed]
    assert failures == []


def test_too_loud_a_target_is_refused_not_clipped(tmp_path: Path) -> None:
    out = tmp_path / "loud.flac"
    with pytest.raises(SynthError, match="true peak"):
        synth_case(EN_TEXT, "en-US", "en-us", out, canary=CANARY, target_lufs=-3.0)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind


def test_empty_text_unknown_voice_and_locale_are_errors(tmp_path: Path) -> None:
    with pytest.raises(SynthError, match="empty"):
        synth_case("  ", "en-US", "en-us", tmp_path / "e.flac", canary=CANARY)
    with pytest.raises(SynthError, match="unknown voice 'en-au'"):
        synth_case("hi", "en-US", "en-au", tmp_path / "e.flac", canary=CANARY)
    with pytest.raises(SynthError, match="no built-in voices"):
        voices_for_locale("fr-FR")
    assert voices_for_locale("ja") == JA_VOICES and voices_for_locale("en-GB") == EN_VOICES


# --- suites --------------------------------------------------------------------------


def test_synth_suite_cases_renders_every_case(tmp_path: Path) -> None:
    cases = [
        Case("c-1", {"id": "c-1", "script": "First line.", "reference": "ignored"}),
        Case("c-2", {"id": "c-2", "reference": "Second line, from the reference."}),
        Case("c-3", {"id": "c-3", "script": "Third.", "genre": "chat"}),
    ]
    rows = synth_suite_cases(cases, "en-US", tmp_path / "audio", canary=CANARY, seed=3)
    assert [r["case_id"] for r in rows] == ["c-1", "c-2", "c-3"]
    expected_voices = assign_voices(cases, EN_VOICES, 3)
    for row in rows:
        path = Path(row["path"])
        assert path == tmp_path / "audio" / f"{row['case_id']}.flac"
        assert row["sha256"] == sha256_file(path)
        assert row["voice"] == expected_voices[row["case_id"]].name
        samples, rate = read_audio(path)
        assert rate == 16000 and row["duration"] == pytest.approx(samples.size / rate, abs=1e-4)
    assert set(rows[0]) == {"case_id", "path", "sha256", "voice", "duration"}


def test_synth_suite_cases_names_a_case_without_text(tmp_path: Path) -> None:
    cases = [Case("quiet-1", {"id": "quiet-1"})]
    with pytest.raises(SynthError, match="quiet-1"):
        synth_suite_cases(cases, "en-US", tmp_path, canary=CANARY)


def test_a_synthesis_that_fails_midway_changes_no_file(tmp_path: Path) -> None:
    audio = tmp_path / "audio"
    audio.mkdir()
    (audio / "c-1.flac").write_bytes(b"the old c-1")
    (audio / ".synth-stale").mkdir()  # left by a killed render: swept
    cases = [Case("c-1", {"id": "c-1", "script": "First line."}),
             Case("quiet-2", {"id": "quiet-2"})]
    with pytest.raises(SynthError, match="quiet-2"):
        synth_suite_cases(cases, "en-US", audio, canary=CANARY)
    assert (audio / "c-1.flac").read_bytes() == b"the old c-1"
    assert sorted(p.name for p in audio.iterdir()) == ["c-1.flac"]


# --- voice assignment ----------------------------------------------------------------


def _cases(sizes: dict[tuple[str | None, str | None], int]) -> list[Case]:
    cases = []
    for (source, genre), size in sizes.items():
        for i in range(size):
            case_id = f"{source}-{genre}-{i:03d}"
            data = {"id": case_id, "source": source, "genre": genre}
            cases.append(Case(case_id, {k: v for k, v in data.items() if v is not None}))
    return cases


def _spread(counts: Counter, voices: list[str]) -> int:
    values = [counts.get(v, 0) for v in voices]
    return max(values) - min(values)


def test_assign_voices_balances_each_stratum_and_overall() -> None:
    sizes = {("news", "chat"): 17, ("news", "memo"): 10, ("talk", "chat"): 13, (None, None): 3}
    cases = _cases(sizes)
    voices = ["v1", "v2", "v3", "v4"]
    assignment = assign_voices(cases, voices, seed=11)
    assert set(assignment) == {c.id for c in cases}
    for source, genre in sizes:
        stratum = [c.id for c in cases if c.get("source") == source and c.genre == genre]
        assert _spread(Counter(assignment[i] for i in stratum), voices) <= 1
    assert _spread(Counter(assignment.values()), voices) <= 1


def test_assign_voices_is_deterministic_and_seeded() -> None:
    cases = _cases({("a", "x"): 9, ("b", "y"): 7})
    voices = ["v1", "v2", "v3"]
    first = assign_voices(cases, voices, seed=1)
    assert assign_voices(list(reversed(cases)), voices, seed=1) == first
    assert assign_voices(cases, voices, seed=2) != first


def test_assign_voices_rejects_no_voices_and_duplicate_ids() -> None:
    with pytest.raises(SynthError, match="at least one voice"):
        assign_voices(_cases({("a", "x"): 2}), [], seed=0)
    twice = _cases({("a", "x"): 1}) * 2
    with pytest.raises(SynthError, match="appears twice"):
        assign_voices(twice, ["v"], seed=0)


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=25), min_size=1, max_size=6),
    voice_count=st.integers(min_value=1, max_value=6),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_assign_voices_balance_property(sizes: list[int], voice_count: int, seed: int) -> None:
    cases = _cases({(f"s{i % 2}", f"g{i}"): size for i, size in enumerate(sizes)})
    voices = [f"v{i}" for i in range(voice_count)]
    assignment = assign_voices(cases, voices, seed)
    for i in range(len(sizes)):
        stratum = [c.id for c in cases if c.genre == f"g{i}"]
        assert _spread(Counter(assignment[c] for c in stratum), voices) <= 1
    assert _spread(Counter(assignment.values()), voices) <= 1
