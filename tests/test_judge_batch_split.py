"""Large batch submissions are split under the API's limits, and a 413 splits and
retries instead of failing every item (J20); a submission interrupted before its answer
is remembered, so a rerun warns instead of paying twice in silence (J19)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_judge_batch
from judge_server import MessagesServer
from judge_support import make_request
from test_judge_batch import batch_run

from pytest_dictbench.judge.batch import BatchPass


def test_an_oversized_batch_is_split_on_413(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    requests = [make_request(f"c{i}", f"output {i}.") for i in range(7)]
    monkeypatch.setattr(test_judge_batch, "REQUESTS", requests)
    with MessagesServer() as server:
        server.batch_delay = 60.0
        server.max_batch_requests = 3
        run = batch_run(server, tmp_path)
        created = [r for r in server.requests if r.path == "/v1/messages/batches"]
        accepted = sorted(len(b.requests) for b in server.batches.values())
    assert run.count("pending") == 14 and run.count("error") == 0
    assert sum(accepted) == 14 and max(accepted) <= 3  # every request in one batch
    assert len(created) > len(accepted)  # some creates were refused, then split
    book = json.loads((tmp_path / "batches.json").read_text())
    assert sum(len(b["hashes"]) for b in book["batches"]) == 14


def test_submissions_respect_the_request_limit(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    requests = [make_request(f"c{i}", f"output {i}.") for i in range(5)]
    monkeypatch.setattr(test_judge_batch, "REQUESTS", requests)
    monkeypatch.setattr(BatchPass, "max_requests", 2)
    with MessagesServer() as server:
        server.batch_delay = 60.0
        batch_run(server, tmp_path)
        sizes = sorted(len(b.requests) for b in server.batches.values())
    assert sizes == [1, 1, 2, 2, 2, 2]  # 5 per judge: 2 + 2 + 1


def test_a_submission_is_recorded_before_it_is_sent(tmp_path: Path) -> None:
    seen: list[dict] = []
    with MessagesServer() as server:
        server.batch_delay = 60.0
        server.on_create = lambda body: seen.append(
            json.loads((tmp_path / "batches.json").read_text()))
        batch_run(server, tmp_path)
    # while each create was in flight, the book named its hashes as "submitting"
    assert [len(s["submitting"]) for s in seen] == [1, 1]
    assert len(seen[0]["submitting"][0]["hashes"]) == 3
    final = json.loads((tmp_path / "batches.json").read_text())
    assert final["submitting"] == [] and len(final["batches"]) == 2


def test_an_interrupted_submission_is_warned_about(tmp_path: Path) -> None:
    with MessagesServer() as server:
        server.batch_delay = 60.0
        batch_run(server, tmp_path)
        book = json.loads((tmp_path / "batches.json").read_text())
        # what a kill during the create leaves: the record, and no batch entry
        lost = book["batches"].pop(0)
        book["submitting"] = [{"judge": lost["judge"], "model": lost["model"],
                               "hashes": lost["hashes"], "started": "2026-12-01T09:00:00Z"}]
        (tmp_path / "batches.json").write_text(json.dumps(book))
        with pytest.warns(UserWarning, match=r"interrupted batch submission .* may have been "
                                             r"created and billed"):
            batch_run(server, tmp_path)
    final = json.loads((tmp_path / "batches.json").read_text())
    assert final["submitting"] == []


def test_a_batch_past_its_expiry_is_given_up(tmp_path: Path) -> None:
    """J23: a batch the server still calls in progress after its ``expires_at`` is
    treated as expired: its requests follow ``batch_failures`` (live by default)."""
    with MessagesServer() as server:
        server.batch_delay = 3600.0  # never ends by itself
        server.batch_expiry = -1.0   # and is already past its expiry
        batch_run(server, tmp_path)
        run = batch_run(server, tmp_path)
        live = [r.path for r in server.requests].count("/v1/messages")
    assert run.count("pending") == 0 and live == 6  # each request judged live once
    assert json.loads((tmp_path / "batches.json").read_text())["batches"] == []
