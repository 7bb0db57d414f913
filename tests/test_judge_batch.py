"""Batch mode against the loopback Message Batches API: submit, collect, expiry,
cancellation, errors, waiting, and nothing charged twice."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_server import MessagesServer, Reply, error_reply
from judge_support import API_KEY, FAST_RETRY, JUDGE_A, JUDGE_B, make_request

from pytest_dictbench.errors import JudgeError
from pytest_dictbench.judge import (
    BatchBook,
    JudgeClientFactory,
    JudgeRun,
    TokenUsage,
    VerdictCache,
    cache_key,
    judge_all,
)

REQUESTS = [make_request(f"c{i}", f"output number {i}.") for i in range(3)]


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer() as srv:
        srv.batch_delay = 60.0  # batches stay open until a test sets 0
        yield srv


def batch_run(server: MessagesServer, folder: Path, mode: str = "batch", **options: object
              ) -> JudgeRun:
    """One pass with the cache and batch book kept in ``folder`` (as the plugin does)."""
    cache = VerdictCache(folder / "verdicts.jsonl")
    factory = JudgeClientFactory(api_key=API_KEY, base_url=server.url, timeout=5.0)
    try:
        return asyncio.run(judge_all(
            REQUESTS, [JUDGE_A, JUDGE_B], mode=mode, cache=cache,  # type: ignore[arg-type]
            client_factory=factory, retry=FAST_RETRY,
            book=BatchBook.load(folder / "batches.json"), **options))  # type: ignore[arg-type]
    finally:
        cache.close()


def paths(server: MessagesServer) -> list[str]:
    return [r.path for r in server.requests]


def test_two_run_cycle_same_keys_half_price(server: MessagesServer, tmp_path: Path) -> None:
    first = batch_run(server, tmp_path)
    assert first.count("pending") == 6 and first.calls == 0
    assert paths(server).count("/v1/messages/batches") == 2  # one batch per judge
    assert "/v1/messages" not in paths(server)
    book = json.loads((tmp_path / "batches.json").read_text())
    assert sorted(b["judge"] for b in book["batches"]) == ["judge-a", "judge-b"]
    # custom ids are the verdict cache keys, exactly as live mode computes them
    created = [r.body for r in server.requests if r.path == "/v1/messages/batches"]
    sent = {r["custom_id"] for body in created for r in body["requests"]}
    assert sent == {cache_key(r, j) for r in REQUESTS for j in (JUDGE_A, JUDGE_B)}
    assert all(r["params"]["system"][0]["cache_control"] == {"type": "ephemeral"}
               for body in created for r in body["requests"])

    server.batch_delay = 0.0
    second = batch_run(server, tmp_path)
    assert second.count("judged") == 6 and second.count("pending") == 0
    assert json.loads((tmp_path / "batches.json").read_text())["batches"] == []
    assert paths(server).count("/v1/messages/batches") == 2  # nothing submitted again
    # every request: 100 input and 20 output tokens, billed at half the live price
    live_a = JUDGE_A.cost_usd(TokenUsage(100, 20))
    live_b = JUDGE_B.cost_usd(TokenUsage(100, 20))
    assert second.cost_usd == pytest.approx(3 * (live_a + live_b) / 2)
    lines = (tmp_path / "verdicts.jsonl").read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(line)["batch"] is True for line in lines)

    third = batch_run(server, tmp_path, mode="live")  # warm: nothing sent at all
    assert third.cache_hits == 6 and third.calls == 0
    assert sum(third.cached_spend[m].cost_usd for m in third.cached_spend) == \
        pytest.approx(second.cost_usd)
    assert "/v1/messages" not in paths(server)
    for path in tmp_path.iterdir():
        assert API_KEY not in path.read_text()


def test_live_mode_leaves_open_batches_pending(server: MessagesServer, tmp_path: Path) -> None:
    batch_run(server, tmp_path)
    live = batch_run(server, tmp_path, mode="live")
    # the verdicts are already paid for in an open batch: not asked for again
    assert live.count("pending") == 6 and "/v1/messages" not in paths(server)
    outcome = live.outcome(REQUESTS[0].key, "judge-a")
    assert outcome is not None and "msgbatch_" in outcome.detail and "0/3 done" in outcome.detail


def test_batch_expiring_midway_is_retried_live(server: MessagesServer, tmp_path: Path) -> None:
    server.expire = {cache_key(REQUESTS[1], JUDGE_A)}
    batch_run(server, tmp_path)
    server.batch_delay = 0.0
    run = batch_run(server, tmp_path)
    assert run.count("judged") == 6
    singles = [r for r in server.requests if r.path == "/v1/messages"]
    assert len(singles) == 1 and singles[0].body["model"] == "model-a"
    verdict = run.outcome(REQUESTS[1].key, "judge-a").verdict  # type: ignore[union-attr]
    assert verdict is not None and verdict.batch is False  # billed at the live price


def test_expired_requests_reported_when_asked(server: MessagesServer, tmp_path: Path) -> None:
    batch_run(server, tmp_path)
    server.expire_batch("msgbatch_000001")  # judge-a's whole batch expires
    run = batch_run(server, tmp_path, batch_failures="report")
    outcome = run.outcome(REQUESTS[0].key, "judge-a")
    assert outcome is not None and outcome.status == "error"
    assert outcome.error == "BatchRequestFailed" and "expired in batch" in outcome.detail
    assert run.count("pending") == 3  # judge-b's batch is still open
    assert "/v1/messages" not in paths(server)


def test_cancelled_and_errored_requests_go_live(server: MessagesServer, tmp_path: Path) -> None:
    batch_run(server, tmp_path)
    server.cancel_batch("msgbatch_000002")  # judge-b: cancelled before processing
    server.batch_delay = 0.0
    server.script(error_reply(500, "api_error"))  # judge-a's first result errs
    run = batch_run(server, tmp_path)
    assert run.count("judged") == 6
    singles = [r.body["model"] for r in server.requests if r.path == "/v1/messages"]
    assert sorted(singles) == ["model-a"] + ["model-b"] * 3


def test_wait_with_progress_until_ended(server: MessagesServer, tmp_path: Path) -> None:
    server.batch_delay = 0.4
    lines: list[str] = []
    start = time.monotonic()
    run = batch_run(server, tmp_path, batch_wait=10.0, batch_poll=0.1, progress=lines.append)
    assert run.count("judged") == 6 and time.monotonic() - start < 5
    assert lines and lines[0].startswith("[judge] 2 batch(es) open: 0/6 requests done")


def test_wait_deadline_leaves_pending(server: MessagesServer, tmp_path: Path) -> None:
    run = batch_run(server, tmp_path, batch_wait=0.3, batch_poll=0.1)
    assert run.count("pending") == 6


def test_results_for_unselected_items_are_dropped(server: MessagesServer, tmp_path: Path
                                                  ) -> None:
    batch_run(server, tmp_path)
    server.batch_delay = 0.0
    cache = VerdictCache(tmp_path / "verdicts.jsonl")
    factory = JudgeClientFactory(api_key=API_KEY, base_url=server.url, timeout=5.0)
    run = asyncio.run(judge_all(REQUESTS[:1], [JUDGE_A], mode="batch", cache=cache,
                                client_factory=factory, retry=FAST_RETRY,
                                book=BatchBook.load(tmp_path / "batches.json")))
    cache.close()
    assert run.count("judged") == 1 and run.batch_dropped == 2


def test_unreadable_book_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "batches.json").write_text("{not json")
    with pytest.raises(JudgeError, match=r"batches\.json.*unreadable batch book"):
        BatchBook.load(tmp_path / "batches.json")


def test_failed_submission_is_a_redacted_judge_error(server: MessagesServer, tmp_path: Path
                                                     ) -> None:
    server.refuse_batches = Reply(status=400, body={"type": "error", "error": {
        "type": "invalid_request_error", "message": f"bad key {API_KEY}"}})
    with pytest.raises(JudgeError, match="batch submission failed: BadRequestError") as info:
        batch_run(server, tmp_path)
    assert API_KEY not in str(info.value) and "[redacted]" in str(info.value)
    book = json.loads((tmp_path / "batches.json").read_text())
    assert book["batches"] == [] and book["submitting"] == []  # refused: nothing booked


def test_an_overloaded_batch_api_is_retried_with_backoff(server: MessagesServer,
                                                         tmp_path: Path) -> None:
    server.refuse_batches = error_reply(529, "overloaded_error", retry_after="0")
    server.refusals_left = 2  # one submission per judge: the first refused twice
    run = batch_run(server, tmp_path)
    assert run.count("pending") == len(REQUESTS) * 2  # both batches submitted, waiting
    assert paths(server).count("/v1/messages/batches") == 4


def test_a_batch_api_that_stays_overloaded_is_an_error_after_the_attempts(
        server: MessagesServer, tmp_path: Path) -> None:
    server.refuse_batches = error_reply(529, "overloaded_error")
    with pytest.raises(JudgeError, match="batch submission failed after 3 attempts: "
                       "OverloadedError"):
        batch_run(server, tmp_path)
    assert paths(server).count("/v1/messages/batches") == 3
    book = json.loads((tmp_path / "batches.json").read_text())
    assert book["batches"] == [] and book["submitting"] == []  # answered 529: none made


def test_key_never_sent_over_plain_http_elsewhere() -> None:
    factory = JudgeClientFactory(api_key=API_KEY, base_url="http://judge.example.com")
    with pytest.raises(JudgeError, match="only sent over https"):
        factory(JUDGE_A)
