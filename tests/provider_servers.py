"""Loopback servers for the cloud provider adapter tests, one fake per provider.

Each fake speaks its provider's documented wire format (paths, auth header form, body
shape, job polling, error bodies), records what the adapter sent, answers 401 to a
wrong key, and notes any request that carries the key anywhere but its header
(``leaks``). ``faults`` are replies given, in order, before the normal ones.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from http_stt_server import DROP, LoopbackServer, Recorded, Reply

__all__ = ["DROP", "KEY", "KEY_ENV", "AssemblyAIFake", "AzureFake", "DeepgramFake",
           "ElevenLabsFake", "Fake", "GeminiFake", "OpenAIFake", "ProviderServer", "Request",
           "SpeechmaticsFake", "provider_toml"]

KEY = "prov-test-key-0123456789-DO-NOT-LEAK"
KEY_ENV = "DICTBENCH_TEST_PROVIDER_KEY"


@dataclass
class Request(Recorded):
    """A recorded request with its query (``?a=1&a=2`` -> ``[("a", "1"), ("a", "2")]``)."""

    query: list[tuple[str, str]] = field(default_factory=list)

    @property
    def route(self) -> str:
        return urlsplit(self.path).path


class Fake:
    """The common part: auth check, leak check, faults, recording."""

    #: The header that must carry the key, and its value.
    auth: tuple[str, str] = ("Authorization", f"Bearer {KEY}")

    def __init__(self) -> None:
        self.faults: list[Reply] = []
        self.requests: list[Request] = []
        self.leaks: list[str] = []
        self.url = ""
        self.text = "hello from the provider"

    def __call__(self, request: Request) -> Reply:
        self.requests.append(request)
        header, value = self.auth
        others = {k: v for k, v in request.headers.items() if k.lower() != header.lower()}
        if KEY in request.path or KEY.encode() in request.body or KEY in json.dumps(others):
            self.leaks.append(request.path)
        if request.headers.get(header) != value:
            return self.refused(request.headers.get(header))
        if self.faults:
            return self.faults.pop(0)
        return self.answer(request)

    def refused(self, sent: str | None) -> Reply:
        return Reply(401, {"error": {"message": f"Incorrect API key provided: {sent}"}})

    def answer(self, request: Request) -> Reply:
        raise NotImplementedError


class OpenAIFake(Fake):
    def answer(self, request: Request) -> Reply:
        assert request.route == "/v1/audio/transcriptions"
        assert "file" in request.files
        return Reply(body={"text": f"  {self.text}  ",
                           "usage": {"type": "duration", "seconds": 1}},
                     headers={"x-request-id": "req_openai_1"})


class DeepgramFake(Fake):
    auth = ("Authorization", f"Token {KEY}")

    def refused(self, sent: str | None) -> Reply:
        return Reply(401, {"err_code": "INVALID_AUTH", "err_msg": f"Invalid credentials {sent}",
                           "request_id": "r-401"})

    def answer(self, request: Request) -> Reply:
        assert request.route == "/v1/listen" and request.method == "POST"
        assert request.headers["Content-Type"].startswith("audio/")
        assert request.body[:4] in (b"RIFF", b"fLaC")
        return Reply(body={
            "metadata": {"request_id": "dg-req-1", "duration": 0.5, "channels": 1,
                         "model_info": {"u1": {"name": "general-nova-3", "version": "2025-01",
                                               "arch": "nova-3"}}},
            "results": {"channels": [{"alternatives": [{"transcript": self.text,
                                                        "confidence": 0.9}]}]}})


class GeminiFake(Fake):
    auth = ("x-goog-api-key", KEY)

    def refused(self, sent: str | None) -> Reply:
        return Reply(403, {"error": {"code": 403, "status": "PERMISSION_DENIED",
                                     "message": f"API key not valid: {sent}"}})

    #: Files API: the upload URL's origin (default: this server) and the file's states.
    upload_origin: str | None = None
    file_states = ("PROCESSING", "ACTIVE")

    def __init__(self) -> None:
        super().__init__()
        #: Names of the uploaded files the adapter deleted.
        self.deleted: list[str] = []

    def answer(self, request: Request) -> Reply:
        if request.route == "/upload/v1beta/files" and not request.query:
            assert request.headers["X-Goog-Upload-Protocol"] == "resumable"
            assert request.headers["X-Goog-Upload-Command"] == "start"
            self.uploaded = int(request.headers["X-Goog-Upload-Header-Content-Length"])
            self.states = list(self.file_states)
            origin = self.upload_origin or self.url
            return Reply(body={}, headers={
                "X-Goog-Upload-URL": f"{origin}/upload/v1beta/files?upload_id=u1"})
        if request.route == "/upload/v1beta/files":
            assert request.headers["X-Goog-Upload-Command"] == "upload, finalize"
            assert len(request.body) == self.uploaded and request.body[:4] == b"RIFF"
            return Reply(body={"file": self._file()})
        if request.method == "GET" and request.route == "/v1beta/files/abc":
            return Reply(body=self._file())
        if request.method == "DELETE" and request.route == "/v1beta/files/abc":
            self.deleted.append("files/abc")
            return Reply(body={})
        assert request.route.startswith("/v1beta/models/")
        assert request.route.endswith(":generateContent")
        parts = request.json["contents"][0]["parts"]
        if "file_data" in parts[1]:
            assert parts[1]["file_data"]["file_uri"] == f"{self.url}/v1beta/files/abc"
        else:
            assert base64.b64decode(parts[1]["inline_data"]["data"])[:4] == b"RIFF"
        return Reply(body={
            "candidates": [{"content": {"role": "model", "parts": [
                {"text": "thinking...", "thought": True}, {"text": self.text}]},
                "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 6,
                              "thoughtsTokenCount": 10, "totalTokenCount": 56,
                              "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 24},
                                                      {"modality": "AUDIO",
                                                       "tokenCount": 16}]},
            "modelVersion": "gemini-2.5-flash-001", "responseId": "gem-resp-1"})


    def _file(self) -> dict[str, Any]:
        state = self.states.pop(0) if len(self.states) > 1 else self.states[0]
        found = {"name": "files/abc", "uri": f"{self.url}/v1beta/files/abc",
                 "mimeType": "audio/wav", "state": state}
        if state == "FAILED":
            found["error"] = {"message": "audio could not be decoded"}
        return found


class ElevenLabsFake(Fake):
    """``POST /v1/speech-to-text`` as ElevenLabs' API reference gives it: multipart with
    ``model_id`` (required) and ``file``; the answer a transcript with its detected
    language (ISO 639-3), its words (``word``, ``spacing``, ``audio_event``) and its
    ``transcription_id``; a bad field is a 422 with ``detail`` a list of problems."""

    auth = ("xi-api-key", KEY)

    def refused(self, sent: str | None) -> Reply:
        return Reply(401, {"detail": {"status": "invalid_api_key",
                                      "message": f"Invalid API key {sent}"}})

    def answer(self, request: Request) -> Reply:
        assert request.route == "/v1/speech-to-text" and request.method == "POST"
        assert "file" in request.files
        if "model_id" not in request.fields:
            return Reply(422, {"detail": [{"loc": ["body", "model_id"],
                                           "msg": "Field required", "type": "missing"}]})
        words = [{"text": w, "start": 0.1 * i, "end": 0.1 * i + 0.1,
                  "type": "spacing" if w == " " else "word", "speaker_id": "speaker_0",
                  "logprob": -0.1} for i, w in enumerate(self.text.split(" ")[:1])]
        return Reply(body={"language_code": "jpn", "language_probability": 0.98,
                           "text": self.text, "words": words,
                           "transcription_id": "el-tr-1"})


class AssemblyAIFake(Fake):
    """Upload, create, poll: each job reports each of ``states`` in turn, then
    ``completed`` (or stays at the last state forever when ``finish`` is false). Jobs
    are numbered ``job-1``, ``job-2``...; the create must name ``speech_models``, which
    AssemblyAI's spec requires, and the transcript names the model that ran
    (``speech_model_used``) and the ``audio_url`` it transcribed."""

    auth = ("Authorization", KEY)

    def __init__(self) -> None:
        super().__init__()
        self.states = ["queued", "processing"]
        self.finish = True
        self.failure: str | None = None
        self.job: dict[str, Any] | None = None
        self._jobs: dict[str, tuple[dict[str, Any], list[str]]] = {}

    def refused(self, sent: str | None) -> Reply:
        return Reply(401, {"error": f"Authentication error, API token missing/invalid: {sent}"})

    def answer(self, request: Request) -> Reply:
        if request.method == "POST" and request.route == "/v2/upload":
            assert request.headers["Content-Type"] == "application/octet-stream"
            return Reply(body={"upload_url": f"{self.url}/cdn/upload/abc123"})
        if request.method == "POST" and request.route == "/v2/transcript":
            if "speech_models" not in request.json:
                return Reply(400, {"error": "speech_models is required"})
            self.job = request.json
            job_id = f"job-{len(self._jobs) + 1}"
            self._jobs[job_id] = (request.json, list(self.states))
            return Reply(body={"id": job_id, "status": "queued", "text": None})
        job_id = request.route.rpartition("/")[2]
        if request.method == "GET" and job_id in self._jobs:
            job, states = self._jobs[job_id]
            if states:
                state = states.pop(0) if (len(states) > 1 or self.finish) else states[0]
                return Reply(body={"id": job_id, "status": state, "text": None})
            if self.failure:
                return Reply(body={"id": job_id, "status": "error", "error": self.failure})
            return Reply(body={"id": job_id, "status": "completed", "text": self.text,
                               "audio_duration": 1, "audio_url": job["audio_url"],
                               "speech_model_used": job["speech_models"][0],
                               "language_code": "en"})
        return Reply(404, {"error": f"no route {request.method} {request.route}"})


class SpeechmaticsFake(Fake):
    """Submit, poll, fetch: like :class:`AssemblyAIFake`, with ``done``/``rejected``;
    jobs numbered ``sm-job-1``, ``sm-job-2``...; with ``diarization = "speaker"`` the txt
    transcript carries the speaker label lines of the spec's example."""

    def __init__(self) -> None:
        super().__init__()
        self.states = ["running", "running"]
        self.finish = True
        self.failure: str | None = None
        self.config: Any = None
        self._jobs: dict[str, tuple[Any, list[str]]] = {}
        #: Jobs the adapter deleted (``DELETE /v2/jobs/{id}``).
        self.deleted: list[str] = []
        #: Each job's data file name (the job details' ``data_name``).
        self.names: dict[str, str] = {}

    def refused(self, sent: str | None) -> Reply:
        return Reply(401, {"code": 401, "error": f"Permission Denied for {sent}"})

    def answer(self, request: Request) -> Reply:
        if request.method == "POST" and request.route == "/v2/jobs":
            assert "data_file" in request.files
            self.config = json.loads(request.fields["config"])
            job_id = f"sm-job-{len(self._jobs) + 1}"
            self._jobs[job_id] = (self.config, list(self.states))
            self.names[job_id] = request.files["data_file"][0]
            return Reply(201, {"id": job_id})
        parts = request.route.split("/")
        job_id = parts[3] if len(parts) > 3 else ""
        if request.method == "GET" and job_id in self._jobs and len(parts) == 4:
            _, states = self._jobs[job_id]
            if states:
                state = states.pop(0) if (len(states) > 1 or self.finish) else states[0]
                return Reply(body={"job": {"id": job_id, "status": state}})
            if self.failure:
                return Reply(body={"job": {"id": job_id, "status": "rejected",
                                           "errors": [{"message": self.failure}]}})
            return Reply(body={"job": {"id": job_id, "status": "done", "duration": 2,
                                       "data_name": self.names[job_id]}})
        if request.method == "DELETE" and job_id in self._jobs and len(parts) == 4:
            self.deleted.append(job_id)
            return Reply(body={"job": {"id": job_id, "status": "deleted"}})
        if request.method == "GET" and job_id in self._jobs and parts[4:] == ["transcript"]:
            assert request.query == [("format", "txt")]
            config = self._jobs[job_id][0]["transcription_config"]
            if config.get("diarization") == "speaker":
                return Reply(body=f"SPEAKER: S1\n{self.text}\n".encode())
            return Reply(body=f"{self.text}\n".encode())
        return Reply(404, {"code": 404, "error": f"no route {request.route}"})


class AzureFake(Fake):
    auth = ("Ocp-Apim-Subscription-Key", KEY)

    def refused(self, sent: str | None) -> Reply:
        return Reply(401, {"error": {"code": "401", "message": "Access denied due to invalid "
                                     f"subscription key {sent}"}})

    def answer(self, request: Request) -> Reply:
        assert request.route == "/speechtotext/transcriptions:transcribe"
        assert request.query in ([("api-version", "2024-11-15")], [("api-version", "2025-10-15")])
        assert "audio" in request.files
        self.definition = json.loads(request.fields["definition"])
        return Reply(body={"durationMilliseconds": 1500,
                           "combinedPhrases": [{"text": self.text}] if self.text else [],
                           "phrases": []}, headers={"apim-request-id": "az-req-1"})


def provider_toml(name: str, adapter: str, base_url: str, key_env: str = KEY_ENV,
                  model: str = "", *, timeout_s: float = 5, extra: str = "") -> str:
    """A product file's text: provider kind ``adapter`` at ``base_url``, its key in
    ``key_env``; ``extra`` settings lines appended."""
    return (f'name = "{name}"\nversion = "1"\nadapter = "{adapter}"\n[settings]\n'
            f'base_url = "{base_url}"\napi_key_env = "{key_env}"\ntimeout_s = {timeout_s}\n'
            + (f'model = "{model}"\n' if model else "") + extra)


class ProviderServer(LoopbackServer):
    """``with ProviderServer(fake) as server: ... server.url ...`` (GET, POST, DELETE)."""

    protocol = "HTTP/1.1"
    json_type = True

    def __init__(self, fake: Callable[[Request], Reply]) -> None:
        self.fake = fake
        super().__init__(fake, make=_request)
        if isinstance(fake, Fake):
            fake.url = self.url


def _request(method: str, path: str, headers: dict[str, str], body: bytes) -> Request:
    return Request(method, path, headers, body, query=parse_qsl(urlsplit(path).query))
