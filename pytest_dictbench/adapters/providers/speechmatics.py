"""``speechmatics``: Speechmatics batch jobs: ``POST {base_url}/v2/jobs`` (multipart with
``data_file`` and the JSON ``config``), ``GET /v2/jobs/{id}`` until the job is ``done``
or ``rejected``, then ``GET /v2/jobs/{id}/transcript?format=txt``; ``Authorization:
Bearer``. ``model`` is the operating point (``standard`` or ``enhanced``)."""

from __future__ import annotations

import json
from typing import Any

from ...errors import CaptureError
from ..http import encode_multipart
from ..live import CaptureRequest
from .base import Audio, Limits, Provider, ProviderTranscriber, Result
from .client import Session

__all__ = ["SPEECHMATICS"]

#: ``transcription_config`` fields accepted in ``[settings.options]``.
_OPTIONS = {"additional_vocab": "objects", "diarization": "string", "enable_entities": "bool",
            "punctuation_overrides": "object", "output_locale": "string",
            "max_delay_mode": "string", "domain": "string"}
_FORMATS = frozenset({".wav", ".mp3", ".aac", ".ogg", ".mpeg", ".amr", ".m4a", ".mp4", ".flac"})


def _run(transcriber: ProviderTranscriber, session: Session, request: CaptureRequest,
         audio: Audio) -> Result:
    settings = transcriber.settings
    poll = settings.positive("poll_s", 1.0)
    poll_max = settings.positive("poll_max_s", 10.0)
    config = {"type": "transcription", "transcription_config": {
        "language": transcriber.language_code(request), "operating_point": transcriber.model,
        **transcriber.options}}
    body, content_type = encode_multipart({"config": json.dumps(config, sort_keys=True)},
                                          "data_file", audio.path.name, audio.content,
                                          audio.content_type)
    created = session.send("POST", "/v2/jobs", content=body,
                           headers={"Content-Type": content_type})
    job_id = created.body.get("id") if isinstance(created.body, dict) else None
    if not isinstance(job_id, str) or not job_id or "/" in job_id:
        raise CaptureError("Speechmatics answered without a job id")
    job: dict[str, Any] = {}
    while job.get("status") not in ("done", "rejected", "deleted", "expired"):
        session.wait(poll)
        poll = min(poll_max, poll * 1.5)
        reply = session.send("GET", f"/v2/jobs/{job_id}")
        found = reply.body.get("job") if isinstance(reply.body, dict) else None
        job = found if isinstance(found, dict) else {}
    facts = {"request_id": job_id, "operating_point": transcriber.model}
    if job["status"] != "done":
        errors = job.get("errors") or []
        reason = "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e)
                           for e in errors) or "no reason given"
        raise CaptureError(transcriber.client.scrubbed(
            f"Speechmatics job {job_id} {job['status']}: {reason}"))
    transcript = session.send("GET", f"/v2/jobs/{job_id}/transcript", params={"format": "txt"},
                              text=True)
    seconds = job.get("duration")
    return Result(transcript.body if isinstance(transcript.body, str) else None, facts,
                  billed_seconds=float(seconds) if isinstance(seconds, (int, float)) else None)


SPEECHMATICS = Provider(
    kind="speechmatics", title="Speechmatics", run=_run,
    default_base_url="https://asr.api.speechmatics.com",
    auth=("Authorization", "Bearer {key}"), options=_OPTIONS,
    settings=frozenset({"poll_s", "poll_max_s"}), default_model="enhanced",
    limits={"*": Limits(formats=_FORMATS)})
