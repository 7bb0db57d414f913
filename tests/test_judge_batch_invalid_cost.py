"""The tokens of a batch answer that was unusable (no tool call) and judged again live
are part of the product's judge cost (J7): docs/judge.md, "Tokens of invalid answers are
counted", holds for batch answers too."""

from __future__ import annotations

import json

import pytest
from judge_server import MessagesServer, Recorded, Reply, requested_rules, verdict_reply
from judge_support import JUDGES_TOML, run_judged, write_ja_project

KEY = "sk-test-0123456789abcdefSECRET"
ONE_JUDGE = JUDGES_TOML.split("[[judge.judges]]\nname = \"judge-b\"")[0]


def _twos(request: Recorded) -> Reply:
    return verdict_reply(dict.fromkeys(requested_rules(request.body), 2),
                         input_tokens=1000, output_tokens=100)


def _text_only() -> Reply:
    return Reply(body={
        "id": "msg_text", "type": "message", "role": "assistant", "model": "model-a",
        "content": [{"type": "text", "text": "I would rather not use the tool."}],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 1000, "output_tokens": 100}})


def test_an_invalid_batch_answer_is_billed_in_the_product_cost(pytester: pytest.Pytester
                                                               ) -> None:
    write_ja_project(pytester.path, judges=ONE_JUDGE)
    pytester.makeini("[pytest]\ndictbench_suites = cases/ja\n")
    with MessagesServer(_twos) as server:
        server.batch_delay = 60.0
        run_judged(pytester, server, KEY, "--judge=batch").assert_outcomes(skipped=3)
        server.batch_delay = 0.0
        server.script(_text_only())  # the first request of the batch: no tool call
        second = run_judged(pytester, server, KEY, "--judge=batch")
        assert [r.path for r in server.requests].count("/v1/messages") == 1  # asked live
    second.assert_outcomes(passed=3)
    report = json.loads((pytester.path / "reports/dictbench.json").read_text("utf-8"))
    judging = report["suites"][0]["products"][0]["judging"]
    # judge-a: 1000 in x $3 + 100 out x $15 per Mtok = $0.0045 live, half in a batch;
    # three batch answers (one unusable) and the live one
    assert judging["cost_usd"] == pytest.approx(3 * 0.0045 / 2 + 0.0045)
    assert judging["spend"]["model-a"]["input_tokens"] == 4000
