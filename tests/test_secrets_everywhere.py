"""Secrets never leave through a text (issue 46; PV2, PL6, PL7, PL8): a property over
every writer and every outgoing request of real runs, serial and under ``-n 2``.

Each example draws fresh keys for a refine step (``REFINE_KEY``) and a Deepgram product
(``DG_KEY``) and plants them where a run meets them: in a recogniser's text (a cached
product, and the provider's answer), in a provider error that quotes part of the key,
and in a refine endpoint's error that quotes 41 characters of it. Then nothing the run
wrote (reports, items, JUnit XML, capture, refine and pytest caches) nor printed, and
no request it sent but the key's own header, holds any 12 consecutive characters of
either key. Fresh keys per run mean an earlier run of the same process cannot have
taught the xdist controller a key.
"""

from __future__ import annotations

import json
import shutil
import string
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from adapter_support import write_tone
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from judge_server import MessagesServer, Recorded, user_text
from judge_server import Reply as MessagesReply
from provider_servers import DeepgramFake, ProviderServer
from provider_servers import Reply as ProviderReply
from provider_servers import Request as ProviderRequest
from refine_support import tool_reply
from support import CANARY, jsonl

#: A leak is any run this long of a key (an independent check: all its substrings).
LEAK_RUN = 12

KEYS = st.text(string.ascii_letters + string.digits + "-_", min_size=28, max_size=64
               ).filter(lambda s: len(set(s)) >= 10).map(lambda s: f"sk-{s}")


def runs(key: str, size: int = LEAK_RUN) -> set[str]:
    return {key[i:i + size] for i in range(len(key) - size + 1)}


def leaks(text: str, keys: Iterable[str]) -> list[str]:
    return sorted(run for key in keys for run in runs(key) if run in text)


class EchoingDeepgram(DeepgramFake):
    """Deepgram that takes ``key``, says it back in c1's transcript (the longer audio
    is c2) and refuses c2 quoting 20 characters and the last 4 of it."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.auth = ("Authorization", f"Token {key}")
        self.key = key
        self.text = f"you said {key} ok"

    def answer(self, request: ProviderRequest) -> ProviderReply:
        if len(request.body) > 20000:  # c2: 0.8 s of 16-bit audio
            return ProviderReply(400, {"err_code": "INVALID_AUTH", "err_msg":
                                       f"Invalid credentials: {self.key[:20]}...{self.key[-4:]}"})
        return super().answer(request)


def refine_responder(key: str) -> Any:
    """Echo the text to rewrite; refuse c2's, quoting 41 characters of the key."""

    def respond(request: Recorded) -> MessagesReply:
        text = user_text(request.body or {})
        if "invoice" in text:
            return MessagesReply(status=400, body={"type": "error", "error": {
                "type": "invalid_request_error",
                "message": f"Incorrect API key provided: {key[:41]}"}})
        return tool_reply(text.split("<text>", 1)[-1].split("</text>", 1)[0])

    return respond


def write_project(root: Path, refine_url: str, dg_url: str, refine_key: str) -> None:
    for name in ("cases", "products", "reports", ".pytest_cache", "j.xml"):
        target = root / name
        if target.is_dir():
            shutil.rmtree(target)
        target.unlink(missing_ok=True)
    (root / "pytest.ini").write_text("[pytest]\ndictbench_suites = cases/mini\n")
    suite = root / "cases" / "mini"
    cases = [{"id": "c1", "reference": "hello there ok", "audio": "audio/c1.wav"},
             {"id": "c2", "reference": "send the invoice", "audio": "audio/c2.wav"}]
    write_tone(suite / "audio" / "c1.wav", seconds=0.5)
    write_tone(suite / "audio" / "c2.wav", seconds=0.8)
    (suite / "cases.jsonl").write_text(jsonl(dict(c, canary=CANARY) for c in cases))
    (suite / "suite.toml").write_text(
        f'id = "mini"\nversion = "1"\ntitle = "Mini"\nmethod = "error_rate"\n'
        f'locale = "en-US"\ncanary = "{CANARY}"\n[params]\nthreshold = 0.2\n')
    products = root / "products"
    (products / "rec").mkdir(parents=True)
    (products / "rec.toml").write_text('name = "rec"\nversion = "1"\nadapter = "cache"\n')
    (products / "rec" / "mini.jsonl").write_text(jsonl([
        {"case_id": "c1", "text": f"hello there {refine_key} ok"},
        {"case_id": "c2", "text": "send the invoice"}]))
    (products / "pf.toml").write_text(
        'name = "pf"\nversion = "1"\nadapter = "pipeline"\n[asr]\nproduct = "rec"\n'
        f'[[refine]]\nclient = "anthropic"\nmodel = "fixer"\nbase_url = "{refine_url}"\n'
        'api_key_env = "REFINE_KEY"\ntemplate = "Clean up: <text>{text}</text>"\n')
    (products / "dg.toml").write_text(
        'name = "dg"\nversion = "1"\nadapter = "deepgram"\n[settings]\n'
        f'base_url = "{dg_url}"\napi_key_env = "DG_KEY"\ntimeout_s = 10\n')


def every_text(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8", errors="replace")
            for p in root.rglob("*") if p.is_file() and p.suffix != ".wav"}


def request_texts(requests: Iterable[Any], auth: str) -> list[str]:
    """Everything a request carried but the key's own header."""
    texts = []
    for request in requests:
        body = request.body
        body = body.decode("latin-1") if isinstance(body, bytes) else json.dumps(body)
        headers = {k: v for k, v in request.headers.items() if k.lower() != auth}
        texts.append(f"{request.path}\n{json.dumps(headers)}\n{body}")
    return texts


def one_run(pytester: pytest.Pytester, refine_key: str, dg_key: str, *xdist: str) -> None:
    keys = (refine_key, dg_key)
    fake = EchoingDeepgram(dg_key)
    with MessagesServer(refine_responder(refine_key)) as refine, \
            ProviderServer(fake) as dg, pytest.MonkeyPatch.context() as env:
        env.setenv("REFINE_KEY", refine_key)
        env.setenv("DG_KEY", dg_key)
        write_project(pytester.path, refine.url, dg.url, refine_key)
        outputs = []
        for _ in range(1 if xdist else 2):  # serial: then again, on a warm refine cache
            result = pytester.runpytest(
                "--product=rec", "--product=pf", "--product=dg", "--junitxml=j.xml",
                "--dictbench-no-warmup", "-rA", *xdist)
            assert result.ret == 1, result.stdout.str()  # c2 errors; nothing refused
            outputs.append("\n".join(result.outlines + result.errlines))
            files = every_text(pytester.path)
            assert {"reports/items.jsonl", "reports/dictbench.json", "reports/dictbench.md",
                    "reports/dictbench.html", "j.xml", "products/dg/mini.jsonl"} <= set(files)
            assert any(name.startswith("products/.refine-cache/") for name in files)
            found = {name: leaks(text, keys) for name, text in files.items()
                     if name != "products/rec/mini.jsonl"}  # the planted input itself
            assert {name: runs for name, runs in found.items() if runs} == {}
            assert leaks(outputs[-1], keys) == []
            items = [json.loads(line) for line in
                     (pytester.path / "reports" / "items.jsonl").read_text().splitlines()]
            flagged = {r["product"] for r in items if r["case_id"] == "c1"
                       and (r.get("flags") or {}).get("redacted")}
            assert flagged == {"rec", "pf", "dg"}, items
        sent = request_texts(refine.requests, "authorization") + \
            request_texts(fake.requests, "authorization")
        assert [leaks(text, keys) for text in sent if leaks(text, keys)] == []
        assert len(refine.requests) >= 2 and len(fake.requests) >= 2  # c2 errors are retried
    assert "redacted" in outputs[0]  # the quoted errors are there, scrubbed


SETTINGS = settings(max_examples=2, deadline=None, derandomize=True,
                    phases=[Phase.explicit, Phase.generate],  # a pytester run per example
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@SETTINGS
@given(refine_key=KEYS, dg_key=KEYS)
def test_no_key_leaves_a_serial_run_cold_or_warm(pytester: pytest.Pytester, refine_key: str,
                                                 dg_key: str) -> None:
    one_run(pytester, refine_key, dg_key)


@SETTINGS
@given(refine_key=KEYS, dg_key=KEYS)
def test_no_key_leaves_a_run_on_two_workers(pytester: pytest.Pytester, refine_key: str,
                                            dg_key: str) -> None:
    """PL6: the controller writes what the workers send; it never built a client."""
    one_run(pytester, refine_key, dg_key, "-n", "2")


def test_keys_are_known_before_any_client_is_built(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    """PL6's cause: a [[refine]] step's key is registered when the product is loaded."""
    from pytest_dictbench.adapters.pipeline.sweep import load_products
    from pytest_dictbench.redact import scrub

    key = "sk-loaded-at-load-0123456789"
    monkeypatch.setenv("STEP_KEY_X", key)
    (tmp_path / "pfx.toml").write_text(
        'name = "pfx"\nversion = "1"\nadapter = "pipeline"\n[asr]\nproduct = "rec"\n'
        '[[refine]]\nclient = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'api_key_env = "STEP_KEY_X"\ntemplate = "{text}"\n')
    (tmp_path / "rec.toml").write_text('name = "rec"\nversion = "1"\nadapter = "cache"\n')
    assert scrub(key) == key
    load_products("pfx", tmp_path)
    assert scrub(f"a {key} b") == "a <redacted> b"


def test_a_judges_key_is_known_once_its_table_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Judges too: the key of a judge's api_key_env is scrubbed before any client exists."""
    from pytest_dictbench.judge.settings import parse_judge_settings
    from pytest_dictbench.redact import scrub

    key = "jk-judge-read-at-load-0123456789"
    monkeypatch.setenv("JUDGE_KEY_AT_LOAD", key)
    assert scrub(key) == key
    parse_judge_settings({"judges": [{
        "name": "j", "model": "m", "family": "openai", "base_url": "https://judge.test/v1",
        "api_key_env": "JUDGE_KEY_AT_LOAD", "price_in_per_mtok": 1.0,
        "price_out_per_mtok": 1.0}]})
    assert scrub(f"[{key}]") == "[<redacted>]"


def test_a_prompt_is_scrubbed_as_it_is_made() -> None:
    """PL7: every text to a model is a Prompt, and a Prompt holds no registered key."""
    from pytest_dictbench.judge.task import Prompt
    from pytest_dictbench.redact import register_secret

    key = "sk-prompt-key-0123456789abcdef"
    register_secret(key)
    prompt = Prompt(model="m", max_tokens=10, system=f"s {key}", user=f"the key is {key} ok",
                    tool_name="t", tool_description="d", tool_schema={}, answer_schema={})
    assert (prompt.system, prompt.user) == ("s <redacted>", "the key is <redacted> ok")


#: Settings that would carry a key into a name or a message: each must be refused at
#: load, without the key in anything printed or written.
PLACEMENTS = {
    "base_url query": lambda key: (
        "dg", 'name = "dg"\nversion = "1"\nadapter = "deepgram"\n[settings]\n'
        f'base_url = "http://127.0.0.1:9/v1?key={key}"\napi_key_env = "DG_KEY"\n'),
    "base_url user info": lambda key: (
        "dg", 'name = "dg"\nversion = "1"\nadapter = "deepgram"\n[settings]\n'
        f'base_url = "http://u:{key}@127.0.0.1:9"\napi_key_env = "DG_KEY"\n'),
    "sweep model": lambda key: (
        "grid", 'name = "grid"\nversion = "1"\n[sweep]\nasr = ["rec"]\n'
        'templates = ["clean.txt"]\n[[sweep.models]]\nclient = "openai"\n'
        f'model = "{key}"\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "REFINE_KEY"\n'),
    "provider model": lambda key: (
        "dg", 'name = "dg"\nversion = "1"\nadapter = "deepgram"\n[settings]\n'
        f'base_url = "http://127.0.0.1:9"\napi_key_env = "DG_KEY"\nmodel = "{key}"\n'),
    "refine model": lambda key: (
        "pk", 'name = "pk"\nversion = "1"\nadapter = "pipeline"\n[asr]\nproduct = "rec"\n'
        f'[[refine]]\nclient = "openai"\nmodel = "{key}"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'api_key_env = "REFINE_KEY"\ntemplate = "{text}"\n'),
}


@settings(max_examples=4, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(key=KEYS, placement=st.sampled_from(sorted(PLACEMENTS)), workers=st.booleans())
@example(key="sk-proj-PLANTED" + "y" * 120, placement="sweep model", workers=False)  # CF1
@example(key="AIzaPLANTED" + "g" * 28, placement="base_url query", workers=False)  # PV1
@example(key="sk-proj-PLANTED" + "y" * 120, placement="base_url user info", workers=True)
@example(key="sk-refine-model-0123456789abcdef", placement="refine model", workers=True)
@example(key="dg-model-key-0123456789abcdef", placement="provider model", workers=False)
def test_a_key_in_settings_is_refused_at_load_and_never_shown(
        pytester: pytest.Pytester, key: str, placement: str, workers: bool) -> None:
    name, toml = PLACEMENTS[placement](key)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("REFINE_KEY", key)
        env.setenv("DG_KEY", key)
        write_project(pytester.path, "http://127.0.0.1:9", "http://127.0.0.1:9", "plain")
        (pytester.path / "products" / "clean.txt").write_text("Clean: {text}\n")
        (pytester.path / "products" / f"{name}.toml").write_text(toml)
        result = pytester.runpytest(f"--product={name}", "--junitxml=j.xml",
                                    *(("-n", "2") if workers else ()))
    shown = "\n".join(result.outlines + result.errlines)
    # refused at load: a usage error, or collection errors (on each xdist worker)
    assert result.ret != pytest.ExitCode.OK and " passed" not in shown, shown
    assert any(word in shown for word in ("refine", "base_url", "label", "model"))
    files = {n: t for n, t in every_text(pytester.path).items()
             if not n.endswith(".toml") and n != "products/rec/mini.jsonl"}
    assert leaks(shown, [key]) == [] and {n: leaks(t, [key]) for n, t in files.items()
                                          if leaks(t, [key])} == {}
