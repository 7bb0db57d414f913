"""Batch results: fetched only from the configured API host, read with the strict JSON
reader, one result per custom id (J17, J21, J22, J24 for batch answers)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_server import MessagesServer
from judge_support import API_KEY
from test_judge_batch import batch_run

from pytest_dictbench.errors import JudgeError


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer() as srv:
        srv.batch_delay = 60.0
        yield srv


def test_a_foreign_results_url_never_sees_the_key(server: MessagesServer, tmp_path: Path
                                                  ) -> None:
    batch_run(server, tmp_path)
    with MessagesServer() as thief:
        server.results_origin = thief.url
        server.batch_delay = 0.0
        with pytest.raises(JudgeError) as caught:
            batch_run(server, tmp_path)
        assert thief.requests == []  # nothing at all reaches the other host
    message = str(caught.value)
    assert thief.url in message and "not the configured API host" in message
    assert API_KEY not in message
    book = json.loads((tmp_path / "batches.json").read_text())
    assert len(book["batches"]) == 2  # kept: a later run can collect them


def _ended_results(server: MessagesServer) -> tuple[str, list[dict]]:
    """The first batch's id and results, once every batch has ended."""
    server.batch_delay = 0.0
    for batch in server.batches.values():
        server.batch_json(batch)
    first = sorted(server.batches)[0]
    return first, list(server.batches[first].results)


def _serve(server: MessagesServer, batch_id: str, lines: list[str]) -> None:
    server.results_body[batch_id] = "".join(line + "\n" for line in lines).encode()


def test_a_custom_id_twice_keeps_the_first_and_warns(server: MessagesServer, tmp_path: Path
                                                     ) -> None:
    batch_run(server, tmp_path)
    batch_id, results = _ended_results(server)
    first = results[0]
    changed = json.loads(json.dumps(first))
    tool = changed["result"]["message"]["content"][0]
    tool["input"] = {"verdicts": {rule: {"score": 0, "reason": "changed"}
                                  for rule in tool["input"]["verdicts"]}}
    _serve(server, batch_id, [json.dumps(r) for r in [*results, changed]])
    with pytest.warns(UserWarning, match=r"custom_id .* twice in batch msgbatch_"):
        run = batch_run(server, tmp_path)
    assert run.count("judged") == 6
    lines = [json.loads(x) for x in (tmp_path / "verdicts.jsonl").read_text().splitlines()]
    assert len(lines) == 6  # one cache line per hash
    kept = next(x for x in lines if x["hash"] == first["custom_id"])
    assert all(v["score"] != 0 for v in kept["rules"].values())  # the first result


def test_unknown_result_ids_are_counted_and_named(server: MessagesServer, tmp_path: Path
                                                  ) -> None:
    batch_run(server, tmp_path)
    batch_id, results = _ended_results(server)
    extra = [{"custom_id": "zzz", "result": {"type": "expired"}},
             {"custom_id": "f" * 64, "result": {"type": "expired"}}]
    _serve(server, batch_id, [json.dumps(r) for r in results + extra])
    run = batch_run(server, tmp_path)
    assert run.batch_dropped == 2


def test_a_result_line_with_a_duplicate_key_is_an_invalid_answer(
        server: MessagesServer, tmp_path: Path) -> None:
    batch_run(server, tmp_path)
    batch_id, results = _ended_results(server)
    text = json.dumps(results[0])
    # the same key twice inside the tool input: the answer contradicts itself
    broken = text.replace('"verdicts": {', '"verdicts": {"A1": {"score": 0, "reason": "x"}, ', 1)
    assert broken != text
    lines = [broken] + [json.dumps(r) for r in results[1:]]
    _serve(server, batch_id, lines)
    run = batch_run(server, tmp_path)
    # that one request is asked again live (invalid answer); the rest come from the batch
    assert run.count("judged") == 6
    assert [r.path for r in server.requests].count("/v1/messages") == 1
