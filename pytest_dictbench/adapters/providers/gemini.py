"""``gemini``: the Gemini API's ``generateContent`` with the audio inline:
``POST {base_url}/v1beta/models/{model}:generateContent``, the key in ``x-goog-api-key``.

The instruction (``prompt``, with ``{context}`` and ``{language}``) goes first, then the
audio as ``inline_data``. ``thinking_budget`` (tokens; 0 turns thinking off) or
``thinking_level`` (``low``, ``high``...) set ``generationConfig.thinkingConfig``, so
"thinking on" and "thinking off" are two products. Token usage, the model version and
the response id go to the capture record.

Audio above the inline limit (or all audio, with ``upload = "always"``) goes through the
Files API first: a resumable upload (``POST {base_url}/upload/v1beta/files``, then the
bytes to the upload URL it hands out, which must be on the same host), a wait until the
file is ``ACTIVE``, then ``file_data`` in place of ``inline_data``. The uploaded file
is deleted (``DELETE {base_url}/v1beta/files/...``) once the answer is in, and when the
capture fails after the upload, so the audio is not kept on the service for the 48
hours it would otherwise stay; the capture record says whether the deletion worked
(``file_deleted``), and a failed capture's error says when it did not.
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

from ...errors import CaptureError
from ..live import CaptureRequest
from .base import Audio, Limits, Provider, ProviderTranscriber, Result
from .client import Session

__all__ = ["DEFAULT_PROMPT", "GEMINI"]

#: The instruction when a product gives none.
DEFAULT_PROMPT = ("Transcribe this recording word for word in its language ({language}). "
                  "Answer with the transcript only.\nContext: {context}")
_OPTIONS = {"temperature": "number", "seed": "int", "max_output_tokens": "int"}
_CONFIG_NAMES = {"temperature": "temperature", "seed": "seed",
                 "max_output_tokens": "maxOutputTokens"}
#: Inline data: the Files API page asks for an upload above a 100 MB request; base64
#: grows the audio by 4/3, so audio above 70 MB is uploaded.
INLINE_MAX_BYTES = 70 * 1024 * 1024
#: Files API uploads and audio length.
_LIMITS = Limits(max_bytes=2 * 1024 ** 3, max_bytes_text="2 GB Files API",
                 max_seconds=9.5 * 3600, max_seconds_text="9.5-hour audio")


#: ``thinking_level`` values the thinking guide documents.
THINKING_LEVELS = ("minimal", "low", "medium", "high")
#: Models without thinking: a thinking setting for them is refused.
_NO_THINKING = ("gemini-2.0-", "gemini-1.5-", "gemini-1.0-")


def _check(transcriber: ProviderTranscriber) -> None:
    """The thinking settings and ``upload``, at load (PV14): a bad value is a product
    error before any item runs, not an error of every item."""
    settings = transcriber.settings
    _config(transcriber)
    budget = settings.get("thinking_budget", int, None)
    level = settings.get("thinking_level", str, None)
    if budget is not None and budget < -1:
        raise settings.error(f"[settings] thinking_budget must be -1 (dynamic), 0 (off) or "
                             f"a number of tokens, got {budget}")
    if level is not None and level not in THINKING_LEVELS:
        raise settings.error(f"[settings] thinking_level must be one of "
                             f"{', '.join(THINKING_LEVELS)}, got {level!r}")
    if (budget is not None or level is not None) and \
            str(transcriber.model).startswith(_NO_THINKING):
        raise settings.error(f"[settings] {transcriber.model} does not think: drop "
                             "thinking_budget and thinking_level")
    upload = settings.get("upload", str, "auto")
    if upload not in ("auto", "always"):
        raise settings.error(f"[settings] upload must be 'auto' or 'always', got {upload!r}")


def _config(transcriber: ProviderTranscriber) -> dict[str, Any]:
    settings = transcriber.settings
    config: dict[str, Any] = {_CONFIG_NAMES[k]: v for k, v in
                              sorted(transcriber.options.items())}
    budget = settings.get("thinking_budget", int, None)
    level = settings.get("thinking_level", str, None)
    if budget is not None and level is not None:
        raise settings.error("[settings] give thinking_budget or thinking_level, not both")
    if budget is not None:
        config["thinkingConfig"] = {"thinkingBudget": budget}
    elif level is not None:
        config["thinkingConfig"] = {"thinkingLevel": level}
    return config


def _run(transcriber: ProviderTranscriber, session: Session, request: CaptureRequest,
         audio: Audio) -> Result:
    template = transcriber.settings.get("prompt", str, DEFAULT_PROMPT)
    instruction = request.fill(template).replace("{language}",
                                                 transcriber.language_code(request))
    upload = transcriber.settings.get("upload", str, "auto")  # checked at load
    facts: dict[str, Any] = {}
    if upload != "always" and len(audio.content) <= INLINE_MAX_BYTES:
        return _generate(transcriber, session, instruction, {"inline_data": {
            "mime_type": audio.content_type,
            "data": base64.b64encode(audio.content).decode("ascii")}}, facts)
    uploaded: list[str] = []  # the file's name, once the service has created it
    try:
        uri = _upload(transcriber, session, audio, uploaded)
        facts["file_uri"] = uri
        result = _generate(transcriber, session, instruction, {"file_data": {
            "mime_type": audio.content_type, "file_uri": uri}}, facts)
    except BaseException as exc:
        problem = _delete(transcriber, uploaded)
        if problem and isinstance(exc, CaptureError):
            raise CaptureError(f"{exc}; {problem}") from None
        raise
    problem = _delete(transcriber, uploaded)
    facts["file_deleted"] = problem is None
    if problem:
        facts["file_delete_error"] = problem
    return result


def _generate(transcriber: ProviderTranscriber, session: Session, instruction: str,
              part: dict[str, Any], facts: dict[str, Any]) -> Result:
    """The ``generateContent`` call with the instruction and the audio ``part``."""
    payload: dict[str, Any] = {"contents": [{"role": "user", "parts": [
        {"text": instruction}, part]}]}
    config = _config(transcriber)
    if config:
        payload["generationConfig"] = config
    path = f"/v1beta/models/{quote(str(transcriber.model), safe='.-_')}:generateContent"
    reply = session.send("POST", path, json=payload)
    body: Any = reply.body if isinstance(reply.body, dict) else {}
    usage = body.get("usageMetadata") if isinstance(body.get("usageMetadata"), dict) else {}
    facts.update({"request_id": body.get("responseId"),
                  "model_version": body.get("modelVersion"), "usage": usage})
    tokens = _tokens(usage)
    if usage and not tokens:  # an unreadable usage makes the cost unknown, not the item
        facts["usage_problem"] = "usageMetadata has token counts that are not numbers"
    return Result(_transcript(body, facts), facts, tokens=tokens)


def _transcript(body: dict[str, Any], facts: dict[str, Any]) -> str:
    """The one candidate's text (thought parts left out). Not a transcript, with the
    reason as an error (PS8, PS15, PV9): a blocked prompt, no candidate or several, a
    finish other than ``STOP`` (``MAX_TOKENS`` cuts the transcript off), an answer of
    another shape."""
    feedback = body.get("promptFeedback")
    blocked = feedback.get("blockReason") if isinstance(feedback, dict) else None
    candidates = body.get("candidates")
    if blocked and not candidates:
        raise CaptureError(f"Gemini blocked the request (promptFeedback.blockReason "
                           f"{blocked})")
    if not isinstance(candidates, list) or not candidates:
        raise CaptureError("Gemini API answered without candidates")
    if len(candidates) > 1:
        raise CaptureError(f"Gemini API answered {len(candidates)} candidates where one "
                           "was asked for")
    first = candidates[0]
    if not isinstance(first, dict):
        raise CaptureError("Gemini API answered a candidate that is not an object "
                           "(candidates[0])")
    reason = first.get("finishReason")
    facts["finish_reason"] = reason
    content = first.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    if (content is not None and not isinstance(content, dict)) or \
            (parts is not None and not isinstance(parts, list)):
        raise CaptureError("Gemini API answered candidates[0].content in another shape "
                           "(an object with a list of parts was expected)")
    if reason != "STOP":
        cut = " (the output token limit: the transcript is cut off; thinking counts " \
              "against max_output_tokens)" if reason == "MAX_TOKENS" else ""
        raise CaptureError(f"Gemini API stopped with finishReason {reason}{cut}"
                           if reason else "Gemini API answered without a finishReason")
    texts = [p["text"] for p in parts or [] if isinstance(p, dict)
             and isinstance(p.get("text"), str) and not p.get("thought")]
    return "".join(texts)


def _upload(transcriber: ProviderTranscriber, session: Session, audio: Audio,
            uploaded: list[str]) -> str:
    """Upload the audio with the Files API; its ``file_uri`` once the file is ACTIVE.
    The file's name is appended to ``uploaded`` as soon as the service names it."""
    settings = transcriber.settings
    poll, poll_max = settings.positive("poll_s", 1.0), settings.positive("poll_max_s", 10.0)
    start = session.send("POST", "/upload/v1beta/files", json={
        "file": {"display_name": audio.path.name}}, headers={
        "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
        "X-Goog-Upload-Header-Content-Length": str(len(audio.content)),
        "X-Goog-Upload-Header-Content-Type": audio.content_type})
    target = start.headers.get("x-goog-upload-url")
    if not target:
        raise CaptureError("Gemini Files API answered without an upload URL")
    done = session.send("POST", session.same_origin(target), content=audio.content, headers={
        "X-Goog-Upload-Offset": "0", "X-Goog-Upload-Command": "upload, finalize"})
    file = done.body.get("file") if isinstance(done.body, dict) else None
    name = file.get("name") if isinstance(file, dict) else None
    if not isinstance(name, str) or not name.startswith("files/") or ".." in name:
        raise CaptureError("Gemini Files API answered without a file name")
    uploaded.append(name)
    while file.get("state") not in ("ACTIVE", "FAILED"):
        session.wait(poll)
        poll = min(poll_max, poll * 1.5)
        found = session.send("GET", f"/v1beta/{quote(name, safe='/')}").body
        file = found if isinstance(found, dict) else {}
    if file["state"] == "FAILED":
        raise CaptureError(transcriber.client.scrubbed(
            f"Gemini could not process the uploaded audio ({name}): "
            f"{(file.get('error') or {}).get('message', 'no reason given')}"))
    uri = file.get("uri")
    if not isinstance(uri, str):
        raise CaptureError(f"Gemini file {name} has no uri")
    return uri


#: Seconds the deletion of an uploaded file may take (its own deadline: it also runs
#: after a capture that ran out of time).
DELETE_TIMEOUT_S = 30.0


def _delete(transcriber: ProviderTranscriber, uploaded: list[str]) -> str | None:
    """Delete the uploaded file named in ``uploaded`` (if any); why it failed, or None."""
    if not uploaded:
        return None
    name = uploaded[0]
    session = transcriber.client.session(f"gemini:delete:{name}",
                                         min(DELETE_TIMEOUT_S, transcriber.client.timeout_s))
    try:
        session.send("DELETE", f"/v1beta/{quote(name, safe='/')}")
    except CaptureError as exc:
        return f"the uploaded file {name} could not be deleted: {exc}"
    return None


def _tokens(usage: dict[str, Any]) -> dict[str, int]:
    """Billed tokens by kind: prompt audio and text, and output (thinking included);
    empty when the usage is missing or its counts are not whole numbers."""
    if not usage:
        return {}
    try:
        details = usage.get("promptTokensDetails") or []
        by_modality = {d.get("modality"): _count(d.get("tokenCount", 0))
                       for d in details if isinstance(d, dict)}
        prompt = _count(usage.get("promptTokenCount", 0))
        audio = by_modality.get("AUDIO", 0)
        return {"input_audio": audio, "input_text": prompt - audio,
                "output": _count(usage.get("candidatesTokenCount", 0))
                + _count(usage.get("thoughtsTokenCount", 0))}
    except (TypeError, ValueError, AttributeError):
        return {}


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(value)
    return value


GEMINI = Provider(
    kind="gemini", title="Gemini API", run=_run,
    default_base_url="https://generativelanguage.googleapis.com",
    auth=("x-goog-api-key", "{key}"), options=_OPTIONS,
    settings=frozenset({"prompt", "thinking_budget", "thinking_level", "upload", "poll_s",
                        "poll_max_s"}),
    default_model="gemini-2.5-flash", limits={"*": _LIMITS}, check=_check)
