"""Timing and stability figures of one streaming session, as pure functions over its
log (:mod:`.timeline`). No clock, no socket: a hand-written log gives the figures
worked out by hand.

Definitions (times in session seconds; an audio position ``p`` is spoken at ``p``):

- **time to first partial**: the first update after which any word is shown, from the
  first audible sample (``ttfp_audible_ms``) and from the speech onset
  (``ttfp_onset_ms``);
- **time to first final**: the first final update with words, from the first audible
  sample (``ttff_ms``);
- **final latency**: the last update that changed the final transcript, from the last
  audible sample (``final_latency_ms``);
- **partial lag**: for each update that gives word times, its receive time minus the
  audio position where its last word ends (``partial_lag_*``);
- **stability**: successive displays are aligned word by word (a minimal edit
  alignment, rapidfuzz's ``Levenshtein.opcodes``, which also breaks ties between
  equally short alignments); every word shown before and substituted or deleted in the next display
  is one revision (``flicker_count``; ``flicker_rate`` per word of the final display).
  Each word carries whether it has stood unchanged since it appeared (a substituted
  word has not; an inserted word has); ``first_form_share`` is the share of the final
  display's words that have;
- **pacing**: each chunk's lateness, sent minus due, in ms (p50, p95, max); an item
  whose latest chunk went out more than ``bound_ms`` late is not valid for timing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz.distance import Levenshtein

from ...stats import percentile
from .timeline import Send, StreamLog, Update, displays, final_text

__all__ = ["DEFAULT_PACING_BOUND_MS", "AudioMarks", "Pacing", "Stability", "first_final",
           "first_shown", "last_final_change", "pacing", "partial_lags", "stability",
           "streaming_metrics"]

#: The latest a chunk may go out (ms after it was due) for the item's timings to count.
DEFAULT_PACING_BOUND_MS = 100.0


@dataclass(frozen=True)
class AudioMarks:
    """Audio positions (seconds) the timings are measured from (:mod:`.marks`)."""

    first_audible_s: float
    speech_onset_s: float
    last_audible_s: float


@dataclass(frozen=True)
class Stability:
    flicker_count: int
    words_shown: int
    final_words: int
    first_form_share: float | None

    @property
    def flicker_rate(self) -> float | None:
        return self.flicker_count / self.final_words if self.final_words else None


@dataclass(frozen=True)
class Pacing:
    chunks: int
    p50_ms: float | None
    p95_ms: float | None
    max_ms: float | None
    bound_ms: float

    @property
    def valid(self) -> bool:
        return self.max_ms is None or self.max_ms <= self.bound_ms


def first_shown(updates: Sequence[Update]) -> float | None:
    """When the first word was shown."""
    return next((u.t for u, shown in displays(updates) if shown), None)


def first_final(updates: Sequence[Update]) -> float | None:
    """When the first final update with words arrived."""
    return next((u.t for u in updates if u.final and u.text.strip()), None)


def last_final_change(updates: Sequence[Update]) -> float | None:
    """When the final transcript last changed (``None``: it never had words)."""
    finals: dict[str, str] = {}
    last = None
    for update in updates:
        if not update.final:
            continue
        text = " ".join(update.text.split())
        if finals.get(update.segment, "") != text:
            last = update.t
        finals[update.segment] = text
    return last if final_text(updates) else None


def stability(updates: Sequence[Update]) -> Stability:
    """Revisions of shown words and the share of the final words shown in their final
    form first (see module doc)."""
    previous: list[str] = []
    unchanged: list[bool] = []
    revisions = shown = 0
    for _, words in displays(updates):
        if words == previous:
            continue
        flags: list[bool] = []
        for tag, i1, i2, j1, j2 in Levenshtein.opcodes(previous, words):
            if tag == "equal":
                flags.extend(unchanged[i1:i2])
            elif tag == "insert":
                flags.extend([True] * (j2 - j1))
                shown += j2 - j1
            else:  # replace or delete: words already shown changed or withdrawn
                revisions += i2 - i1
                if tag == "replace":
                    flags.extend([False] * (j2 - j1))
                    shown += j2 - j1
        previous, unchanged = words, flags
    share = sum(unchanged) / len(unchanged) if unchanged else None
    return Stability(revisions, shown, len(previous), share)


def partial_lags(updates: Sequence[Update]) -> list[float]:
    """Seconds between each timed update's arrival and the end of its last word."""
    return [u.t - u.audio_end for u in updates if u.audio_end is not None]


def pacing(sends: Sequence[Send], bound_ms: float = DEFAULT_PACING_BOUND_MS) -> Pacing:
    """Each chunk's lateness summarized (see module doc)."""
    late = [max(0.0, s.late_ms) for s in sends]
    if not late:
        return Pacing(0, None, None, None, bound_ms)
    return Pacing(len(late), percentile(late, 50), percentile(late, 95), max(late), bound_ms)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000.0, 3)


def _since(t: float | None, mark: float) -> float | None:
    return None if t is None else _ms(t - mark)


def streaming_metrics(log: StreamLog, marks: AudioMarks,
                      bound_ms: float = DEFAULT_PACING_BOUND_MS) -> dict[str, Any]:
    """Every per-item figure of a session, JSON-ready (ms rounded to 0.001)."""
    updates = log.updates
    shown = first_shown(updates)
    steady = stability(updates)
    lags = partial_lags(updates)
    pace = pacing(log.sends, bound_ms)
    return {
        "realtime": log.realtime,
        "chunk_ms": round(log.chunk_s * 1000.0, 3),
        "ttfp_audible_ms": _since(shown, marks.first_audible_s),
        "ttfp_onset_ms": _since(shown, marks.speech_onset_s),
        "ttff_ms": _since(first_final(updates), marks.first_audible_s),
        "final_latency_ms": _since(last_final_change(updates), marks.last_audible_s),
        "partial_lag_mean_ms": _ms(math.fsum(lags) / len(lags)) if lags else None,
        "partial_lag_max_ms": _ms(max(lags)) if lags else None,
        "flicker_count": steady.flicker_count,
        "flicker_rate": None if steady.flicker_rate is None else round(steady.flicker_rate, 6),
        "first_form_share": None if steady.first_form_share is None
        else round(steady.first_form_share, 6),
        "words_shown": steady.words_shown,
        "updates": len(updates),
        "messages": log.messages,
        "pacing": {"chunks": pace.chunks, "p50_ms": _round(pace.p50_ms),
                   "p95_ms": _round(pace.p95_ms), "max_ms": _round(pace.max_ms),
                   "bound_ms": pace.bound_ms, "valid": pace.valid},
        "marks": {"first_audible_s": round(marks.first_audible_s, 6),
                  "speech_onset_s": round(marks.speech_onset_s, 6),
                  "last_audible_s": round(marks.last_audible_s, 6)},
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


#: The per-item timing fields, in ms, the reports summarize (p50, p90, p95).
TIMING_FIELDS: Mapping[str, str] = {
    "ttfp_audible_ms": "time to first partial (from first audible sample)",
    "ttfp_onset_ms": "time to first partial (from speech onset)",
    "ttff_ms": "time to first final",
    "final_latency_ms": "final latency (last audible sample to last final)",
    "partial_lag_mean_ms": "partial lag (mean per item)",
}
