"""The security findings one by one, in real runs against loopback fakes: a key written
into a URL (PV1), a signed redirect (PV3), metadata addresses and padded URLs (PV4),
a private suite's audio (PV5), a key as a model label or a case id (CF1)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from adapter_support import suite_with_audio
from provider_servers import KEY, KEY_ENV, DeepgramFake, ProviderServer, Reply, provider_toml

from pytest_dictbench.adapters.providers.client import ProviderClient, check_base_url
from pytest_dictbench.redact import REDACTED, register_secret

CASES = [{"id": f"c{i}", "reference": "hello from the provider"} for i in (1, 2)]
GEMINI_KEY = "AIzaPLANTED" + "g" * 28
OPENAI_KEY = "sk-proj-PLANTED" + "y" * 120


@pytest.fixture
def fake() -> DeepgramFake:
    return DeepgramFake()


@pytest.fixture
def server(fake: DeepgramFake) -> Iterator[ProviderServer]:
    with ProviderServer(fake) as running:
        yield running


@pytest.fixture
def project(pytester: pytest.Pytester, write_suite: Callable[..., Path],
            monkeypatch: pytest.MonkeyPatch) -> Callable[..., pytest.Pytester]:
    """Suite ``mini`` (2 cases with audio; ``extra`` goes into suite.toml) and the
    product files given as ``name=toml``."""
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)

    def make(extra: str = "", **products: str) -> pytest.Pytester:
        suite_with_audio(write_suite, CASES, 0.5, extra=extra)
        pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
        (pytester.path / "products").mkdir(exist_ok=True)
        for name, toml in products.items():
            (pytester.path / "products" / f"{name}.toml").write_text(toml, encoding="utf-8")
        return pytester

    return make


def everything(pytester: pytest.Pytester, result: pytest.RunResult) -> str:
    """The run's terminal output and every text file it left (not its inputs: the
    product and suite files)."""
    files = [p.read_text(errors="replace") for p in pytester.path.rglob("*")
             if p.is_file() and p.suffix not in (".wav", ".toml") and p.name != "cases.jsonl"]
    return "\n".join([*result.outlines, *result.errlines, *files])


@pytest.mark.parametrize("mode", [(), ("--collect-only", "-q"), ("--capture-estimate",)])
@pytest.mark.parametrize("kind, url, key", [
    ("gemini", "http://127.0.0.1:9/v1beta?key=" + GEMINI_KEY, GEMINI_KEY),
    ("openai", "http://127.0.0.1:9/v1?api-key=" + OPENAI_KEY, OPENAI_KEY),
    ("openai", f"http://user:{OPENAI_KEY}@127.0.0.1:9/v1", OPENAI_KEY)])
def test_a_key_in_base_url_is_refused_without_quoting_it(
        project: Callable[..., pytest.Pytester], mode: tuple[str, ...], kind: str, url: str,
        key: str) -> None:
    """PV1: the refusal quotes the URL with query values and user info redacted, and says
    where the key belongs."""
    pytester = project(x=provider_toml("x", kind, url, model="whisper-1" if kind == "openai"
                                  else ""))
    result = pytester.runpytest("--product=x", "--junitxml=j.xml", "-p", "no:cacheprovider",
                                *mode)
    assert result.ret != 0
    shown = everything(pytester, result)
    assert key[:12] not in shown
    assert REDACTED in shown and "api_key_env" in shown and "products/x.toml" in shown


def test_a_redirect_is_quoted_without_its_signature(
        project: Callable[..., pytest.Pytester], fake: DeepgramFake,
        server: ProviderServer) -> None:
    """PV3: the Location's query (a pre-signed URL) never reaches a cache or report."""
    fake.faults = [Reply(302, {}, headers={
        "Location": "http://127.0.0.1:9/v2/upload?sig=SIGNED0123456789"})] * 2
    pytester = project(dg=provider_toml("dg", "deepgram", server.url))
    result = pytester.runpytest("--product=dg", "--dictbench-no-warmup", "--junitxml=j.xml",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=0, errors=2)
    shown = everything(pytester, result)
    assert "SIGNED0123456789" not in shown
    assert f"/v2/upload?sig={REDACTED}" in shown and "redirects are refused" in shown


@pytest.mark.parametrize("url, named", [
    ("https://169.254.169.254/latest", "'169.254.169.254' is a link-local or cloud metadata"),
    ("https://[fd00:ec2::254]/", "'fd00:ec2::254' is a link-local"),
    ("https://2852039166/", "'2852039166' is a link-local"),
    ("https://[::ffff:169.254.169.254]/", "is a link-local"),
    ("https://[fe80::1]/", "'fe80::1' is a link-local"),
    ("http://metadata.google.internal./v1", "'metadata.google.internal' is a link-local"),
    ("http://127.0.0.1:9/v1\r\nX-Evil: 1", "control character in it ('\\r')"),
    (" http://127.0.0.1:9 ", "whitespace or a control character around it"),
    ("http://127.0.0.1:9/v1\t", "around it"),
])
def test_metadata_addresses_and_padded_urls_are_refused(url: str, named: str) -> None:
    """PV4: whatever the scheme, with or without a key."""
    for has_key in (True, False):
        problem = check_base_url(url, has_key)
        assert problem is not None and named in problem


def test_a_metadata_base_url_is_refused_at_load_naming_the_product_file(
        project: Callable[..., pytest.Pytester]) -> None:
    """PV4: nothing is sent; the product file and the host are named."""
    pytester = project(dg=provider_toml("dg", "deepgram", "https://169.254.169.254/latest"))
    result = pytester.runpytest("--product=dg", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*products/dg.toml*'169.254.169.254' is a link-local or "
                                 "cloud metadata address*"])


def test_ordinary_roots_still_pass() -> None:
    for url in ("https://api.deepgram.com", "http://127.0.0.1:8080/v1",
                "https://proxy.example.com/deepgram", "http://[::1]:9/"):
        assert check_base_url(url, True) is None, url


def test_a_private_suite_is_not_sent_to_a_cloud_kind_without_opt_in(
        project: Callable[..., pytest.Pytester], fake: DeepgramFake,
        server: ProviderServer) -> None:
    """PV5: refused at load, naming the product, the provider's host and the setting;
    ``cloud_providers`` in suite.toml lets it through."""
    pytester = project(extra="private = true", dg=provider_toml("dg", "deepgram", server.url))
    result = pytester.runpytest("--product=dg", "--dictbench-no-warmup", "-p",
                                "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    host = server.url.split("://", 1)[1]
    result.stdout.fnmatch_lines([f"*products/dg.toml*suite 'mini' is private: its audio "
                                 f"would be sent to Deepgram at http://{host}; to allow it, "
                                 "add cloud_providers = [[]\"deepgram\"[]] to *suite.toml*"])
    assert fake.requests == []
    allowed = project(extra='private = true\ncloud_providers = ["deepgram"]')
    again = allowed.runpytest("--product=dg", "--dictbench-no-warmup", "-p",
                              "no:cacheprovider")
    again.assert_outcomes(passed=2)
    assert len(fake.requests) == 2


def test_a_sweep_model_equal_to_a_key_is_refused_without_printing_it(
        project: Callable[..., pytest.Pytester]) -> None:
    """CF1: the label (default: the model) would be in every node id and JUnit name."""
    pytester = project()
    prompts = pytester.path / "products" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "clean.txt").write_text("Clean up: {text}\n")
    (pytester.path / "products" / "p1.toml").write_text(
        'name = "p1"\nversion = "1"\nadapter = "cache"\n')
    (pytester.path / "products" / "grid.toml").write_text(
        'name = "grid"\nversion = "1"\n[sweep]\nasr = ["p1"]\n'
        'templates = ["prompts/clean.txt"]\n[[sweep.models]]\nclient = "openai"\n'
        f'model = "{OPENAI_KEY}"\nbase_url = "http://127.0.0.1:9/v1"\n')
    result = pytester.runpytest("--product=grid", "--junitxml=j.xml", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*products/grid.toml: [[][[]sweep.models[]][]] 1: the label "
                                 "(default: the model) holds the value of OPENAI_API_KEY; "
                                 "give a label"])
    assert OPENAI_KEY[:16] not in everything(pytester, result)


def test_a_case_id_holding_a_key_is_refused_before_any_node_id(
        project: Callable[..., pytest.Pytester], server: ProviderServer) -> None:
    """A node id is printed and written by pytest: no name in it may hold a key."""
    pytester = project(dg=provider_toml("dg", "deepgram", server.url))
    cases = pytester.path / "cases" / "mini" / "cases.jsonl"
    cases.write_text(cases.read_text().replace('"c2"', f'"{KEY}"'))
    result = pytester.runpytest("--product=dg", "--junitxml=j.xml", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([f"*case at line 2 of cases.jsonl: its id, genre or tag holds "
                                 f"the value of {KEY_ENV} (a key)*"])
    assert KEY[:16] not in everything(pytester, result)


def test_a_providers_partial_quote_of_the_key_is_scrubbed() -> None:
    """PV2: 8 or more characters of the key in a provider's message are not kept."""
    key = "feedface" * 5
    register_secret(key)
    client = ProviderClient("Deepgram", "http://127.0.0.1:9", key, ("Authorization", "{key}"),
                            5.0)
    try:
        assert client.scrubbed(f"Invalid credentials: {key[:20]}...{key[-4:]}") == \
            f"Invalid credentials: {REDACTED}...face"
        assert client.scrubbed("Incorrect API key provided: feedface*****face") == \
            f"Incorrect API key provided: {REDACTED}*****face"
    finally:
        client.close()


def test_a_key_sent_elsewhere_than_the_documented_root_is_said_first(
        project: Callable[..., pytest.Pytester], fake: DeepgramFake,
        server: ProviderServer) -> None:
    """PV4: the host a key goes to is named once, in the header, before any request."""
    pytester = project(dg=provider_toml("dg", "deepgram", server.url))
    result = pytester.runpytest("--product=dg", "--dictbench-no-warmup", "-p",
                                "no:cacheprovider")
    host = server.url.split("://", 1)[1]
    result.stdout.fnmatch_lines([
        "dictbench: suites cases/mini; products dg",
        f"dictbench: dg sends its key and audio to http://{host}, not to Deepgram's "
        "documented https://api.deepgram.com",
        "collected 2 items"])
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize("url", ["https://169.254.169.254/v1", "https://api.test/v1\n"])
def test_judges_and_refine_steps_refuse_the_same_urls_at_load(url: str, tmp_path: Path) -> None:
    """PV4 for every client that sends a key: a judge's base_url, a refine step's."""
    from pytest_dictbench.adapters.pipeline.steps import read_steps
    from pytest_dictbench.errors import JudgeError, ProductError
    from pytest_dictbench.judge.settings import parse_judge_settings

    with pytest.raises(JudgeError, match=r"link-local|control character"):
        parse_judge_settings({"judges": [{"name": "j", "model": "m", "family": "openai",
                                          "base_url": url}]})
    with pytest.raises(ProductError, match=r"base_url .*(link-local|control character)"):
        read_steps([{"client": "openai", "model": "m", "base_url": url,
                     "template": "{text}"}], tmp_path / "p.toml")
