"""A service that echoes its API key: the key reaches no file the run writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from adapter_support import write_tone
from http_stt_server import Recorded, Reply, SttServer
from support import CANARY, jsonl

from pytest_dictbench.files import append_line, atomic_write
from pytest_dictbench.judge.cache import VerdictCache
from pytest_dictbench.judge.records import RuleVerdict, Verdict
from pytest_dictbench.redact import REDACTED, register_secret, scrub

KEY = "sk-echo-0123456789-abcdef<&>\"q"


def every_written_text(root: Path) -> dict[str, str]:
    return {str(p): p.read_text(encoding="utf-8", errors="replace")
            for p in root.rglob("*") if p.is_file() and p.suffix != ".flac"}


def test_an_echoed_key_is_scrubbed_from_caches_records_and_reports(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICTBENCH_ECHO_KEY", KEY)

    def echo(request: Recorded) -> Reply:
        said = f"you said {request.headers['Authorization']}"
        if request.files["file"][0] == "c2.flac":
            return Reply(status=500, body={"error": said})
        return Reply(body={"text": said})

    root = pytester.path / "cases" / "mini"
    rows = []
    for case_id in ("c1", "c2"):
        write_tone(root / f"{case_id}.flac")
        rows.append({"id": case_id, "audio": f"{case_id}.flac", "canary": CANARY,
                     "reference": "you said hello"})
    (root / "cases.jsonl").write_text(jsonl(rows), encoding="utf-8")
    (root / "suite.toml").write_text(
        f'id = "mini"\nversion = "1"\ntitle = "Mini"\nmethod = "error_rate"\n'
        f'locale = "en-US"\ncanary = "{CANARY}"\n', encoding="utf-8")
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    with SttServer(echo) as server:
        (pytester.path / "products").mkdir()
        (pytester.path / "products" / "echo.toml").write_text(
            f'name = "echo"\nversion = "1"\nadapter = "http"\n[settings]\n'
            f'base_url = "{server.url}"\nmodel = "m"\napi_key_env = "DICTBENCH_ECHO_KEY"\n',
            encoding="utf-8")
        result = pytester.runpytest("--product=echo", "--junitxml=reports/junit.xml",
                                    "--dictbench-no-warmup")
    assert all(r.headers["Authorization"] == f"Bearer {KEY}" for r in server.requests)
    result.assert_outcomes(failed=1, errors=1)
    written = every_written_text(pytester.path)
    assert {Path(p).name for p in written} >= {
        "mini.jsonl", "items.jsonl", "dictbench.json", "dictbench.md", "dictbench.html",
        "junit.xml"}
    forms = [KEY, json.dumps(KEY)[1:-1], KEY.replace("<", "&lt;").replace("&", "&amp;")]
    leaks = [path for path, text in written.items() if any(f in text for f in forms)]
    assert leaks == []
    assert KEY not in result.stdout.str()
    cached = written[str(pytester.path / "products" / "echo" / "mini.jsonl")]
    assert f"you said Bearer {REDACTED}" in cached
    items = [json.loads(line) for line in
             (pytester.path / "reports" / "items.jsonl").read_text().splitlines()]
    scored = next(r for r in items if r["case_id"] == "c1")
    assert scored["flags"] == {"redacted": True}  # scored on a changed text: said so
    assert "secret redacted" in (pytester.path / "reports" / "dictbench.md").read_text()


def test_every_writer_scrubs_registered_secrets(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    register_secret("registered-secret-42")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-judge-key-77")
    register_secret("short")  # under MIN_SECRET_CHARS: ordinary text stays
    assert scrub("a registered-secret-42 and sk-ant-judge-key-77 short") == (
        f"a {REDACTED} and {REDACTED} short")
    atomic_write(tmp_path / "a.txt", "x registered-secret-42\n")
    append_line(tmp_path / "b.jsonl", '{"t": "sk-ant-judge-key-77"}')
    with VerdictCache(tmp_path / "verdicts.jsonl") as cache:
        cache.put(Verdict("judge-a", "model-a", "h1",
                          {"A1": RuleVerdict(2, "the key was sk-ant-judge-key-77")}))
    for path in tmp_path.iterdir():
        text = path.read_text(encoding="utf-8")
        assert "registered-secret-42" not in text and "sk-ant-judge-key-77" not in text
        assert REDACTED in text


def test_secrets_on_the_command_line_are_masked_in_run_info() -> None:
    from pytest_dictbench.redact import public_args
    args = ["--product=p1", "-d", "--tx", "popen//env:ANTHROPIC_API_KEY=sk-ant-PLANTED",
            "--tx=popen//env:STT_KEY=PLANTED2//python=python3", "--my-token=ghp_PLANTED3",
            "--api-key", "PLANTED4", "--keyword", "-k", "c1", "--tx", "popen"]
    assert public_args(args) == [
        "--product=p1", "-d", "--tx", f"popen//env:ANTHROPIC_API_KEY={REDACTED}",
        f"--tx=popen//env:STT_KEY={REDACTED}//python=python3", f"--my-token={REDACTED}",
        "--api-key", REDACTED, "--keyword", "-k", "c1", "--tx", "popen"]


def test_run_info_holds_no_command_line_secret(pytester: pytest.Pytester,
                                               write_suite, write_product) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite()
    write_product()
    pytester.runpytest("--product=p1", "-p", "xdist", "-d", "--tx",
                       "popen//env:ANTHROPIC_API_KEY=sk-ant-api03-PLANTED")
    info = (pytester.path / "reports" / "run-info.json").read_text()
    assert "PLANTED" not in info and f"ANTHROPIC_API_KEY={REDACTED}" in info
