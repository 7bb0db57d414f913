"""Synthesized stimuli for a rig package (``dictbench synth`` on a package manifest).

Each audio fixture's reference is spoken by espeak-ng (a meeting: each reference turn
by its speaker's voice, 400 ms apart), resampled to the package's audio specification
(48 kHz mono 24-bit WAV by default), normalised to its loudness, padded with its
silence, and written beside the references; the fixture's ``audio_path``,
``audio_sha256`` and ``duration_seconds`` and the ``integrity.files`` list are updated.
Synthetic speech stands in for the methodology's recorded native speakers: it makes
the package runnable here, not publishable as a recorded stimulus.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from ..audio.io import resample, sha256_file
from ..audio.synth import Voice, _normalise, _trim, render_speech
from ..files import atomic_replace, atomic_write
from ..suites import inside

__all__ = ["LOCALE_VOICES", "hash_package", "synth_package"]

#: espeak-ng voices per locale; a meeting's speakers take them in turn.
LOCALE_VOICES: Mapping[str, tuple[str, ...]] = {
    "en-US": ("en-us", "en-us+f3", "en-gb-x-rp"),
    "es-ES": ("es",),
    "fr-FR": ("fr-fr",),
}
_GAP_S = 0.4


def _speak(text: str, voice: str, rate: int) -> np.ndarray:
    raw, raw_rate = render_speech(text, Voice(voice, "espeak-ng", voice))
    return _trim(resample(raw, raw_rate, rate))


def _fixture_audio(fixture: Mapping[str, Any], rate: int) -> np.ndarray:
    voices = LOCALE_VOICES[fixture["locale"]]
    if "turns" not in fixture:
        return _speak(fixture["reference"], voices[0], rate)
    speakers = sorted({t["speaker"] for t in fixture["turns"]})
    gap = np.zeros(round(_GAP_S * rate))
    parts = []
    for turn in fixture["turns"]:
        parts += [_speak(turn["text"], voices[speakers.index(turn["speaker"]) % len(voices)],
                         rate), gap]
    return np.concatenate(parts[:-1])


def synth_package(manifest_path: Path, fixtures: Mapping[str, Mapping[str, Any]]) -> int:
    """Render every audio fixture of the package; returns the number of files.

    :param fixtures: per fixture id, its data with ``reference`` text and, for a
        meeting, ``turns`` (the suite's case data).
    """
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    spec = manifest.get("protocol", {}).get("audio_specification", {})
    rate = int(spec.get("sample_rate_hz", 48000))
    silence = np.zeros(round(spec.get("leading_silence_ms", 500) * rate / 1000))
    subtype = {16: "PCM_16", 24: "PCM_24", 32: "PCM_32"}[int(spec.get("bit_depth", 24))]
    digests = {e["path"]: e for e in manifest["integrity"]["files"]}
    written = 0
    for entry in manifest["fixtures"]:
        if entry["workflow"] == "correction":
            continue
        speech = _fixture_audio(fixtures[entry["id"]], rate)
        samples = _normalise(np.concatenate([silence, speech, silence]), rate,
                             float(spec.get("integrated_loudness_lufs", -23)),
                             float(spec.get("true_peak_max_dbtp", -1)))
        rel = f"fixtures/audio/{entry['id']}.wav"
        out = manifest_path.parent / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_replace(out, lambda tmp, s=samples: sf.write(tmp, s, rate, subtype=subtype,
                                                            format="WAV"))
        digest = sha256_file(out)
        entry.update(audio_path=rel, audio_sha256=digest,
                     duration_seconds=round(samples.size / rate, 3))
        digests[rel] = {"path": rel, "sha256": digest}
        written += 1
    manifest["integrity"]["files"] = sorted(digests.values(), key=lambda e: e["path"])
    atomic_write(manifest_path, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return written


def hash_package(manifest_path: Path) -> int:
    """Refresh the sha256 of every ``integrity.files`` entry (and each fixture's
    ``audio_sha256``); returns the number of files."""
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    entries = manifest["integrity"]["files"]
    for entry in entries:
        rel = inside(manifest_path.parent, entry["path"], what="integrity file",
                     where=manifest_path)
        entry["sha256"] = sha256_file(rel)
    digests = {e["path"]: e["sha256"] for e in entries}
    for fixture in manifest["fixtures"]:
        if fixture.get("audio_path") in digests:
            fixture["audio_sha256"] = digests[fixture["audio_path"]]
    atomic_write(manifest_path, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return len(entries)
