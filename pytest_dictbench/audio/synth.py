"""Render case scripts to speech files, deterministically.

The voices and their engines are in :mod:`.voices` (re-exported here). Every file goes
through the same chain: engine -> mono -> resample (soxr) -> trim the engine's
own silence -> pad exact digital silence -> normalise integrated loudness (pyloudnorm) ->
16-bit quantisation -> FLAC with the suite's canary in the ``comment`` tag. The same
inputs give byte-identical files on the same machine (see ``docs/audio.md``).
"""

from __future__ import annotations

import random
import shutil
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import soundfile as sf

from ..files import atomic_replace
from .io import AudioError, resample, sha256_file
from .spec import integrated_loudness, silence_ms, true_peak_dbtp
from .staging import commit_staged, new_staging
from .voices import EN_VOICES, JA_VOICES, SynthError, Voice, render_speech, voices_for_locale

__all__ = [
    "EN_VOICES",
    "JA_VOICES",
    "SynthError",
    "Voice",
    "assign_voices",
    "render_speech",
    "synth_case",
    "synth_suite_cases",
    "voices_for_locale",
]

V = TypeVar("V")

#: Engine output quieter than this, relative to its peak, is trimmed from both ends.
TRIM_BELOW_PEAK_DB = -50.0


####################################################################################
# Voice assignment
####################################################################################


def assign_voices(cases: Sequence[Any], voices: Sequence[V], seed: int) -> dict[str, V]:
    """Spread voices evenly over the cases of every ``(source, genre)`` stratum.

    The strata are visited in sorted order and each stratum's cases in a seeded shuffle
    of their ids; voices are dealt round-robin from a seeded starting voice, carrying on
    from one stratum to the next. Each stratum's voice counts therefore differ by at
    most one, and so do the counts over all cases. The result depends only on the case
    ids, their strata, the voices and the seed (not on the order of ``cases``).
    """
    if not voices:
        raise SynthError("assign_voices needs at least one voice")
    strata: dict[tuple[str, str], list[str]] = defaultdict(list)
    for case in cases:
        strata[(_field(case, "source"), _field(case, "genre"))].append(_case_id(case))
    rng = random.Random(f"dictbench-voices:{seed}")
    position = rng.randrange(len(voices))
    assignment: dict[str, V] = {}
    for key in sorted(strata):
        ids = sorted(strata[key])
        rng.shuffle(ids)
        for case_id in ids:
            if case_id in assignment:
                raise SynthError(f"case id {case_id!r} appears twice")
            assignment[case_id] = voices[position % len(voices)]
            position += 1
    return assignment


####################################################################################
# Rendering
####################################################################################


def synth_case(
    text: str,
    locale: str,
    voice: Voice | str,
    out_path: Path | str,
    *,
    rate: int = 16000,
    target_lufs: float = -23.0,
    silence_ms: float = 300.0,
    canary: str,
    true_peak_max_dbtp: float | None = -1.0,
) -> dict[str, Any]:
    """Speak ``text`` into a 16-bit mono FLAC file at ``out_path``.

    Args:
        voice: a :class:`Voice`, or the name of one of ``voices_for_locale(locale)``.
        rate: sample rate of the file.
        target_lufs: integrated loudness after normalisation.
        silence_ms: digital silence added at each end, after the engine's own is trimmed.
        canary: written to the FLAC ``comment`` tag.
        true_peak_max_dbtp: refuse (raise) when normalising would push the true peak
            above this; ``None`` only guards against clipping.

    Returns:
        ``{"path", "sha256", "voice", "duration"}`` of the written file.
    """
    chosen = _resolve_voice(voice, locale)
    raw, raw_rate = render_speech(text, chosen)
    samples = _trim(resample(raw, raw_rate, rate))
    if samples.size == 0:
        raise SynthError(f"voice {chosen.name!r} produced only silence for {text[:40]!r}")
    pad = np.zeros(round(silence_ms * rate / 1000.0))
    samples = np.concatenate([pad, samples, pad])
    samples = _normalise(samples, rate, target_lufs, true_peak_max_dbtp)
    samples = _cut_excess_silence(samples, rate, silence_ms)
    pcm = np.clip(np.round(samples * 32768.0), -32768, 32767).astype(np.int16)
    out = Path(out_path)
    _write_flac(out, pcm, rate, canary)
    return {
        "path": str(out),
        "sha256": sha256_file(out),
        "voice": chosen.name,
        "duration": round(pcm.size / rate, 4),
    }


def synth_suite_cases(
    cases: Sequence[Any],
    locale: str,
    out_dir: Path | str,
    *,
    canary: str,
    voices: Sequence[Voice] | None = None,
    seed: int = 0,
    text_of: Callable[[Any], str] | None = None,
    rate: int = 16000,
    target_lufs: float = -23.0,
    silence_ms: float = 300.0,
    staging: Path | None = None,
) -> list[dict[str, Any]]:
    """Render every case to ``out_dir/<case id>.flac``, voices spread by :func:`assign_voices`.

    ``text_of`` picks what to say (default: the case's ``script``, else ``reference``).
    Every case is rendered aside first, so a case that fails leaves every file as it
    was; the files are then moved in as one commit (:mod:`.staging`). With ``staging``
    (from :func:`~.staging.new_staging`) the files are only rendered there, for the
    caller to commit with its other files.

    Returns:
        One ``{"case_id", "path", "sha256", "voice", "duration"}`` per case, in case order.
    """
    catalogue = tuple(voices) if voices is not None else voices_for_locale(locale)
    assignment = assign_voices(cases, catalogue, seed)
    directory = Path(out_dir)
    speak = text_of or _script_of
    results: list[dict[str, Any]] = []
    aside = staging if staging is not None else new_staging(directory)
    try:
        for case in cases:
            case_id = _case_id(case)
            try:
                entry = synth_case(
                    speak(case),
                    locale,
                    assignment[case_id],
                    aside / f"{case_id}.flac",
                    rate=rate,
                    target_lufs=target_lufs,
                    silence_ms=silence_ms,
                    canary=canary,
                )
            except AudioError as exc:
                raise SynthError(f"case {case_id}: {exc}; no file was changed") from exc
            results.append({"case_id": case_id, **entry,
                            "path": str(directory / f"{case_id}.flac")})
    except BaseException:
        shutil.rmtree(aside, ignore_errors=True)
        raise
    if staging is None:
        commit_staged(aside, [(f"{r['case_id']}.flac", Path(r["path"])) for r in results])
    return results


####################################################################################
# Private helpers
####################################################################################


def _trim(samples: np.ndarray) -> np.ndarray:
    """Cut the engine's own leading and trailing near-silence (relative to its peak)."""
    peak = float(np.max(np.abs(samples))) if samples.size else 0.0
    if peak == 0.0:
        return samples[:0]
    loud = np.flatnonzero(np.abs(samples) > peak * 10.0 ** (TRIM_BELOW_PEAK_DB / 20.0))
    return samples[loud[0] : loud[-1] + 1]


def _cut_excess_silence(samples: np.ndarray, rate: int, silence: float) -> np.ndarray:
    """Cut what the engine left quieter than the silence threshold beyond ``silence`` ms
    at either end, as the specification check measures it (after normalisation)."""
    lead, trail = silence_ms(samples, rate)
    start = max(0, round((lead - silence) * rate / 1000.0))
    end = max(0, round((trail - silence) * rate / 1000.0))
    return samples[start: samples.size - end]


def _normalise(
    samples: np.ndarray, rate: int, target_lufs: float, true_peak_max_dbtp: float | None
) -> np.ndarray:
    """Scale to ``target_lufs``; refuse when that would clip or exceed the peak ceiling."""
    loudness = integrated_loudness(samples, rate)
    if not np.isfinite(loudness):
        raise SynthError("the speech is too quiet to measure its loudness")
    scaled = samples * 10.0 ** ((target_lufs - loudness) / 20.0)
    ceiling = 0.0 if true_peak_max_dbtp is None else min(0.0, true_peak_max_dbtp)
    peak = true_peak_dbtp(scaled, rate)
    if peak > ceiling:
        raise SynthError(
            f"normalising to {target_lufs:g} LUFS puts the true peak at {peak:.2f} dBTP, "
            f"above the ceiling {ceiling:g} dBTP; choose a lower target loudness"
        )
    return scaled


def _write_flac(out: Path, pcm: np.ndarray, rate: int, canary: str) -> None:
    """Write 16-bit FLAC with only a ``comment`` tag (no date), atomically."""

    def write(tmp: Path) -> None:
        with sf.SoundFile(tmp, "w", samplerate=rate, channels=1, subtype="PCM_16",
                          format="FLAC") as sound:
            sound.comment = canary
            sound.write(pcm)

    try:
        atomic_replace(out, write)
    except (sf.SoundFileError, OSError) as exc:
        raise SynthError(f"cannot write FLAC: {exc}", path=out) from exc


def _resolve_voice(voice: Voice | str, locale: str) -> Voice:
    if isinstance(voice, Voice):
        return voice
    for known in voices_for_locale(locale):
        if known.name == voice:
            return known
    names = ", ".join(v.name for v in voices_for_locale(locale))
    raise SynthError(f"unknown voice {voice!r} for locale {locale!r} (known: {names})")


def _case_id(case: Any) -> str:
    return str(case.id if hasattr(case, "id") else case["id"])


def _field(case: Any, name: str) -> str:
    """A case field as a sort-safe string ("" when absent)."""
    data: Mapping[str, Any] = case.data if hasattr(case, "data") else case
    value = data.get(name)
    return "" if value is None else str(value)


def _script_of(case: Any) -> str:
    data: Mapping[str, Any] = case.data if hasattr(case, "data") else case
    text = data.get("script") or data.get("reference")
    if not isinstance(text, str) or not text.strip():
        raise SynthError(f"case {_case_id(case)} has no 'script' or 'reference' to speak")
    return text
