"""``assemblyai``: AssemblyAI's asynchronous transcription: ``POST /v2/upload`` (the raw
audio), ``POST /v2/transcript`` (the job), then ``GET /v2/transcript/{id}`` until its
``status`` is ``completed`` or ``error``; the key is the ``Authorization`` header.

Polls wait ``poll_s`` seconds at first, half as long again after each poll, at most
``poll_max_s``; every poll shares the capture's ``timeout_s`` deadline.
"""

from __future__ import annotations

from typing import Any

from ...errors import CaptureError
from ..live import CaptureRequest
from .base import Audio, Provider, ProviderTranscriber, Result
from .client import Session

__all__ = ["ASSEMBLYAI"]

_OPTIONS = {"keyterms_prompt": "strings", "punctuate": "bool", "format_text": "bool",
            "disfluencies": "bool", "speaker_labels": "bool", "language_detection": "bool",
            "filter_profanity": "bool", "speech_threshold": "number", "multichannel": "bool"}


def _run(transcriber: ProviderTranscriber, session: Session, request: CaptureRequest,
         audio: Audio) -> Result:
    settings = transcriber.settings
    poll = settings.positive("poll_s", 1.0)
    poll_max = settings.positive("poll_max_s", 10.0)
    upload = session.send("POST", "/v2/upload", content=audio.content,
                          headers={"Content-Type": "application/octet-stream"})
    url = upload.body.get("upload_url") if isinstance(upload.body, dict) else None
    if not isinstance(url, str):
        raise CaptureError("AssemblyAI upload answered without an upload_url")
    job: dict[str, Any] = {"audio_url": url, "speech_model": transcriber.model,
                           **transcriber.options}
    language = transcriber.language_code(request)
    if language and "language_detection" not in transcriber.options:
        job["language_code"] = language
    created = session.send("POST", "/v2/transcript", json=job)
    body: Any = created.body if isinstance(created.body, dict) else {}
    job_id = body.get("id")
    if not isinstance(job_id, str) or not job_id or "/" in job_id:
        raise CaptureError("AssemblyAI answered without a transcript id")
    while body.get("status") not in ("completed", "error"):
        session.wait(poll)
        poll = min(poll_max, poll * 1.5)
        reply = session.send("GET", f"/v2/transcript/{job_id}")
        body = reply.body if isinstance(reply.body, dict) else {}
    facts = {"request_id": job_id, "speech_model": body.get("speech_model"),
             "language_code": body.get("language_code")}
    if body["status"] == "error":
        raise CaptureError(transcriber.client.scrubbed(
            f"AssemblyAI transcript {job_id} failed: {body.get('error') or 'no reason given'}"))
    seconds = body.get("audio_duration")
    text = body.get("text")
    return Result(text if isinstance(text, str) else None, facts,
                  billed_seconds=float(seconds) if isinstance(seconds, (int, float)) else None)


ASSEMBLYAI = Provider(
    kind="assemblyai", title="AssemblyAI", run=_run,
    default_base_url="https://api.assemblyai.com", auth=("Authorization", "{key}"),
    options=_OPTIONS, settings=frozenset({"poll_s", "poll_max_s"}), default_model="universal")
