"""Audio: reading and describing files, conformance to a suite's audio specification,
and speech synthesis of case scripts.

Loudness, true peak and resampling need the optional ``audio`` extra (pyloudnorm, soxr);
Japanese synthesis needs the ``synth`` extra (pyopenjtalk-plus), English synthesis the
``espeak-ng`` program. Those are imported only when used.
"""

from .io import AudioError, AudioInfo, audio_info, read_audio, resample, sha256_file
from .spec import (
    AudioSpec,
    Finding,
    check_audio,
    integrated_loudness,
    silence_ms,
    true_peak_dbtp,
)
from .synth import (
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

__all__ = [
    "EN_VOICES",
    "JA_VOICES",
    "AudioError",
    "AudioInfo",
    "AudioSpec",
    "Finding",
    "SynthError",
    "Voice",
    "assign_voices",
    "audio_info",
    "check_audio",
    "integrated_loudness",
    "read_audio",
    "render_speech",
    "resample",
    "sha256_file",
    "silence_ms",
    "synth_case",
    "synth_suite_cases",
    "true_peak_dbtp",
    "voices_for_locale",
]
