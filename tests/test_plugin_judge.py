"""The LLM judges inside a real pytest run, against a loopback Messages API server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_server import MessagesServer, Recorded, Reply, requested_rules, verdict_reply

SUITE = Path(__file__).parents[1] / "cases" / "ja-dictation"
KEY = "sk-test-0123456789abcdefSECRET"
JUDGES = """
[judge]
concurrency = 4
timeout = 5.0
max_attempts = 2
base_delay = 0.01

[[judge.judges]]
name = "judge-a"
model = "model-a"
price_in_per_mtok = 3.0
price_out_per_mtok = 15.0

[[judge.judges]]
name = "judge-b"
model = "model-b"
price_in_per_mtok = 1.0
price_out_per_mtok = 5.0
"""


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
    lines = (SUITE / "cases.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    cases = [json.loads(line) for line in lines]
    root = pytester.path / "cases" / "ja"
    root.mkdir(parents=True)
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    manifest = (SUITE / "suite.toml").read_text(encoding="utf-8").split("[[files]]")[0]
    (root / "suite.toml").write_text(manifest + JUDGES, encoding="utf-8")
    products = pytester.path / "products"
    (products / "p").mkdir(parents=True)
    (products / "p.toml").write_text('name = "p"\nversion = "1"\nadapter = "cache"\n')
    # Drop the final 。 so no output is a known answer and every item needs the judges.
    outputs = [{"case_id": c["id"], "text": c["expected"][0].rstrip("。")} for c in cases]
    (products / "p" / "ja-dictation.jsonl").write_text(
        "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in outputs), encoding="utf-8")
    pytester.makeini("[pytest]\ndictbench_suites = cases/ja\n")
    return pytester


def run(project: pytest.Pytester, server: MessagesServer, *args: str) -> pytest.RunResult:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", KEY)
        env.setenv("ANTHROPIC_BASE_URL", server.url)
        return project.runpytest_subprocess("--product=p", *args)


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
        assert (project.path / "reports/adjudication-pending.jsonl").read_text() == ""
        human = report(project)["suites"][0]["products"][0]["judging"]["human_agreement"]
        assert human["judge-a"]["agreed"] == 1 and human["judge-b"]["agreed"] == 0

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
    (project.path / "judges.toml").write_text(JUDGES, encoding="utf-8")
    project.makeini("[pytest]\ndictbench_suites = cases/ja\n"
                    "dictbench_judge_config = judges.toml\n")
    with MessagesServer(responder) as server:
        run(project, server, "--judge=live")
        assert len(server.requests) == 6
    assert report(project)["suites"][0]["products"][0]["judging"]["pending"] == 1
