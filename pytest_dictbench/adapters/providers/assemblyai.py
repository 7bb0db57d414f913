"""``assemblyai``: AssemblyAI's asynchronous transcription: ``POST /v2/upload`` (the raw
audio), ``POST /v2/transcript`` (the job, with ``speech_models``: the list the spec
requires, here the one model), then ``GET /v2/transcript/{id}`` until its ``status`` is
``completed`` or ``error``; the key is the ``Authorization`` header.

Polls wait ``poll_s`` seconds at first, half as long again after each poll, at most
``poll_max_s``; every poll shares the capture's ``timeout_s`` deadline. A status the
API does not document ends the capture at once; a job id another capture of the run
already had, or a transcript of another upload, is an error naming both.
"""

from __future__ import annotations

import warnings
from typing import Any

from ...errors import CaptureError
from ..live import CaptureRequest
from .base import Audio, Limits, Provider, ProviderTranscriber, Result
from .client import Session, TooLate

__all__ = ["ASSEMBLYAI"]

_OPTIONS = {"keyterms_prompt": "strings", "punctuate": "bool", "format_text": "bool",
            "disfluencies": "bool", "speaker_labels": "bool", "language_detection": "bool",
            "filter_profanity": "bool", "speech_threshold": "number"}
#: The documented job statuses (transcript status page).
_STATUSES = frozenset({"queued", "processing", "completed", "error"})
#: The FAQ's limits: 2.2 GB for /v2/upload, 10 hours for /v2/transcript.
_LIMITS = Limits(max_bytes=2_200_000_000, max_bytes_text="2.2 GB upload",
                 max_seconds=10 * 3600, max_seconds_text="10-hour audio")


def _run(transcriber: ProviderTranscriber, session: Session, request: CaptureRequest,
         audio: Audio) -> Result:
    settings = transcriber.settings
    poll = settings.positive("poll_s", 1.0)
    poll_max = settings.positive("poll_max_s", 10.0)
    key = transcriber.job_key(request, audio)
    resumed = transcriber.journal.unfinished(key)
    facts: dict[str, Any] = {}
    url: str | None = None
    if resumed is not None:  # created by an earlier capture that never saw it finish
        job_id, body, facts["resumed_job"] = resumed, {}, True
    else:
        session.phase = "uploading the audio"
        upload = session.send("POST", "/v2/upload", content=audio.content,
                              headers={"Content-Type": "application/octet-stream"})
        url = upload.body.get("upload_url") if isinstance(upload.body, dict) else None
        if not isinstance(url, str):
            raise CaptureError("AssemblyAI upload answered without an upload_url")
        job: dict[str, Any] = {"audio_url": url, "speech_models": [transcriber.model],
                               **transcriber.options}
        language = transcriber.language_code(request)
        if language and "language_detection" not in transcriber.options:
            job["language_code"] = language
        session.phase = "creating the transcript job"
        before = session.unanswered
        created = session.send("POST", "/v2/transcript", json=job)
        if session.unanswered > before:  # a create may have made a job we never heard of
            facts["unanswered_creates"] = session.unanswered - before
        body = created.body if isinstance(created.body, dict) else {}
        job_id = body.get("id")
        if not isinstance(job_id, str) or not job_id or "/" in job_id:
            raise CaptureError("AssemblyAI answered without a transcript id")
        transcriber.journal.submitted(key, job_id)
    transcriber.claim_job(job_id, request.case_id)
    status = body.get("status")
    try:
        while status not in ("completed", "error"):
            if status is not None and status not in _STATUSES:
                raise CaptureError(f"AssemblyAI job {job_id} has an unknown status "
                                   f"{status!r} (known: {', '.join(sorted(_STATUSES))})")
            session.phase = f"waiting for job {job_id}, status {status or 'not yet known'}"
            if status is not None or resumed is None:
                session.wait(poll)
            poll = min(poll_max, poll * 1.5)
            reply = session.send("GET", f"/v2/transcript/{job_id}")
            body = reply.body if isinstance(reply.body, dict) else {}
            status = body.get("status")
    except TooLate as late:
        raise TooLate(f"{late}; the job was left running at AssemblyAI (the next capture "
                      "of this audio polls it rather than paying for another)") from None
    transcriber.journal.finished(key, job_id)
    facts.update({"request_id": job_id, "speech_model_used": body.get("speech_model_used"),
                  "language_code": body.get("language_code")})
    if status == "error":
        raise CaptureError(transcriber.client.scrubbed(
            f"AssemblyAI transcript {job_id} failed: {body.get('error') or 'no reason given'}"))
    sent = body.get("audio_url")
    if url is not None and isinstance(sent, str) and sent != url:
        raise CaptureError(f"AssemblyAI job {job_id} transcribed another upload than the "
                           "one this capture sent")
    seconds = body.get("audio_duration")
    text = body.get("text")
    return Result(text if isinstance(text, str) else None, facts,
                  billed_seconds=float(seconds) if isinstance(seconds, (int, float)) else None)


def _check(transcriber: ProviderTranscriber) -> None:
    """A model name the API has replaced is warned about at load (it is still sent)."""
    if transcriber.model in _RENAMED:
        warnings.warn(f"{transcriber.settings.product.path}: AssemblyAI model "
                      f"{transcriber.model!r} is a deprecated name (speech_models takes "
                      f"{', '.join(_MODELS)}); use {_RENAMED[transcriber.model]!r}",
                      UserWarning, stacklevel=2)


#: The models of ``speech_models`` (the spec's model selection page), and the old
#: ``speech_model`` names that no longer exist, with the model that replaces each.
_MODELS = ("universal-3-pro", "universal-2", "nano")
_RENAMED = {"universal": "universal-2", "best": "universal-2", "slam-1": "universal-3-pro"}


ASSEMBLYAI = Provider(
    kind="assemblyai", title="AssemblyAI", run=_run,
    default_base_url="https://api.assemblyai.com", auth=("Authorization", "{key}"),
    options=_OPTIONS, settings=frozenset({"poll_s", "poll_max_s"}),
    default_model="universal-2", limits={"*": _LIMITS}, check=_check)
