"""``azure``: Azure AI Speech fast transcription: ``POST {base_url}/speechtotext/
transcriptions:transcribe?api-version=...``, multipart with ``audio`` and the JSON
``definition`` (``locales`` and the options); the key is ``Ocp-Apim-Subscription-Key``.

``base_url`` is the resource's endpoint; ``region`` (``japaneast``) builds the default
one, ``https://{region}.api.cognitive.microsoft.com``. The language is the full locale.
"""

from __future__ import annotations

import json
from typing import Any

from ...errors import CaptureError
from ..http import encode_multipart
from ..live import CaptureRequest
from .base import Audio, Limits, Provider, ProviderTranscriber, Result
from .client import Session

__all__ = ["AZURE", "DEFAULT_API_VERSION"]

DEFAULT_API_VERSION = "2024-11-15"
#: ``definition`` fields accepted in ``[settings.options]``.
_OPTIONS = {"diarization": "object", "channels": "ints", "profanityFilterMode": "string",
            "phraseList": "object"}


#: The first api-version whose ``TranscribeDefinition`` has ``phraseList``.
PHRASE_LIST_VERSION = "2025-10-15"
_PROFANITY = ("None", "Removed", "Tags", "Masked")


def _check(transcriber: ProviderTranscriber) -> None:
    """Option shapes as ``TranscribeDefinition`` gives them, and one channel only
    (PS5, PS9, PV11): two channels would be two transcripts of one case."""
    options, error = transcriber.options, transcriber.settings.error
    version = transcriber.settings.get("api_version", str, DEFAULT_API_VERSION)
    if "phraseList" in options and version < PHRASE_LIST_VERSION:
        raise error(f"[settings.options] phraseList needs api_version {PHRASE_LIST_VERSION} "
                    f"or later (the {version} schema has no phraseList)")
    phrases = options.get("phraseList")
    if phrases is not None and (set(phrases) - {"phrases", "biasingWeight"} or not (
            isinstance(phrases.get("phrases"), list)
            and all(isinstance(p, str) for p in phrases["phrases"]))):
        raise error("[settings.options] phraseList must be a table with phrases (a list of "
                    f"strings) and optionally biasingWeight, got {phrases!r}")
    diarization = options.get("diarization")
    if diarization is not None and (set(diarization) - {"enabled", "maxSpeakers"} or not
                                    isinstance(diarization.get("enabled", False), bool)):
        raise error("[settings.options] diarization must be a table such as "
                    f"{{ enabled = true, maxSpeakers = 2 }}, got {diarization!r}")
    channels = options.get("channels")
    if channels is not None and len(channels) != 1:
        raise error(f"[settings.options] channels must name one channel, got {channels!r}: "
                    "each channel is a transcript of its own, and a case has one reference")
    mode = options.get("profanityFilterMode")
    if mode is not None and mode not in _PROFANITY:
        raise error(f"[settings.options] profanityFilterMode must be one of "
                    f"{', '.join(_PROFANITY)}, got {mode!r}")


def _locale(locale: str) -> str:
    """A BCP 47 locale in its usual case: ``JA-jp`` -> ``ja-JP``, ``zh-hant-tw`` ->
    ``zh-Hant-TW``."""
    parts = locale.split("-")
    out = [parts[0].lower()]
    for part in parts[1:]:
        out.append(part.title() if len(part) == 4 else part.upper() if len(part) == 2
                   else part.lower())
    return "-".join(out)


def _run(transcriber: ProviderTranscriber, session: Session, request: CaptureRequest,
         audio: Audio) -> Result:
    version = transcriber.settings.get("api_version", str, DEFAULT_API_VERSION)
    definition = {"locales": [transcriber.language_code(request)], **transcriber.options}
    body, content_type = encode_multipart({"definition": json.dumps(definition,
                                                                    sort_keys=True)},
                                          "audio", audio.path.name, audio.content,
                                          audio.content_type)
    reply = session.send("POST", "/speechtotext/transcriptions:transcribe",
                         params={"api-version": version}, content=body,
                         headers={"Content-Type": content_type})
    answer: Any = reply.body if isinstance(reply.body, dict) else {}
    phrases = answer.get("combinedPhrases")
    text = None  # no combinedPhrases: no transcript; an empty list: no speech, ""
    if isinstance(phrases, list):
        channels = {p.get("channel") for p in phrases if isinstance(p, dict)}
        if len(channels) > 1:
            raise CaptureError(f"Azure AI Speech answered {len(channels)} channels "
                               "(combinedPhrases): one transcript per case is scored")
        text = " ".join(p["text"] for p in phrases
                        if isinstance(p, dict) and isinstance(p.get("text"), str))
    millis = answer.get("durationMilliseconds")
    facts = {"request_id": reply.headers.get("apim-request-id"), "api_version": version}
    return Result(text, facts,
                  billed_seconds=millis / 1000 if isinstance(millis, (int, float)) else None)


AZURE = Provider(
    kind="azure", title="Azure AI Speech", run=_run,
    default_base_url="https://{region}.api.cognitive.microsoft.com",
    auth=("Ocp-Apim-Subscription-Key", "{key}"), options=_OPTIONS,
    settings=frozenset({"region", "api_version"}), default_model="fast-transcription",
    language=_locale, check=_check,
    # the 2025-10-15 spec (TranscribeDefinition.audioUrl): "shorter than 2 hours in audio
    # duration and smaller than 250 MB in size"
    limits={"*": Limits(max_seconds=2 * 3600, max_seconds_text="2-hour audio",
                        max_bytes=250 * 1024 * 1024, max_bytes_text="250 MB file")})
