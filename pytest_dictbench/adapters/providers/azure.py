"""``azure``: Azure AI Speech fast transcription: ``POST {base_url}/speechtotext/
transcriptions:transcribe?api-version=...``, multipart with ``audio`` and the JSON
``definition`` (``locales`` and the options); the key is ``Ocp-Apim-Subscription-Key``.

``base_url`` is the resource's endpoint; ``region`` (``japaneast``) builds the default
one, ``https://{region}.api.cognitive.microsoft.com``. The language is the full locale.
"""

from __future__ import annotations

import json
from typing import Any

from ..http import encode_multipart
from ..live import CaptureRequest
from .base import Audio, Limits, Provider, ProviderTranscriber, Result
from .client import Session

__all__ = ["AZURE", "DEFAULT_API_VERSION"]

DEFAULT_API_VERSION = "2024-11-15"
#: ``definition`` fields accepted in ``[settings.options]``.
_OPTIONS = {"diarization": "object", "channels": "ints", "profanityFilterMode": "string",
            "phraseList": "object"}


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
    language=lambda locale: locale,
    # documented: audio under 2 hours and 300 MB
    limits={"*": Limits(max_seconds=2 * 3600, max_seconds_text="2-hour audio",
                        max_bytes=300 * 1024 * 1024, max_bytes_text="300 MB file")})
