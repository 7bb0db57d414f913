"""Captures of a cloud product made ``concurrency`` at a time: the same outputs and
cache lines, in the same order, as at concurrency 1; a 429 holds every request."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from adapter_support import cache_lines, live_adapter, make_product, make_suite
from http_stt_server import Reply
from provider_servers import KEY, KEY_ENV, DeepgramFake, ProviderServer, Request

from pytest_dictbench.adapters.live import CaptureRequest
from pytest_dictbench.errors import ProductError
from pytest_dictbench.model import Suite

#: Fields that differ between any two runs (when, how long, on which machine state).
TIMING = ("latency_ms", "rtf", "started_utc")


class SlowDeepgram(DeepgramFake):
    """Answers after ``delay_s``, each case with its own text; counts requests in flight."""

    def __init__(self, delay_s: float) -> None:
        super().__init__()
        self.delay_s = delay_s
        self.in_flight = self.most = 0
        self._lock = threading.Lock()

    #: The audio (bytes) whose first request gets a 429 with Retry-After: 1.
    limited: bytes | None = None

    def answer(self, request: Request) -> Reply:
        if self.limited is not None and request.body == self.limited:
            self.limited = None
            return Reply(429, {"err_msg": "rate limited"}, headers={"Retry-After": "1"})
        with self._lock:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
        time.sleep(self.delay_s)
        with self._lock:
            self.in_flight -= 1
        reply = super().answer(request)
        reply.body["results"]["channels"][0]["alternatives"][0]["transcript"] = \
            f"text of audio {hashlib.sha256(request.body).hexdigest()[:12]}"
        return reply


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    # distinct tone frequencies: each case's audio, and so its answer, differs
    return make_suite(tmp_path / "suite", {f"c{i}": f"audio/c{i}.wav" for i in range(1, 9)})


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


@pytest.fixture
def fake() -> SlowDeepgram:
    return SlowDeepgram(0.2)


@pytest.fixture
def server(fake: SlowDeepgram) -> Iterator[ProviderServer]:
    with ProviderServer(fake) as running:
        yield running


def run(tmp_path: Path, suite: Suite, server: ProviderServer, concurrency: int,
        repetitions: int = 1) -> tuple[list[Any], list[dict[str, Any]]]:
    product = make_product(tmp_path / f"c{concurrency}", "deepgram", {
        "base_url": server.url, "api_key_env": KEY_ENV, "concurrency": concurrency})
    live = live_adapter(product, suite)
    plan = [(case, r) for case in suite.cases for r in range(1, repetitions + 1)]
    live.plan(plan)
    outputs = [live.get(case, r) for case, r in plan]
    lines = [json.loads(line) for line in cache_lines(product, suite)]
    for line in lines:
        for name in (*TIMING, "environment"):
            line.pop(name)
    return outputs, lines


def test_concurrent_captures_give_the_lines_of_a_run_at_concurrency_1(
        tmp_path: Path, suite: Suite, fake: SlowDeepgram, server: ProviderServer) -> None:
    one, lines_one = run(tmp_path, suite, server, 1)
    assert fake.most == 1
    fake.most = 0
    eight, lines_eight = run(tmp_path, suite, server, 4, repetitions=2)
    assert fake.most == 4  # never more in flight than the product's concurrency
    assert [(o.case_id, o.repetition) for o in eight] == [
        (f"c{i}", r) for i in range(1, 9) for r in (1, 2)]
    assert [o.text for o in eight][::2] == [o.text for o in one]
    assert len({o.text for o in one}) == 8
    # the cache lines, in the same order, differ only in the timing fields and settings
    firsts = [line for line in lines_eight if line["repetition"] == 1]
    for line in (*firsts, *lines_one):
        line.pop("settings")
    assert firsts == lines_one
    assert all(o.latency_ms is not None and o.latency_ms >= 200 for o in eight)


def test_cached_items_are_not_captured_again_ahead(
        tmp_path: Path, suite: Suite, fake: SlowDeepgram, server: ProviderServer) -> None:
    run(tmp_path, suite, server, 4)
    sent = len(fake.requests)
    run(tmp_path, suite, server, 4)
    assert len(fake.requests) == sent == 8


class RateLimitedDeepgram(SlowDeepgram):
    """Answers ``limited`` (c3) with a 429 only once the other three of the first four
    requests have arrived; answers the others only once ``hold_seen()`` has said the
    client holds.
    The order of events is fixed, whatever the machine's load."""

    def __init__(self, limited: bytes) -> None:
        super().__init__(0.0)
        self.limited = limited
        self.hold_seen: Callable[[], bool] = lambda: False
        self._arrived = threading.Semaphore(0)
        self._held = threading.Event()  # the client was seen holding: no more gating

    def answer(self, request: Request) -> Reply:
        if self.limited is not None and request.body == self.limited:
            for _ in range(3):  # the other three of the first four are in flight
                assert self._arrived.acquire(timeout=60)
            return super().answer(request)
        self._arrived.release()
        deadline = time.monotonic() + 60
        while not self._held.is_set() and time.monotonic() < deadline:
            if self.hold_seen():
                self._held.set()
            time.sleep(0.005)  # waiting for a condition, bounded
        return super().answer(request)


def test_a_429_holds_every_request_in_flight(tmp_path: Path, suite: Suite) -> None:
    # c1, c2 and c4 are in flight when c3 is limited; they are answered during its wait,
    # so c5 and c6 start during it, and must hold back with it
    fake = RateLimitedDeepgram((suite.root / "audio/c3.wav").read_bytes())
    with ProviderServer(fake) as server:
        product = make_product(tmp_path / "p", "deepgram", {
            "base_url": server.url, "api_key_env": KEY_ENV, "concurrency": 4})
        live = live_adapter(product, suite)
        fake.hold_seen = lambda: live._transcriber.client.held() > 0
        plan = [(case, 1) for case in suite.cases]
        live.plan(plan)
        outputs = [live.get(case, r) for case, r in plan]
    assert all(o.status == "complete" for o in outputs)
    assert len(fake.requests) == 9  # eight captures, one of them twice
    waited = [o.meta["provider"].get("retry_waits_s") for o in outputs]
    assert waited == [None, None, [1.0], None, None, None, None, None]
    held = [o.meta["provider"].get("rate_limit_holds_s") for o in outputs]
    # the plan runs at most four ahead of the item asked for (c3, waiting): c5 and c6
    # start during the hold, c7 and c8 once c3 is answered, after it. When the hold ends
    # one request goes first and the others wait for its answer (PV12), so c3's retry
    # may wait for c5's or c6's probe.
    assert [bool(h) for h in held[:2] + held[3:]] == [False] * 3 + [True] * 2 + [False] * 2
    assert all(0 < h[0] <= 1.0 for h in held[4:6])


def test_concurrency_below_one_is_a_product_error(tmp_path: Path, suite: Suite,
                                                  server: ProviderServer) -> None:
    product = make_product(tmp_path, "deepgram", {"base_url": server.url, "concurrency": 0})
    with pytest.raises(ProductError, match="concurrency must be at least 1"):
        live_adapter(product, suite)


class HeldDeepgram(SlowDeepgram):
    """Holds the request whose audio is ``held`` until ``release`` is set."""

    def __init__(self, held: bytes) -> None:
        super().__init__(0.0)
        self.held, self.release = held, threading.Event()

    def answer(self, request: Request) -> Reply:
        if request.body == self.held:
            self.release.wait(60)
        return super().answer(request)


def test_an_interrupted_run_keeps_the_captures_made_ahead_that_finished(
        tmp_path: Path, suite: Suite) -> None:
    """``finish(wait=False)`` (Ctrl-C): c2 and c4, answered, are written in plan order;
    c3, still in flight, is not waited for; c5 on, never started, are not sent."""
    fake = HeldDeepgram((suite.root / "audio/c3.wav").read_bytes())
    with ProviderServer(fake) as server:
        product = make_product(tmp_path / "p", "deepgram", {
            "base_url": server.url, "api_key_env": KEY_ENV, "concurrency": 4})
        live = live_adapter(product, suite)
        live.plan([(case, 1) for case in suite.cases])
        assert live.get(suite.cases[0], 1).status == "complete"  # c1; c2..c4 started
        ahead = live._transcriber.ahead
        started = [ahead.peek(CaptureRequest(c.id, (suite.root / c.data["audio"]).resolve(),
                                             "")) for c in suite.cases[1:4]]
        deadline = time.monotonic() + 60
        while not (started[0].done() and started[2].done()) and time.monotonic() < deadline:
            time.sleep(0.01)  # waiting for a condition, bounded
        assert live.finish(wait=False) == 2
        fake.release.set()
        lines = [json.loads(line) for line in cache_lines(product, suite)]
        assert [line["case_id"] for line in lines] == ["c1", "c2", "c4"]
        assert len(fake.requests) == 4


def test_finish_waits_for_the_captures_in_flight(
        tmp_path: Path, suite: Suite) -> None:
    fake = HeldDeepgram((suite.root / "audio/c3.wav").read_bytes())
    fake.release.set()
    with ProviderServer(fake) as server:
        product = make_product(tmp_path / "p", "deepgram", {
            "base_url": server.url, "api_key_env": KEY_ENV, "concurrency": 4})
        live = live_adapter(product, suite)
        live.plan([(case, 1) for case in suite.cases])
        live.get(suite.cases[0], 1)
        assert live.finish() == 3
        lines = [json.loads(line) for line in cache_lines(product, suite)]
        assert [line["case_id"] for line in lines] == ["c1", "c2", "c3", "c4"]
        assert live.finish() == 0  # nothing left: a second call writes nothing
