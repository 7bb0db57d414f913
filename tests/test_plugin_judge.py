"""The LLM judges inside a real pytest run, against a loopback Messages API server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_server import (
    MessagesServer,
    PromptCache,
    Recorded,
    Reply,
    counted_twos,
    requested_rules,
    verdict_reply,
)
from judge_support import JUDGES_TOML, run_judged, write_ja_project

KEY = "sk-test-0123456789abcdefSECRET"


def responder(request: Recorded) -> Reply:
    """judge-a gives 2 everywhere; judge-b gives A6 = 1 on the output about Zoom."""
    rules = requested_rules(request.body)
    scores = dict.fromkeys(rules, 2)
    if request.body["model"] == "model-b" and "Zoom" in json.dumps(request.body,
                                                                    ensure_ascii=False):
        scores["A6"] = 1
    return verdict_reply(scores, input_tokens=1000, output_tokens=100)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_ja_project(pytester.path)
    pytester.makeini("[pytest]\ndictbench_suites = cases/ja\n")
    return pytester


def run(project: pytest.Pytester, server: MessagesServer, *args: str) -> pytest.RunResult:
    return run_judged(project, server, KEY, *args)


def report(project: pytest.Pytester) -> dict:
    return json.loads((project.path / "reports/dictbench.json").read_text(encoding="utf-8"))


def items(project: pytest.Pytester) -> list[dict]:
    text = (project.path / "reports/items.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_live_pending_decision_replay(project: pytest.Pytester) -> None:
    with MessagesServer(responder) as server:
        live = run(project, server, "--judge=live")
        assert len(server.requests) == 6  # 3 items x 2 judges
        assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.requests)

        # Every judged rule is filled except the one the judges disagree on.
        records = items(project)
        unjudged = [(r["case_id"], rule) for r in records
                    for rule, v in r["rules"].items() if v["source"] == "unjudged"]
        assert unjudged == [("ja-001", "A6")]
        pending = (project.path / "reports/adjudication-pending.jsonl").read_text()
        lines = [json.loads(line) for line in pending.splitlines()]
        assert [(p["case"], p["rule"]) for p in lines] == [("ja-001", "A6")]
        assert [(j["name"], j["score"]) for j in lines[0]["judges"]] == [
            ("judge-a", 2), ("judge-b", 1)]

        judging = report(project)["suites"][0]["products"][0]["judging"]
        assert judging["pending"] == 1
        # cost: 3 verdicts x (1000 x 3 + 100 x 15) / 1e6 for model-a, x (1000 + 500) for b
        assert judging["spend"]["model-a"]["cost_usd"] == pytest.approx(3 * 0.0045)
        # A6 was scored by both judges on 3 items and sent to a human once
        assert judging["adjudication"]["rules"]["A6"] == {"judged": 3, "sent": 1,
                                                          "share": 0.333333}
        assert judging["adjudication"]["rules"]["A1"]["sent"] == 0
        markdown = (project.path / "reports/dictbench.md").read_text(encoding="utf-8")
        assert "**Judging per rule**" in markdown
        assert any(line.replace(" ", "").startswith("|p|A6|3|1|0.333|")
                   for line in markdown.splitlines())
        assert "Judging per rule" in (project.path / "reports/dictbench.html").read_text(
            encoding="utf-8")
        assert judging["judge_models"] == {"judge-a": "anthropic:model-a",
                                           "judge-b": "anthropic:model-b"}
        assert judging["spend"]["model-b"]["cost_usd"] == pytest.approx(3 * 0.0015)
        assert judging["cost_usd"] == pytest.approx(0.018)
        n_rules = sum(len(r["rules"]) for r in records)
        overall = judging["agreement"]["overall"]
        assert (overall["n"], overall["agreed"]) == (n_rules, n_rules - 1)
        assert judging["agreement"]["rules"]["A6"]["agreed"] == 2

        # A human decides; the next run (replay: no requests) applies it.
        decision = dict(lines[0], score=2, reason="hedge kept", decided_by="tester")
        decision.pop("judges")
        (project.path / "judges/adjudications.jsonl").write_text(json.dumps(decision) + "\n")
        replay = run(project, server, "--judge=replay")
        assert len(server.requests) == 6
        a6 = next(r for r in items(project) if r["case_id"] == "ja-001")["rules"]["A6"]
        assert a6 == {"score": 2, "evidence": "hedge kept", "source": "human"}
        # nothing is pending any more: no empty pending file is left in reports/
        assert not (project.path / "reports/adjudication-pending.jsonl").exists()
        human = report(project)["suites"][0]["products"][0]["judging"]["human_agreement"]
        assert human["judge-a"]["agreed"] == 1 and human["judge-b"]["agreed"] == 0
        by_rule = report(project)["suites"][0]["products"][0]["judging"][
            "human_agreement_rules"]
        assert by_rule["judge-a"]["A6"]["agreed"] == 1 and by_rule["judge-b"]["A6"]["n"] == 1

        first = (project.path / "reports/dictbench.json").read_bytes()
        run(project, server, "--judge=replay")
        assert (project.path / "reports/dictbench.json").read_bytes() == first
        run(project, server, "--judge=live")  # warm cache: still no request
        assert len(server.requests) == 6
        assert (project.path / "reports/dictbench.json").read_bytes() == first

    # The key appears nowhere: files written, output printed.
    for path in project.path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    for result in (live, replay):
        assert KEY not in result.stdout.str() + result.stderr.str()


def test_replay_without_cache_leaves_rules_unjudged(project: pytest.Pytester) -> None:
    with MessagesServer(responder) as server:
        run(project, server)
        assert server.requests == []
    records = items(project)
    assert all(v["source"] != "judge" for r in records for v in r["rules"].values())
    assert any(v["source"] == "unjudged" for r in records for v in r["rules"].values())


def test_failing_judge_makes_an_error_never_a_score(project: pytest.Pytester) -> None:
    with MessagesServer(lambda request: Reply(status=500, body={"type": "error", "error": {
            "type": "api_error", "message": "down"}})) as server:
        result = run(project, server, "--judge=live", "-rE")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["*judge error: judge 'judge-a': InternalServerError*"])
    assert all(r["status"] == "error" and r["score"] is None for r in items(project))


def test_judge_audit_reports_self_consistency(project: pytest.Pytester) -> None:
    with MessagesServer(responder) as server:
        run(project, server, "--judge=live")
        assert len(server.requests) == 6
        run(project, server, "--judge=live", "--judge-audit=2")
        # 2 cached items re-judged by each judge: 4 fresh requests, the cache untouched
        assert len(server.requests) == 10
    judging = report(project)["suites"][0]["products"][0]["judging"]
    consistency = judging["self_consistency"]
    assert sorted(consistency) == ["judge-a", "judge-b"]
    for table in consistency.values():
        # the scripted judges answer the same way twice: full agreement
        assert table["overall"]["n"] == table["overall"]["agreed"] > 0


def test_judges_from_the_ini_file(project: pytest.Pytester) -> None:
    manifest = project.path / "cases/ja/suite.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text[:text.index("[judge]")], encoding="utf-8")
    (project.path / "judges.toml").write_text(JUDGES_TOML, encoding="utf-8")
    project.makeini("[pytest]\ndictbench_suites = cases/ja\n"
                    "dictbench_judge_config = judges.toml\n")
    with MessagesServer(responder) as server:
        run(project, server, "--judge=live")
        assert len(server.requests) == 6
    assert report(project)["suites"][0]["products"][0]["judging"]["pending"] == 1


def no_key_anywhere(project: pytest.Pytester, *results: pytest.RunResult) -> None:
    for path in project.path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    for result in results:
        assert KEY not in result.stdout.str() + result.stderr.str()


def test_batch_two_runs(project: pytest.Pytester) -> None:
    with MessagesServer(responder) as server:
        server.batch_delay = 60.0
        first = run(project, server, "--judge=batch")
        first.assert_outcomes(skipped=3)
        assert [r.path for r in server.requests].count("/v1/messages/batches") == 2
        assert "/v1/messages" not in [r.path for r in server.requests]
        records = items(project)
        assert all(r["status"] == "not_tested" and r["score"] is None for r in records)
        assert all("in batch msgbatch_" in r["message"] for r in records)
        entry = report(project)["suites"][0]["products"][0]
        assert entry.get("rank") is None
        assert (project.path / "judges/batches.json").is_file()

        # the batches end at their fourth status check; the run waits for them
        server.end_after_polls = 3
        second = run(project, server, "--judge=batch", "--judge-batch-wait=60")
        second.stdout.fnmatch_lines(["[[]judge[]] 2 batch(es) open: 0/6 requests done; "
                                     "waiting up to * s more"])
        assert "/v1/messages" not in [r.path for r in server.requests]
        assert all(r["status"] in ("passed", "failed") for r in items(project))
        judging = report(project)["suites"][0]["products"][0]["judging"]
        assert judging["pending"] == 1  # the same A6 disagreement as live mode
        assert judging["spend"]["model-a"]["cost_usd"] == pytest.approx(3 * 0.0045 / 2)
        sent = len(server.requests)
        third = run(project, server, "--judge=live")  # everything cached now
        assert len(server.requests) == sent
    no_key_anywhere(project, first, second, third)


def test_estimate_sends_nothing_then_matches_the_server(project: pytest.Pytester) -> None:
    with MessagesServer(counted_twos(PromptCache())) as server:
        local = run(project, server, "--judge-estimate")
        assert server.requests == [] and local.ret == 0
        assert not (project.path / "reports").exists()
        local.stdout.fnmatch_lines([
            "*judge estimate (input tokens estimated locally; nothing was sent*",
            "*judge-a (model-a): 3 uncached requests, * input tokens*live $*batch $*",
            "*total: 6 uncached requests*"])
        api = run(project, server, "--judge-estimate=api")
        assert [r.path for r in server.requests] == ["/v1/messages/count_tokens"] * 6
        counted = _tokens_line(api.stdout.str(), "judge-a")
        run(project, server, "--judge=live")
        billed = [r for r in server.requests if r.path == "/v1/messages"
                  and r.body["model"] == "model-a"]
        assert len(billed) == 3
        spend = report(project)["suites"][0]["products"][0]["judging"]["spend"]["model-a"]
        total = spend["input_tokens"] + spend["cache_write_tokens"] + spend["cache_read_tokens"]
        assert total == counted
        assert abs(_tokens_line(local.stdout.str(), "judge-a") - total) / total < 0.25
    no_key_anywhere(project, local, api)


def _tokens_line(text: str, judge: str) -> int:
    line = next(line for line in text.splitlines() if line.strip().startswith(judge))
    return int(line.split(" uncached requests, ")[1].split(" input tokens")[0])


def test_budget_stop_leaves_items_unscored(project: pytest.Pytester) -> None:
    manifest = project.path / "cases/ja/suite.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("max_attempts = 2", "max_attempts = 2\nbudget_usd = 0.0"),
                        encoding="utf-8")
    project.makeconftest("""
def pytest_configure(config):
    ledger = getattr(config, "workerinput", {}).get("dictbench_budget_ledger")
    if ledger:
        with open("ledgers.txt", "a") as seen:
            seen.write(ledger + "\\n")
""")
    for parallel in ((), ("-n", "2")):
        with MessagesServer(responder) as server:
            result = run(project, server, "--judge=live", *parallel)
            assert server.requests == []
        result.assert_outcomes(skipped=3)
        assert all(r["status"] == "not_tested" and "budget_usd" in r["message"]
                   for r in items(project))
    # under xdist both workers were given the one ledger, which is gone after the run
    ledgers = (project.path / "ledgers.txt").read_text().split()
    assert len(ledgers) == 2 and len(set(ledgers)) == 1
    assert not Path(ledgers[0]).parent.exists()


def test_mixed_families_in_one_run(project: pytest.Pytester) -> None:
    manifest = project.path / "cases/ja/suite.toml"
    with MessagesServer(responder) as server:
        text = manifest.read_text(encoding="utf-8").replace(
            'name = "judge-b"\nmodel = "model-b"',
            f'name = "judge-b"\nmodel = "model-b"\nfamily = "openai"\n'
            f'base_url = "{server.url}/v1"\napi_key_env = "OTHER_JUDGE_KEY"')
        manifest.write_text(text, encoding="utf-8")
        with pytest.MonkeyPatch.context() as env:
            env.setenv("OTHER_JUDGE_KEY", "other-" + KEY)
            result = run(project, server, "--judge=live")
        assert sorted(r.path for r in server.requests) == \
            ["/v1/chat/completions"] * 3 + ["/v1/messages"] * 3
    judging = report(project)["suites"][0]["products"][0]["judging"]
    assert judging["judge_models"] == {"judge-a": "anthropic:model-a",
                                       "judge-b": "openai:model-b@127.0.0.1"}  # J29: its own host
    assert judging["agreement"]["between"] == ["judge-a", "judge-b"]
    assert judging["pending"] == 1
    no_key_anywhere(project, result)
