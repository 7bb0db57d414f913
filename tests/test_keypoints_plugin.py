"""The keypoints method inside real pytest runs: loopback judges, decisions, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from judge_server import MessagesServer, Recorded, Reply, message_body
from judge_support import JUDGES_TOML, run_judged

SUITE = Path(__file__).parents[1] / "cases" / "ja-journal"
KEY = "sk-test-keypoints-0123456789SECRET"


def key_point_ids(body: dict[str, Any]) -> list[str]:
    schema = body["tools"][0]["input_schema"]
    return list(schema["properties"]["key_points"]["required"])


def responder(request: Recorded) -> Reply:
    """judge-a: all present; judge-b: k2 contradicted on jr-01, else all present.

    Both list one insertion for the output that adds a sentence."""
    verdicts = {k: {"verdict": "present", "reason": "kept"} for k in key_point_ids(request.body)}
    text = request.body["messages"][0]["content"]
    if request.body["model"] == "model-b" and "吉祥寺" in text:
        verdicts["k2"] = {"verdict": "contradicted", "reason": "amount differs"}
    insertions = ["雨が降っていた"] if "雨が降っていた。" in text.split("<hypothesis>")[1] else []
    return Reply(body=message_body({"key_points": verdicts, "insertions": insertions},
                                   input_tokens=2000, output_tokens=200))


def _cases(n: int) -> list[dict[str, Any]]:
    lines = (SUITE / "cases.jsonl").read_text(encoding="utf-8").splitlines()[:n]
    return [json.loads(line) for line in lines]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """Suite ``jj`` with three journal cases and product ``p`` (one output adds a claim)."""
    cases = _cases(3)
    root = pytester.path / "cases" / "jj"
    root.mkdir(parents=True)
    (root / "cases.jsonl").write_text(
        "".join(json.dumps({k: v for k, v in c.items() if k != "audio"}, ensure_ascii=False)
                + "\n" for c in cases), encoding="utf-8")
    manifest = (SUITE / "suite.toml").read_text(encoding="utf-8").split("[judge]")[0]
    (root / "suite.toml").write_text(manifest + JUDGES_TOML, encoding="utf-8")
    products = pytester.path / "products"
    (products / "p").mkdir(parents=True)
    (products / "p.toml").write_text(
        'name = "p"\nversion = "1"\nadapter = "cache"\n[pricing]\n'
        'usd_per_audio_minute = 0.006\nsnapshot_date = "2026-11-30"\n')
    texts = [c["reference"] for c in cases]
    texts[2] += "雨が降っていた。"
    lines = [json.dumps({"case_id": c["id"], "text": t, "latency_ms": 1000 + 100 * n},
                        ensure_ascii=False) + "\n"
             for n, (c, t) in enumerate(zip(cases, texts, strict=True))]
    (products / "p" / "ja-journal.jsonl").write_text("".join(lines), encoding="utf-8")
    pytester.makeini("[pytest]\ndictbench_suites = cases/jj\n")
    return pytester


def run(project: pytest.Pytester, server: MessagesServer, *args: str) -> pytest.RunResult:
    return run_judged(project, server, KEY, "-p", "no:cacheprovider", *args)


def items(project: pytest.Pytester) -> dict[str, dict[str, Any]]:
    text = (project.path / "reports/items.jsonl").read_text(encoding="utf-8")
    return {r["case_id"]: r for r in map(json.loads, text.splitlines())}


def entry(project: pytest.Pytester) -> dict[str, Any]:
    report = json.loads((project.path / "reports/dictbench.json").read_text(encoding="utf-8"))
    return report["suites"][0]["products"][0]


def test_loopback_judges_end_to_end(project: pytest.Pytester) -> None:
    with MessagesServer(responder) as server:
        run(project, server, "--judge=live")
        assert len(server.requests) == 6  # 3 items x 2 judges
        body = server.requests[0].body
        assert body["tools"][0]["name"] == "record_verdicts"
        assert "key point guide keypoints-1.0.0" in body["system"][0]["text"]
        sent = json.dumps([r.body for r in server.requests], ensure_ascii=False)
        assert '"p"' not in sent and "products" not in sent  # never the product name
        verdicts = (project.path / "judges/verdicts.jsonl").read_text().splitlines()
        assert len(verdicts) == 6

        records = items(project)
        # jr-01: the judges disagree on k2 -> pending, provisional, no score
        first = records["jr-01"]
        assert first["score"] is None and first["metrics"]["provisional"] == 1
        assert first["provisional"] == 1  # the top-level count agrees (one unjudged: k2)
        assert first["rules"]["k2"]["source"] == "unjudged"
        pending = [json.loads(x) for x in
                   (project.path / "reports/adjudication-pending.jsonl").read_text().splitlines()]
        assert [(p["case"], p["rule"]) for p in pending] == [("jr-01", "k2")]
        # jr-02: all present, no insertion: F-beta 1, names identical -> 100
        assert records["jr-02"]["score"] == pytest.approx(100.0)
        # jr-03: one insertion: precision 4/5, recall 1 -> F1 8/9; names unchanged (1.0)
        third = records["jr-03"]["metrics"]
        assert third["insertions"] == 1 and third["fbeta"] == pytest.approx(8 / 9)
        assert records["jr-03"]["score"] == pytest.approx(100 * (0.3 + 0.7 * 8 / 9))
        product = entry(project)
        assert product["rank"] is None  # a pending verdict keeps it out of the ranking
        assert product["tables"]["summary"]["provisional"] == 1
        cost = product["cost"]
        # judge cost: 3 x (2000 x 3 + 200 x 15)/1e6 + 3 x (2000 + 1000)/1e6
        assert cost["judge_cost_usd"] == pytest.approx(3 * 0.009 + 3 * 0.003)
        audio = sum(c["duration_s"] for c in _cases(3))
        assert cost["asr_cost_usd"] == pytest.approx(0.006 * audio / 60, abs=1e-6)  # rounded

        # A human decides k2; the replay run applies it without a request.
        decision = dict(pending[0], score=2, reason="same amount", decided_by="tester")
        decision.pop("judges")
        (project.path / "judges/adjudications.jsonl").write_text(json.dumps(decision) + "\n")
        run(project, server, "--judge=replay")
        assert len(server.requests) == 6
        first = items(project)["jr-01"]
        assert first["rules"]["k2"]["source"] == "human"
        assert first["score"] == pytest.approx(100.0)
        # nothing waits for a person: no pending list (an empty one is not written)
        assert not (project.path / "reports/adjudication-pending.jsonl").exists()

        reports = ("dictbench.json", "dictbench.md", "dictbench.html", "items.jsonl")
        before = {n: (project.path / "reports" / n).read_bytes() for n in reports}
        run(project, server, "--judge=live")  # warm cache: no request
        assert len(server.requests) == 6
        run(project, server, "--judge=live", "-n", "2")
        assert len(server.requests) == 6
        for name in reports:
            assert (project.path / "reports" / name).read_bytes() == before[name], name
    for path in project.path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_judging_off_leaves_items_provisional_with_names(project: pytest.Pytester) -> None:
    with MessagesServer(responder) as server:
        result = run(project, server, "--judge=off", "-rs")
        assert server.requests == []
    result.assert_outcomes(skipped=3)  # provisional: never a pass (J38)
    result.stdout.fnmatch_lines(["*provisional: * unjudged (k1, *insertions): no verdict*"])
    records = items(project)
    assert all(r["score"] is None and r["metrics"]["names_f1"] == 1.0
               for r in records.values())
    summary = entry(project)["tables"]["summary"]
    assert summary["overall"] is None and summary["provisional"] == 3
    assert summary["names_f1"] == pytest.approx(1.0)


def test_invalid_keypoint_answer_is_retried_then_provisional(project: pytest.Pytester
                                                             ) -> None:
    """J30: a key point left out of both attempts leaves the item provisional (names
    figures shown, unranked, never a score) with the judge error in its message."""
    def partial(request: Recorded) -> Reply:
        points = key_point_ids(request.body)[:2]
        return Reply(body=message_body({"key_points": {
            k: {"verdict": "present", "reason": "kept"} for k in points}, "insertions": []}))

    with MessagesServer(partial) as server:
        result = run(project, server, "--judge=live")
        assert len(server.requests) == 12  # 3 items x 2 judges x 2 attempts
    result.assert_outcomes(skipped=3)
    for record in items(project).values():
        assert record["score"] is None and record["metrics"]["names_f1"] == 1.0
        assert record["provisional"] > 0
        assert "judge error" in record["message"] and "required" in record["message"]
    assert entry(project)["rank"] is None


def _write(pytester: pytest.Pytester, cases: list[dict[str, Any]],
           outputs: list[dict[str, Any]]) -> None:
    root = pytester.path / "cases" / "jj"
    root.mkdir(parents=True, exist_ok=True)
    (root / "cases.jsonl").write_text("".join(json.dumps(c, ensure_ascii=False) + "\n"
                                              for c in cases), encoding="utf-8")
    manifest = (SUITE / "suite.toml").read_text(encoding="utf-8").split("[judge]")[0]
    (root / "suite.toml").write_text(manifest, encoding="utf-8")
    (pytester.path / "products/p").mkdir(parents=True, exist_ok=True)
    (pytester.path / "products/p.toml").write_text(
        'name = "p"\nversion = "1"\nadapter = "cache"\n')
    (pytester.path / "products/p/ja-journal.jsonl").write_text(
        "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in outputs), encoding="utf-8")
    pytester.makeini("[pytest]\ndictbench_suites = cases/jj\n")


def _case(case_id: str, **changes: Any) -> dict[str, Any]:
    case = {k: v for k, v in _cases(1)[0].items() if k != "audio"}
    return {**case, "id": case_id, **changes}


@pytest.mark.parametrize("change, message", [
    ({"key_points": []}, "*cases.jsonl:2: case 'c2': *key_points*"),
    ({"key_points": [{"id": "k1", "text": "a", "severity": "minor"},
                     {"id": "k1", "text": "b", "severity": "critical"}]},
     "*cases.jsonl:2: case 'c2': duplicate key point id 'k1'*"),
    ({"key_points": [{"id": "k1", "text": "a", "severity": "major"}]},
     "*cases.jsonl:2: case 'c2': *'major' is not one of*"),
])
def test_bad_cases_are_refused_with_file_and_line(
        pytester: pytest.Pytester, change: dict[str, Any], message: str) -> None:
    _write(pytester, [_case("c1"), _case("c2", **change)], [])
    result = pytester.runpytest_subprocess("--product=p", "-p", "no:cacheprovider")
    assert result.ret != 0
    result.stdout.fnmatch_lines([message])


def test_empty_transcript_and_provider_error(pytester: pytest.Pytester) -> None:
    _write(pytester, [_case("c1"), _case("c2")], [
        {"case_id": "c1", "text": ""},
        {"case_id": "c2", "status": "error", "error": "413 audio too long"}])
    result = pytester.runpytest_subprocess("--product=p", "-p", "no:cacheprovider",
                                           "--dictbench-item-failures=report")
    result.assert_outcomes(passed=1, errors=1)
    records = items(pytester)
    assert records["c1"]["score"] == 0.0 and records["c1"]["empty"] is True
    assert records["c2"]["status"] == "error" and records["c2"]["score"] is None
    product = entry(pytester)
    assert (product["empty"], product["errors"]) == (1, 1)
    assert product["tables"]["summary"]["empty"] == 1
    assert product["cost"]["missing"] == ["no [pricing] usd_per_audio_minute"]


