"""Retry hints as providers give them (findings PS10, PS11, PS12, PV7, PV12, PS13, PS14,
PV23): Google's ``RetryInfo`` in the body, OpenAI's ``insufficient_quota`` and
``x-should-retry``, ``Retry-After`` as an HTTP date, ``0`` and too long, a 429 storm
retried within the deadline with one probe after each hold, the reason beside a
generic error, and the User-Agent."""

from __future__ import annotations

import email.utils
import threading
import time
from typing import Any

import pytest
from http_stt_server import Reply
from provider_servers import KEY, DeepgramFake, GeminiFake, OpenAIFake, ProviderServer, Request

from pytest_dictbench.adapters.providers.client import ProviderClient
from pytest_dictbench.errors import CaptureError


class Timed(DeepgramFake):
    """A Deepgram fake that notes when each request arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def __call__(self, request: Request) -> Reply:
        self.times.append(time.monotonic())
        return super().__call__(request)


def client(server: ProviderServer, auth: tuple[str, str], timeout_s: float = 10,
           name: str = "Provider") -> ProviderClient:
    return ProviderClient(name, server.url, KEY, auth, timeout_s)


DG = ("Authorization", f"Token {KEY}")


def test_gemini_retry_info_in_the_body_is_the_wait(serve: Any) -> None:
    """PS10: a 429 without Retry-After whose body carries google.rpc.RetryInfo."""
    fake = GeminiFake()
    fake.faults = [Reply(429, {"error": {
        "code": 429, "status": "RESOURCE_EXHAUSTED", "message": "Please retry in 1.5s.",
        "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                     "retryDelay": "1.5s"}]}})]
    session = client(serve(fake), ("x-goog-api-key", KEY)).session("c1")
    with pytest.raises(CaptureError):  # the fake then asserts on the body; only the wait counts
        session.send("POST", "/v1beta/models/m:generateContent", json={})
    assert session.waits == [1.5]


def test_a_retry_info_wait_longer_than_the_deadline_says_so(serve: Any) -> None:
    """PS10, PV7: the item's error names the asked wait and the time left."""
    fake = GeminiFake()
    fake.faults = [Reply(429, {"error": {"code": 429, "details": [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}]}})]
    session = client(serve(fake), ("x-goog-api-key", KEY), timeout_s=3,
                     name="Gemini API").session("c1")
    with pytest.raises(CaptureError, match=r"Gemini API asked to wait 13 s "
                                           r"\(RetryInfo.retryDelay\), more than the \d s left"):
        session.send("POST", "/v1beta/models/m:generateContent", json={})
    assert len(fake.requests) == 1


def test_an_insufficient_quota_429_is_not_retried(serve: Any) -> None:
    """PS11: OpenAI's quota error needs the user to act: one attempt."""
    fake = OpenAIFake()
    fake.faults = [Reply(429, {"error": {"message": "You exceeded your current quota",
                                         "type": "insufficient_quota",
                                         "code": "insufficient_quota"}})]
    session = client(serve(fake), ("Authorization", f"Bearer {KEY}")).session("c1")
    with pytest.raises(CaptureError, match=r"HTTP 429 .*exceeded your current quota$"):
        session.send("POST", "/v1/audio/transcriptions", content=b"x")
    assert len(fake.requests) == 1 and session.waits == []


def test_x_should_retry_false_is_obeyed(serve: Any) -> None:
    """PS12: OpenAI's SDK obeys x-should-retry before the status; so does the client."""
    fake = OpenAIFake()
    fake.faults = [Reply(500, {"error": {"message": "boom"}},
                         headers={"x-should-retry": "false"})]
    session = client(serve(fake), ("Authorization", f"Bearer {KEY}")).session("c1")
    with pytest.raises(CaptureError, match="HTTP 500"):
        session.send("POST", "/v1/audio/transcriptions", content=b"x")
    assert len(fake.requests) == 1


def test_retry_after_as_an_http_date_is_honoured(serve: Any) -> None:
    """PV7: RFC 9110's date form (whole seconds: 3 s ahead waits 2 to 3 s)."""
    fake = Timed()
    when = email.utils.formatdate(time.time() + 3, usegmt=True)
    fake.faults = [Reply(429, {"err_msg": "slow"}, headers={"Retry-After": when})]
    session = client(serve(fake), DG).session("c1")
    session.send("POST", "/v1/listen", content=b"RIFF", headers={"Content-Type": "audio/wav"})
    gap = fake.times[1] - fake.times[0]
    assert 1.9 <= gap <= 3.5, gap


def test_retry_after_zero_waits_a_floor(serve: Any) -> None:
    """PV7: ``0`` is not a licence to retry at once."""
    fake = Timed()
    fake.faults = [Reply(429, {"err_msg": "slow"}, headers={"Retry-After": "0"})]
    session = client(serve(fake), DG).session("c1")
    session.send("POST", "/v1/listen", content=b"RIFF", headers={"Content-Type": "audio/wav"})
    assert session.waits == [0.5] and fake.times[1] - fake.times[0] >= 0.45


@pytest.mark.parametrize("asked", ["1e3", "999999"])
def test_a_retry_after_longer_than_the_deadline_gives_up_and_says_so(
        serve: Any, asked: str) -> None:
    """PV7: named in the error, one request, never retried early."""
    fake = Timed()
    fake.faults = [Reply(429, {"err_msg": "slow"}, headers={"Retry-After": asked})]
    session = client(serve(fake), DG, timeout_s=5, name="Deepgram").session("c1")
    with pytest.raises(CaptureError, match=rf"Deepgram asked to wait {float(asked):g} s "
                                           r"\(Retry-After\), more than the [45] s left of "
                                           r"timeout_s = 5 s"):
        session.send("POST", "/v1/listen", content=b"RIFF")
    assert len(fake.requests) == 1


def test_a_rate_limit_storm_is_waited_out_within_the_deadline(serve: Any) -> None:
    """PV12: six 429s in a row, each asking for 0.5 s: the seventh attempt answers (the
    old limit of 4 attempts lost the item with minutes of deadline left)."""
    fake = Timed()
    fake.faults = [Reply(429, {"err_msg": "slow"}, headers={"Retry-After": "0.5"})] * 6
    session = client(serve(fake), DG, timeout_s=20).session("c1")
    reply = session.send("POST", "/v1/listen", content=b"RIFF",
                         headers={"Content-Type": "audio/wav"})
    assert reply.status == 200 and len(fake.requests) == 7


def test_after_a_hold_one_request_goes_first(serve: Any) -> None:
    """PV12: when a hold ends, one request probes; the others wait for its answer."""

    class Slow(Timed):
        def answer(self, request: Request) -> Reply:
            reply = super().answer(request)
            reply.delay_s = 0.4
            return reply

    fake = Slow()
    fake.faults = [Reply(429, {"err_msg": "slow"}, headers={"Retry-After": "1"})]
    shared = client(serve(fake), DG, timeout_s=20)
    sessions = [shared.session(f"c{i}") for i in range(4)]

    def send(index: int) -> None:
        time.sleep(0.15 * index)  # the first one meets the 429; the others the hold
        sessions[index].send("POST", "/v1/listen", content=b"RIFF",
                             headers={"Content-Type": "audio/wav"})

    threads = [threading.Thread(target=send, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after = sorted(fake.times[1:])
    assert len(after) == 4
    # the probe, then the three others only once its answer (0.4 s later) came back
    assert after[1] - after[0] >= 0.35, after


def test_speechmatics_detail_and_deepgram_details_are_quoted(serve: Any) -> None:
    """PS13, PS14: the specific reason beside the generic message."""
    fake = DeepgramFake()
    fake.faults = [Reply(400, {"code": 400, "error": "Job rejected",
                               "detail": "Job config JSON is invalid"}),
                   Reply(400, {"category": "INVALID_QUERY_PARAMETER",
                               "message": "Bad Request",
                               "details": "language 'xx' is not supported by nova-3",
                               "request_id": "r1"})]
    shared = client(serve(fake), DG, name="Speechmatics")
    with pytest.raises(CaptureError, match=r"Job rejected: Job config JSON is invalid$"):
        shared.session("c1").send("POST", "/v2/jobs", content=b"x")
    with pytest.raises(CaptureError,
                       match=r"Bad Request: language 'xx' is not supported by nova-3$"):
        shared.session("c2").send("POST", "/v1/listen", content=b"x")


def test_requests_say_they_come_from_dictbench(serve: Any) -> None:
    """PV23: ``User-Agent: pytest-dictbench/<version>``, not python-httpx."""
    fake = DeepgramFake()
    client(serve(fake), DG).session("c1").send("POST", "/v1/listen", content=b"RIFF",
                                               headers={"Content-Type": "audio/wav"})
    assert fake.requests[0].headers["User-Agent"].startswith("pytest-dictbench/")


def test_a_one_attempt_policy_does_not_retry_a_429() -> None:
    """Only the provider capture keeps retrying 429s; a judge or batch policy of one
    attempt stays one attempt."""
    import asyncio
    import random

    from pytest_dictbench.judge.backoff import GaveUp, with_backoff
    from pytest_dictbench.judge.records import RetryPolicy
    from pytest_dictbench.judge.transport import TransportError

    calls = []

    async def call() -> None:
        calls.append(1)
        raise TransportError("HTTP 429", status_code=429, headers={"retry-after": "0"})

    async def sleep(seconds: float) -> None:
        return None

    with pytest.raises(GaveUp):
        asyncio.run(with_backoff(call, RetryPolicy(max_attempts=1), random.Random(0), sleep))
    assert calls == [1]
