"""The voices of speech synthesis and the engines that speak them.

Japanese is spoken by pyopenjtalk (the ``pyopenjtalk-plus`` distribution, which ships its
dictionary and one HTS voice, *mei normal*); English and German by the ``espeak-ng``
program. A :class:`Voice` names an engine, the engine's voice and prosody; :func:`render_speech`
returns the engine's raw samples, which :mod:`.synth` turns into files.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import soundfile as sf

from .io import AudioError

__all__ = ["DE_VOICES", "EN_VOICES", "JA_VOICES", "SynthError", "Voice", "render_speech",
           "voices_for_locale"]

Engine = Literal["openjtalk", "espeak-ng"]

#: Seconds an espeak-ng call may take before it is abandoned.
ESPEAK_TIMEOUT_S = 60.0
#: espeak-ng voice names, optionally with a ``+variant``.
_ESPEAK_VOICE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*(\+[A-Za-z0-9_]+)?$")


class SynthError(AudioError):
    """Speech could not be rendered (engine missing or failing, nothing to say, ...)."""


@dataclass(frozen=True)
class Voice:
    """A named way of speaking: engine, engine voice and prosody settings."""

    #: The name recorded in manifests, unique within a catalogue.
    name: str
    engine: Engine
    #: The engine's voice: an espeak-ng voice (``en-us+f3``); for openjtalk, ``mei_normal``.
    model: str
    #: Speaking rate factor (1.0 = the engine's default).
    speed: float = 1.0
    #: Pitch shift in semitones (openjtalk only).
    half_tone: float = 0.0


#: pyopenjtalk-plus ships a single HTS voice, so the "voices" are prosody variants of it.
JA_VOICES: tuple[Voice, ...] = (
    Voice("ja-mei", "openjtalk", "mei_normal"),
    Voice("ja-mei-fast", "openjtalk", "mei_normal", speed=1.15),
    Voice("ja-mei-low", "openjtalk", "mei_normal", speed=0.95, half_tone=-3.0),
    Voice("ja-mei-high", "openjtalk", "mei_normal", half_tone=3.0),
)

#: espeak-ng voices that a Whisper tiny.en model transcribed without errors here.
EN_VOICES: tuple[Voice, ...] = (
    Voice("en-us", "espeak-ng", "en-us"),
    Voice("en-us+f3", "espeak-ng", "en-us+f3"),
    Voice("en-gb-x-rp", "espeak-ng", "en-gb-x-rp"),
    Voice("en-gb+f2", "espeak-ng", "en-gb+f2"),
)


#: espeak-ng's German voice and three of its variants.
DE_VOICES: tuple[Voice, ...] = (
    Voice("de", "espeak-ng", "de"),
    Voice("de+f3", "espeak-ng", "de+f3"),
    Voice("de+m3", "espeak-ng", "de+m3"),
    Voice("de+f2", "espeak-ng", "de+f2"),
)


def voices_for_locale(locale: str) -> tuple[Voice, ...]:
    """The built-in voices for a BCP 47 locale, chosen by its language subtag."""
    language = locale.split("-", 1)[0].lower()
    catalogue = {"ja": JA_VOICES, "en": EN_VOICES, "de": DE_VOICES}.get(language)
    if catalogue is None:
        raise SynthError(f"no built-in voices for locale {locale!r} (have: ja, en, de)")
    return catalogue


def render_speech(text: str, voice: Voice) -> tuple[np.ndarray, int]:
    """The engine's raw speech for ``text``: float64 mono samples in [-1, 1] and rate."""
    if not text.strip():
        raise SynthError("nothing to say: the text is empty")
    if voice.engine == "openjtalk":
        return _render_openjtalk(text, voice)
    if voice.engine == "espeak-ng":
        return _render_espeak(text, voice)
    raise SynthError(f"unknown speech engine {voice.engine!r} in voice {voice.name!r}")


def _render_openjtalk(text: str, voice: Voice) -> tuple[np.ndarray, int]:
    try:
        import pyopenjtalk
    except ImportError as exc:
        raise SynthError(
            "Japanese synthesis needs 'pyopenjtalk-plus' (it ships its dictionary; plain "
            "pyopenjtalk would download one): pip install 'pytest-dictbench[synth]'"
        ) from exc
    if voice.model != "mei_normal":
        raise SynthError(f"pyopenjtalk has only the 'mei_normal' voice, not {voice.model!r}")
    samples, rate = pyopenjtalk.tts(text, speed=voice.speed, half_tone=voice.half_tone)
    # pyopenjtalk returns 16-bit-scaled floats.
    return np.asarray(samples, dtype=np.float64) / 32768.0, int(rate)


def _render_espeak(text: str, voice: Voice) -> tuple[np.ndarray, int]:
    program = shutil.which("espeak-ng")
    if program is None:
        raise SynthError("English synthesis needs the 'espeak-ng' program on PATH")
    _check_espeak_voice(program, voice.model)
    words_per_minute = round(175 * voice.speed)
    with tempfile.TemporaryDirectory(prefix="dictbench-espeak-") as tmp:
        wav = Path(tmp) / "speech.wav"
        # The text goes through stdin, never argv: it cannot be taken for an option.
        argv = [program, "-v", voice.model, "-s", str(words_per_minute), "-b", "1"]
        argv += ["-w", str(wav), "--stdin"]
        try:
            done = subprocess.run(
                argv,
                input=text.encode("utf-8"),
                capture_output=True,
                timeout=ESPEAK_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise SynthError(f"espeak-ng took longer than {ESPEAK_TIMEOUT_S:g} s") from exc
        message = done.stderr.decode("utf-8", "replace").strip()
        if done.returncode != 0 or not wav.exists():
            raise SynthError(
                f"espeak-ng failed (exit {done.returncode}) for voice {voice.model!r}: "
                f"{message or 'no output file'}"
            )
        samples, rate = sf.read(str(wav), dtype="float64")
    if samples.ndim > 1:
        samples = samples.mean(axis=1)
    return samples, int(rate)


def _check_espeak_voice(program: str, model: str) -> None:
    """Reject unknown voices: espeak-ng itself falls back silently (``no-such`` speaks
    Norwegian, an unknown ``+variant`` is ignored)."""
    if not _ESPEAK_VOICE.match(model):
        raise SynthError(f"not an espeak-ng voice name: {model!r}")
    languages, variants = _espeak_catalogue(program)
    base, _, variant = model.partition("+")
    if base.lower() not in languages:
        raise SynthError(f"espeak-ng has no voice {base!r} (see `espeak-ng --voices`)")
    if variant and variant.lower() not in variants:
        raise SynthError(f"espeak-ng has no variant {variant!r} (see `espeak-ng --voices=variant`)")


@functools.lru_cache(maxsize=4)
def _espeak_catalogue(program: str) -> tuple[frozenset[str], frozenset[str]]:
    """Language codes and variant names that this espeak-ng installation knows."""

    def listing(option: str) -> list[list[str]]:
        done = subprocess.run(
            [program, option], capture_output=True, timeout=ESPEAK_TIMEOUT_S, check=False
        )
        lines = done.stdout.decode("utf-8", "replace").splitlines()[1:]  # skip the header
        return [line.split() for line in lines if line.strip()]

    languages = frozenset(row[1].lower() for row in listing("--voices") if len(row) > 1)
    variants = frozenset(
        token[3:].lower()
        for row in listing("--voices=variant")
        for token in row
        if token.startswith("!v/")
    )
    return languages, variants
