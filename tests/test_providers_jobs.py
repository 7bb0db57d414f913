"""Job-based kinds (AssemblyAI, Speechmatics) against their published specs and under
faults: findings PS4, PS16 (the request and the model that ran), PS6 (``model``, not the
deprecated ``operating_point``), PS7 (speaker labels), PV8 (a job id served twice),
PV18, PV19 (a job that never ends: its id, status and phase; Speechmatics' deleted),
PV21 (JSON on the text endpoint), PV25 (an unknown status), PS17 (documented limits)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from adapter_support import first_output, live_adapter, make_product, make_suite
from http_stt_server import Reply
from provider_servers import KEY_ENV, AssemblyAIFake, ProviderServer, Request, SpeechmaticsFake

from pytest_dictbench.adapters.providers import PROVIDERS
from pytest_dictbench.model import Output, Suite

pytestmark = pytest.mark.usefixtures("provider_key")


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return make_suite(tmp_path / "suite", {"c1": "audio/c1.wav", "c2": "audio/c2.wav"},
                      locale="ja-JP")


def run(tmp_path: Path, suite: Suite, kind: str, fake: Any, **settings: Any
        ) -> list[Output]:
    with ProviderServer(fake) as server:
        product = make_product(tmp_path / "p", kind, {
            "base_url": server.url, "api_key_env": KEY_ENV, "timeout_s": 5, "poll_s": 0.05,
            "concurrency": 1, **settings})
        adapter = live_adapter(product, suite)
        outputs = [adapter.get(case, 1) for case in suite.cases]
    return outputs  # type: ignore[return-value]


def test_speechmatics_diarization_label_lines_are_not_transcript(
        tmp_path: Path, suite: Suite) -> None:
    """PS7: the spec's txt example under diarization is ``SPEAKER: S1\\nHello world.``."""
    fake = SpeechmaticsFake()
    fake.text = "Hello world."
    [first, _] = run(tmp_path, suite, "speechmatics", fake,
                     options={"diarization": "speaker"})
    assert first.status == "complete" and first.text == "Hello world."


def test_speechmatics_sends_model_not_operating_point(tmp_path: Path, suite: Suite) -> None:
    """PS6."""
    fake = SpeechmaticsFake()
    run(tmp_path, suite, "speechmatics", fake)
    config = fake.config["transcription_config"]
    assert config["model"] == "enhanced" and "operating_point" not in config


def test_speechmatics_json_on_the_text_endpoint_is_an_error(tmp_path: Path,
                                                             suite: Suite) -> None:
    """PV21: a JSON document is not a txt transcript."""

    class Json(SpeechmaticsFake):
        def answer(self, request: Request) -> Reply:
            if request.route.endswith("/transcript"):
                return Reply(body={"format": "2.9", "job": {"id": "x"}, "results": []})
            return super().answer(request)

    [first, _] = run(tmp_path, suite, "speechmatics", Json())
    assert first.status == "error"
    assert first.error == "Speechmatics answered JSON for the txt transcript of job sm-job-1"


@pytest.mark.parametrize(("kind", "fake_type", "name"), [
    ("assemblyai", AssemblyAIFake, "AssemblyAI job job-1"),
    ("speechmatics", SpeechmaticsFake, "Speechmatics job sm-job-1")])
def test_an_unknown_status_ends_the_capture_at_once(
        tmp_path: Path, suite: Suite, kind: str, fake_type: Any, name: str) -> None:
    """PV25: ``paused`` is not polled until the deadline."""
    fake = fake_type()
    fake.states, fake.finish = ["paused"], False
    [first, _] = run(tmp_path, suite, kind, fake, timeout_s=20)
    assert first.status == "error"
    assert first.error.startswith(f"{name} has an unknown status 'paused'")
    assert len(fake.requests) <= 6  # upload/create and one or two polls per case


@pytest.mark.parametrize(("kind", "fake_type", "says"), [
    ("assemblyai", AssemblyAIFake,
     r"\(waiting for job job-1, status queued\); the job was left running at AssemblyAI"),
    ("speechmatics", SpeechmaticsFake,
     r"\(waiting for job sm-job-1, status running\); the job was deleted at Speechmatics")])
def test_a_job_that_never_ends_names_the_job_its_status_and_what_became_of_it(
        tmp_path: Path, suite: Suite, kind: str, fake_type: Any, says: str) -> None:
    """PV18, PV19."""
    fake = fake_type()
    fake.states, fake.finish = [fake.states[0]], False
    one = Suite(**{**suite.__dict__, "cases": suite.cases[:1]})
    [output] = run(tmp_path, one, kind, fake, timeout_s=1.5)
    assert output.status == "error"
    assert output.error is not None and re.search(says, output.error), output.error
    if kind == "speechmatics":
        assert [(r.method, r.path) for r in fake.requests][-1] == \
            ("DELETE", "/v2/jobs/sm-job-1?force=true")


def test_a_job_id_served_for_two_cases_is_an_error(tmp_path: Path, suite: Suite) -> None:
    """PV8 (b): c2's create answered with c1's job id gets no transcript of c1."""

    class SameJob(AssemblyAIFake):
        def answer(self, request: Request) -> Reply:
            reply = super().answer(request)
            if request.route == "/v2/transcript" and isinstance(reply.body, dict):
                job = self._jobs.pop(reply.body["id"])
                self._jobs["job-1"] = job
                reply.body["id"] = "job-1"
            return reply

    first, second = run(tmp_path, suite, "assemblyai", SameJob())
    assert first.status == "complete"
    assert second.status == "error"
    assert second.error == ("AssemblyAI answered job id job-1 for case 'c2', the id it gave "
                            "case 'c1': the transcript would be that case's")


def test_assemblyai_sends_speech_models_and_records_the_model_that_ran(
        tmp_path: Path, suite: Suite) -> None:
    """PS4, PS16; distinct job ids per case (PV8 (a), the fake as it was gave job-1 to
    every case)."""
    fake = AssemblyAIFake()
    first, second = run(tmp_path, suite, "assemblyai", fake, model="universal-3-pro")
    assert fake.job is not None and fake.job["speech_models"] == ["universal-3-pro"]
    assert "speech_model" not in fake.job
    assert first.meta["provider"]["speech_model_used"] == "universal-3-pro"
    assert [first.meta["provider"]["request_id"], second.meta["provider"]["request_id"]] \
        == ["job-1", "job-2"]


def test_a_deprecated_assemblyai_model_name_is_warned_about_at_load(
        tmp_path: Path, suite: Suite) -> None:
    """Issue 44: deprecated model ids are warned about at load, not sent silently."""
    product = make_product(tmp_path / "p", "assemblyai", {"model": "universal"})
    with pytest.warns(UserWarning, match="'universal' is a deprecated name.*'universal-2'"):
        live_adapter(product, suite)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        live_adapter(make_product(tmp_path / "q", "assemblyai", {}), suite)


def test_assemblyai_and_speechmatics_know_their_documented_limits() -> None:
    """PS17: AssemblyAI 2.2 GB upload and 10 hours; Speechmatics under 1 GB."""
    assembly = PROVIDERS["assemblyai"].limits["*"]
    assert assembly.max_bytes == 2_200_000_000 and assembly.max_seconds == 36_000
    assert PROVIDERS["speechmatics"].limits["*"].max_bytes == 999_999_999


@pytest.mark.parametrize(("kind", "fake_type", "create"), [
    ("assemblyai", AssemblyAIFake, "/v2/transcript"),
    ("speechmatics", SpeechmaticsFake, "/v2/jobs")])
def test_a_job_left_unfinished_is_polled_by_the_next_run_not_created_again(
        tmp_path: Path, suite: Suite, kind: str, fake_type: Any, create: str) -> None:
    """PV6 (a): the first run stops before its job finishes (a kill, or the deadline);
    the next run of the same audio polls that job and creates none."""

    class Undeletable(fake_type):  # type: ignore[misc, valid-type]
        def answer(self, request: Request) -> Reply:
            if request.method == "DELETE":
                return Reply(500, {"error": "cannot delete"},
                             headers={"x-should-retry": "false"})
            return super().answer(request)

    fake = Undeletable()
    fake.states, fake.finish = [fake.states[0]], False
    one = Suite(**{**suite.__dict__, "cases": suite.cases[:1]})
    with ProviderServer(fake) as server:
        settings = {"base_url": server.url, "api_key_env": KEY_ENV, "poll_s": 0.05}
        product = make_product(tmp_path / "p", kind, {**settings, "timeout_s": 1})
        first = first_output(live_adapter(product, one), one)
        assert first.status == "error"
        fake.finish = True  # the job finishes at the provider meanwhile
        product = make_product(tmp_path / "p", kind, {**settings, "timeout_s": 5})
        second = first_output(live_adapter(product, one, recapture=True), one)
    assert second.status == "complete", second
    creates = [r for r in fake.requests if r.method == "POST" and r.route == create]
    assert len(creates) == 1
    assert second.meta["provider"]["resumed_job"] is True
    assert second.meta["provider"]["request_id"] in ("job-1", "sm-job-1")


@pytest.mark.parametrize(("kind", "fake_type", "create"), [
    ("assemblyai", AssemblyAIFake, "/v2/transcript"),
    ("speechmatics", SpeechmaticsFake, "/v2/jobs")])
def test_a_create_whose_answer_was_lost_is_recorded(
        tmp_path: Path, suite: Suite, kind: str, fake_type: Any, create: str) -> None:
    """PV6 (b): the first create's connection dropped; the retry's job is the one kept,
    and the record says an earlier create may have made (and billed) a job."""
    from http_stt_server import DROP

    class Dropping(fake_type):  # type: ignore[misc, valid-type]
        dropped = False

        def answer(self, request: Request) -> Reply:
            if request.route == create and not self.dropped:
                self.dropped = True
                super().answer(request)  # the job is made, the answer never arrives
                return Reply(DROP)
            return super().answer(request)

    one = Suite(**{**suite.__dict__, "cases": suite.cases[:1]})
    [output] = run(tmp_path, one, kind, Dropping())
    assert output.status == "complete"
    assert output.meta["provider"]["unanswered_creates"] == 1


def test_a_speechmatics_job_of_another_data_file_is_an_error(tmp_path: Path,
                                                              suite: Suite) -> None:
    """PV8: the job details name the data file; another file's job is not this case's."""

    class Other(SpeechmaticsFake):
        def answer(self, request: Request) -> Reply:
            reply = super().answer(request)
            if isinstance(reply.body, dict) and reply.body.get("job", {}).get("data_name"):
                reply.body["job"]["data_name"] = "someone-else.wav"
            return reply

    first, _ = run(tmp_path, suite, "speechmatics", Other())
    assert first.status == "error"
    assert first.error == ("Speechmatics job sm-job-1 transcribed 'someone-else.wav', not the "
                           "'c1.wav' this capture sent")
