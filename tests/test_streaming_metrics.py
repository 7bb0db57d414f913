"""Streaming timing metrics over hand-written logs, worked out by hand, and properties
that hold for any log (issue 43)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_dictbench.adapters.streaming.marks import audio_marks
from pytest_dictbench.adapters.streaming.metrics import (
    AudioMarks,
    first_final,
    first_shown,
    last_final_change,
    pacing,
    stability,
    streaming_metrics,
)
from pytest_dictbench.adapters.streaming.timeline import (
    Send,
    StreamLog,
    Update,
    display,
    final_text,
)

# The hand-written timeline: speech audible from 0.5 s (onset 0.6 s) to 2.0 s.
MARKS = AudioMarks(first_audible_s=0.5, speech_onset_s=0.6, last_audible_s=2.0)
UPDATES = [
    Update(0.9, "0", "hello", False, audio_end=0.7),
    Update(1.1, "0", "hello word", False, audio_end=1.0),
    Update(1.3, "0", "hello world", True, audio_end=1.2),
    Update(1.6, "1", "this is", False, audio_end=1.5),
    Update(1.9, "1", "this was", False),
    Update(2.4, "1", "this is a test", True),
    Update(2.6, "1", "this is a test", True),  # repeated: changes nothing
]
SENDS = [Send(0.1, 0.1005), Send(0.2, 0.2), Send(0.3, 0.312)]


def test_hand_worked_timeline() -> None:
    """Every figure of the timeline above, as worked out by hand in the comments."""
    log = StreamLog(chunk_s=0.1, sends=SENDS, updates=UPDATES, messages=9)
    m = streaming_metrics(log, MARKS)
    assert m["ttfp_audible_ms"] == 400.0  # 0.9 - 0.5
    assert m["ttfp_onset_ms"] == 300.0  # 0.9 - 0.6
    assert m["ttff_ms"] == 800.0  # 1.3 - 0.5
    assert m["final_latency_ms"] == 400.0  # 2.4 - 2.0 (the repeat at 2.6 changes nothing)
    # lags 0.2, 0.1, 0.1, 0.1 (the untimed updates give none)
    assert m["partial_lag_mean_ms"] == 125.0
    assert m["partial_lag_max_ms"] == 200.0
    # word->world, is->was, was->is: 3 revisions; 6 final words
    assert m["flicker_count"] == 3
    assert m["flicker_rate"] == 0.5
    # hello, this, a, test stood unchanged; world and is were shown otherwise first
    assert m["first_form_share"] == round(4 / 6, 6)
    assert m["words_shown"] == 9  # hello word world this is was a is test
    assert m["updates"] == 7 and m["messages"] == 9
    # lateness 0.5, 0, 12 ms: p50 0.5; p95 at position 1.9: 0.5 + 0.9 * 11.5
    assert m["pacing"] == {"chunks": 3, "p50_ms": 0.5, "p95_ms": 10.85, "max_ms": 12.0,
                           "bound_ms": 100.0, "valid": True}
    assert final_text(UPDATES) == "hello world this is a test"


def test_pacing_bound_makes_an_item_invalid() -> None:
    assert not pacing([Send(0.1, 0.3)], bound_ms=100.0).valid  # 200 ms late
    assert pacing([Send(0.1, 0.15)], bound_ms=100.0).valid


def test_partial_never_final() -> None:
    """A segment that only ever had partials gives no final text and no final time."""
    updates = [Update(1.0, "a", "half a", False)]
    assert final_text(updates) == ""
    assert first_final(updates) is None and last_final_change(updates) is None
    assert first_shown(updates) == 1.0


def test_final_empty_segment_withdraws_words() -> None:
    """A final with no words withdraws the partial: two revisions."""
    updates = [Update(1.0, "a", "um so", False), Update(1.5, "a", "", True)]
    assert display(updates) == []
    assert stability(updates).flicker_count == 2
    assert first_final(updates) is None


def test_audio_marks_on_a_tone() -> None:
    """0.5 s of silence, a faint 0.2 s click at -40 dBFS, then a 1 s tone at -6 dBFS:
    audible from the click, speech onset at the tone, last audible at the tone's end."""
    rate = 16000
    t = np.arange(rate) / rate
    audio = np.concatenate([np.zeros(rate // 2), 0.01 * np.ones(rate // 5),
                            0.5 * np.sin(2 * np.pi * 440 * t), np.zeros(rate // 4)])
    marks = audio_marks(audio, rate)
    assert marks.first_audible_s == pytest.approx(0.5, abs=0.011)
    assert marks.speech_onset_s == pytest.approx(0.7, abs=0.011)
    assert marks.last_audible_s == pytest.approx(1.7, abs=0.011)


words = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=6)


@st.composite
def timelines(draw: st.DrawFn) -> list[Update]:
    count = draw(st.integers(0, 12))
    t = 0.0
    updates = []
    for _ in range(count):
        t += draw(st.one_of(st.just(0.0), st.floats(0.001, 1.0)))  # 0: one message
        updates.append(Update(t, draw(st.sampled_from(["0", "1", "2"])),
                              " ".join(draw(words)), draw(st.booleans()),
                              draw(st.one_of(st.none(), st.floats(0.0, 5.0)))))
    return updates


@given(timelines())
@settings(max_examples=200, deadline=None)
def test_stability_bounds(updates: list[Update]) -> None:
    s = stability(updates)
    assert 0 <= s.flicker_count <= s.words_shown
    assert s.final_words == len(display(updates))
    assert s.first_form_share is None or 0.0 <= s.first_form_share <= 1.0


@given(st.lists(words, min_size=1, max_size=8))
@settings(max_examples=200, deadline=None)
def test_growing_text_never_flickers(prefixes: list[list[str]]) -> None:
    """Text that only grows (each display extends the last) has no revision, and every
    final word was shown in its final form."""
    text: list[str] = []
    updates = []
    for i, more in enumerate(prefixes):
        text = text + more
        updates.append(Update(float(i), "0", " ".join(text), i == len(prefixes) - 1))
    s = stability(updates)
    assert s.flicker_count == 0
    assert s.first_form_share in (None, 1.0)


@given(timelines(), st.floats(-100.0, 100.0))
@settings(max_examples=200, deadline=None)
def test_timings_do_not_depend_on_the_clock_origin(updates: list[Update], shift: float) -> None:
    """Moving the clock's zero moves every time and mark alike: no timing changes."""
    marks = AudioMarks(0.3, 0.4, 1.5)
    moved = [Update(u.t + shift, u.segment, u.text, u.final,
                    None if u.audio_end is None else u.audio_end + shift) for u in updates]
    moved_marks = AudioMarks(0.3 + shift, 0.4 + shift, 1.5 + shift)
    a = streaming_metrics(StreamLog(0.1, updates=updates), marks)
    b = streaming_metrics(StreamLog(0.1, updates=moved), moved_marks)
    for key in ("ttfp_audible_ms", "ttfp_onset_ms", "ttff_ms", "final_latency_ms",
                "partial_lag_mean_ms", "partial_lag_max_ms"):
        assert (a[key] is None) == (b[key] is None)
        if a[key] is not None:
            assert a[key] == pytest.approx(b[key], abs=0.01)
    assert a["flicker_count"] == b["flicker_count"]


@given(st.lists(st.floats(0.0, 0.5), max_size=30), st.floats(1.0, 200.0))
@settings(max_examples=200, deadline=None)
def test_pacing_order_and_validity(lateness: list[float], bound: float) -> None:
    p = pacing([Send(i * 0.1, i * 0.1 + late) for i, late in enumerate(lateness)], bound)
    if not lateness:
        assert p.valid and p.max_ms is None
        return
    assert p.p50_ms <= p.p95_ms + 1e-9 and p.p95_ms <= p.max_ms + 1e-9
    assert p.valid == (p.max_ms <= bound)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "message", "channel", "alternatives", "transcript",
                         "is_final", "words", "end", "turn_order", "end_of_turn", "metadata",
                         "item_id", "delta", "tokens", "text", "is_final", "finished",
                         "error", "error_code", "end_time", "session"]), inner, max_size=5),
    max_leaves=12)
message_types = st.sampled_from([
    "Results", "Metadata", "Begin", "Turn", "Termination", "AddPartialTranscript",
    "AddTranscript", "EndOfTranscript", "RecognitionStarted", "Error", "error",
    "input_audio_buffer.committed", "conversation.item.input_audio_transcription.delta",
    "conversation.item.input_audio_transcription.completed"])


@given(st.sampled_from(["deepgram-live", "assemblyai-streaming", "openai-realtime",
                        "speechmatics-rt", "soniox-rt"]),
       st.one_of(json_values, st.builds(lambda t, rest: {"type": t, "message": t, **rest},
                                        message_types, st.dictionaries(
                                            st.sampled_from(["channel", "metadata", "tokens",
                                                             "transcript", "turn_order",
                                                             "item_id", "delta", "words"]),
                                            json_values, max_size=4))))
@settings(max_examples=300, deadline=None)
def test_protocol_readers_take_any_json(kind: str, value: object) -> None:
    """Any JSON a server might send is read or refused as malformed (the errors the
    session engine counts as malformed), never a crash of another kind."""
    import json

    from pytest_dictbench.adapters.streaming.kinds import PROTOCOLS
    from pytest_dictbench.adapters.streaming.protocol import Config
    from pytest_dictbench.adapters.streaming.session import MALFORMED

    protocol = PROTOCOLS[kind]
    reader = protocol.reader(Config("m", "en", protocol.sample_rate, {}))
    try:
        reading = reader.read(json.dumps(value))
    except MALFORMED:
        return
    for segment in reading.updates:
        assert isinstance(segment.text, str) and isinstance(segment.segment, str)
