"""``speechmatics``: Speechmatics batch jobs: ``POST {base_url}/v2/jobs`` (multipart with
``data_file`` and the JSON ``config``), ``GET /v2/jobs/{id}`` until the job is ``done``
or ``rejected``, then ``GET /v2/jobs/{id}/transcript?format=txt``; ``Authorization:
Bearer``. ``model`` is sent as ``transcription_config.model`` (``standard``,
``enhanced``, ``melia-1``; the spec deprecates ``operating_point``). A job that does not
finish within ``timeout_s`` is deleted (``DELETE /v2/jobs/{id}?force=true``)."""

from __future__ import annotations

import json
import re
from typing import Any

from ...errors import CaptureError
from ..http import encode_multipart
from ..live import CaptureRequest
from .base import Audio, Limits, Provider, ProviderTranscriber, Result
from .client import Session, TooLate

__all__ = ["SPEECHMATICS"]

#: ``transcription_config`` fields accepted in ``[settings.options]``.
_OPTIONS = {"additional_vocab": "objects", "diarization": "string", "enable_entities": "bool",
            "punctuation_overrides": "object", "output_locale": "string",
            "max_delay_mode": "string", "domain": "string"}
_FORMATS = frozenset({".wav", ".mp3", ".aac", ".ogg", ".mpeg", ".amr", ".m4a", ".mp4", ".flac"})


#: The documented job statuses (batch output page, the spec's JobDetails).
_STATUSES = frozenset({"running", "done", "rejected", "deleted", "expired"})
#: The txt transcript's speaker label line under ``diarization = "speaker"``.
_SPEAKER_LINE = re.compile(r"^SPEAKER:[^\n]*$", re.MULTILINE)


def _run(transcriber: ProviderTranscriber, session: Session, request: CaptureRequest,
         audio: Audio) -> Result:
    settings = transcriber.settings
    poll = settings.positive("poll_s", 1.0)
    poll_max = settings.positive("poll_max_s", 10.0)
    # ``model`` (standard, enhanced, ...): ``operating_point`` is deprecated in the spec
    config = {"type": "transcription", "transcription_config": {
        "language": transcriber.language_code(request), "model": transcriber.model,
        **transcriber.options}}
    body, content_type = encode_multipart({"config": json.dumps(config, sort_keys=True)},
                                          "data_file", audio.path.name, audio.content,
                                          audio.content_type)
    key = transcriber.job_key(request, audio)
    job_id = transcriber.journal.unfinished(key)
    facts: dict[str, Any] = {}
    if job_id is not None:  # created by an earlier capture that never saw it finish (PV6)
        facts["resumed_job"] = True
    else:
        session.phase = "uploading the audio with the job"
        before = session.unanswered
        created = session.send("POST", "/v2/jobs", content=body,
                               headers={"Content-Type": content_type})
        if session.unanswered > before:  # a create may have made a job never heard of
            facts["unanswered_creates"] = session.unanswered - before
        job_id = created.body.get("id") if isinstance(created.body, dict) else None
        if not isinstance(job_id, str) or not job_id or "/" in job_id:
            raise CaptureError("Speechmatics answered without a job id")
        transcriber.journal.submitted(key, job_id)
    transcriber.claim_job(job_id, request.case_id)
    job: dict[str, Any] = {}
    try:
        while job.get("status") not in ("done", "rejected", "deleted", "expired"):
            status = job.get("status")
            if status is not None and status not in _STATUSES:
                raise CaptureError(f"Speechmatics job {job_id} has an unknown status "
                                   f"{status!r} (known: {', '.join(sorted(_STATUSES))})")
            session.phase = f"waiting for job {job_id}, status {status or 'not yet known'}"
            session.wait(poll)
            poll = min(poll_max, poll * 1.5)
            reply = session.send("GET", f"/v2/jobs/{job_id}")
            found = reply.body.get("job") if isinstance(reply.body, dict) else None
            job = found if isinstance(found, dict) else {}
    except TooLate as late:
        raise TooLate(f"{late}; {_cancel(transcriber, key, job_id)}") from None
    transcriber.journal.finished(key, job_id)
    named = job.get("data_name")  # the job's data file: this capture's? (PV8)
    if isinstance(named, str) and named != audio.path.name:
        raise CaptureError(f"Speechmatics job {job_id} transcribed {named!r}, not the "
                           f"{audio.path.name!r} this capture sent")
    facts.update({"request_id": job_id, "model": transcriber.model})
    if job["status"] != "done":
        errors = job.get("errors") or []
        reason = "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e)
                           for e in errors) or "no reason given"
        raise CaptureError(transcriber.client.scrubbed(
            f"Speechmatics job {job_id} {job['status']}: {reason}"))
    session.phase = f"reading the transcript of job {job_id}"
    transcript = session.send("GET", f"/v2/jobs/{job_id}/transcript", params={"format": "txt"},
                              text=True)
    seconds = job.get("duration")
    return Result(_text(transcript.body, job_id, transcriber.options), facts,
                  billed_seconds=float(seconds) if isinstance(seconds, (int, float)) else None)


def _text(body: Any, job_id: str, options: dict[str, Any]) -> str | None:
    """The txt transcript: a JSON document there is an error (PV21); under
    ``diarization`` the ``SPEAKER: S1`` label lines are not words of it (PS7)."""
    if not isinstance(body, str):
        return None
    if body.lstrip().startswith(("{", "[")):
        try:
            json.loads(body)
        except ValueError:
            pass
        else:
            raise CaptureError(f"Speechmatics answered JSON for the txt transcript of job "
                               f"{job_id}")
    if options.get("diarization") not in (None, "none"):
        body = " ".join(_SPEAKER_LINE.sub("", body).split("\n"))
    return body


def _cancel(transcriber: ProviderTranscriber, key: str, job_id: str) -> str:
    """Delete a job that did not finish in time (``force=true`` stops a running job),
    on its own short deadline; what became of it."""
    session = transcriber.client.session(f"speechmatics:delete:{job_id}",
                                         min(30.0, transcriber.client.timeout_s))
    try:
        session.send("DELETE", f"/v2/jobs/{job_id}", params={"force": "true"})
    except CaptureError as exc:
        return (f"the job could not be deleted and may be billed ({exc}); the next capture "
                "of this audio polls it rather than paying for another")
    transcriber.journal.finished(key, job_id)
    return "the job was deleted at Speechmatics"


SPEECHMATICS = Provider(
    kind="speechmatics", title="Speechmatics", run=_run,
    default_base_url="https://asr.api.speechmatics.com",
    auth=("Authorization", "Bearer {key}"), options=_OPTIONS,
    settings=frozenset({"poll_s", "poll_max_s"}), default_model="enhanced",
    # the batch limits page: a file in the POST /jobs body must be under 1 GB
    limits={"*": Limits(formats=_FORMATS, max_bytes=1_000_000_000 - 1,
                        max_bytes_text="1 GB upload")})
