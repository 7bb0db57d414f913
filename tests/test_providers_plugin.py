"""Provider products in real pytest runs: ``--product`` with a key captures through the
loopback fake, and ``--capture-estimate`` counts and prices captures with nothing sent."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from adapter_support import suite_with_audio, write_tone
from provider_servers import KEY, KEY_ENV, DeepgramFake, ProviderServer, provider_toml

CASES = [{"id": f"c{i}", "reference": "hello from the provider"} for i in range(1, 4)]


@pytest.fixture
def fake() -> DeepgramFake:
    return DeepgramFake()


@pytest.fixture
def server(fake: DeepgramFake) -> Iterator[ProviderServer]:
    with ProviderServer(fake) as running:
        yield running


@pytest.fixture
def project(pytester: pytest.Pytester, write_suite: Callable[..., Path],
            server: ProviderServer, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Suite ``mini`` (3 cases, 0.5 s of audio each) and a deepgram product ``dg``."""
    monkeypatch.setenv(KEY_ENV, KEY)
    suite_with_audio(write_suite, CASES, 0.5)
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    (pytester.path / "products").mkdir()
    (pytester.path / "products" / "dg.toml").write_text(
        provider_toml("dg", "deepgram", server.url), encoding="utf-8")
    return pytester


def test_capture_estimate_counts_and_prices_captures_and_sends_nothing(
        project: pytest.Pytester, fake: DeepgramFake) -> None:
    result = project.runpytest("--product=dg", "--capture-estimate", "-p", "no:cacheprovider")
    assert result.ret == 0
    # 3 x 0.5 s at the bundled 0.0043 USD per minute = 0.0001075
    result.stdout.fnmatch_lines([
        "*dictbench capture estimate*",
        "  dg [[]deepgram, nova-3]: 3 captures (0.03 audio minutes), 0 cached; $0.000108",
        "  total: 3 captures; $0.000108"])
    assert fake.requests == []


def test_a_provider_product_runs_by_name_and_its_cache_is_reused(
        project: pytest.Pytester, fake: DeepgramFake) -> None:
    result = project.runpytest("--product=dg", "--dictbench-no-warmup", "-p", "no:cacheprovider",
                               "--dictbench-report", "reports")
    result.assert_outcomes(passed=3)
    assert len(fake.requests) == 3 and fake.leaks == []
    report = json.loads((project.path / "reports" / "dictbench.json").read_text())
    [entry] = [p for s in report["suites"] for p in s["products"] if p["product"] == "dg"]
    # each capture's own cost (0.5 s at the bundled 0.0043 USD per minute), summed: the
    # product file has no [pricing]
    assert entry["cost"]["asr_cost_basis"] == "captures"
    # 0.0001075, published to 6 decimals
    assert entry["cost"]["asr_cost_usd"] == pytest.approx(3 * 0.5 * 0.0043 / 60, abs=5e-7)
    assert entry["cost"]["usd_per_audio_hour"] == pytest.approx(0.0043 * 60, rel=1e-2)
    [cache] = project.path.joinpath("products").rglob("mini.jsonl")
    lines = cache.read_text().splitlines()
    assert [json.loads(line)["provider"]["request_id"] for line in lines] == ["dg-req-1"] * 3
    for path in project.path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    again = project.runpytest("--product=dg", "--capture-estimate", "-p", "no:cacheprovider")
    again.stdout.fnmatch_lines(
        ["  dg [[]deepgram, nova-3]: 0 captures (0.00 audio minutes), 3 cached;*"])


def test_capture_estimate_refuses_xdist(project: pytest.Pytester) -> None:
    result = project.runpytest("--product=dg", "--capture-estimate", "-n", "2")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*--capture-estimate runs in one process*"])


TIMING = ("latency_ms", "rtf", "started_utc", "environment")


def test_reports_and_cache_lines_at_concurrency_1_and_8_are_the_same(
        project: pytest.Pytester, fake: DeepgramFake) -> None:
    product = project.path / "products" / "dg.toml"
    names = ("dictbench.json", "items.jsonl", "dictbench.md", "dictbench.html")
    runs = {}
    for concurrency in (1, 8):
        for old in project.path.joinpath("products").rglob("mini.jsonl"):
            old.unlink()
        product.write_text(product.read_text().split("concurrency")[0]
                           + f"concurrency = {concurrency}\n", encoding="utf-8")
        project.runpytest("--product=dg", "--dictbench-no-warmup", "-p", "no:cacheprovider"
                          ).assert_outcomes(passed=3)
        [cache] = project.path.joinpath("products").rglob("mini.jsonl")
        runs[concurrency] = [json.loads(line) for line in cache.read_text().splitlines()]
    one, eight = runs[1], runs[8]
    assert [line["settings"].pop("concurrency") for line in eight] == [8] * 3
    assert [line["settings"].pop("concurrency") for line in one] == [1] * 3
    # the same lines in the same order, but for when and how long each capture took
    strip = [{k: v for k, v in line.items() if k not in TIMING} for line in one]
    assert [{k: v for k, v in line.items() if k not in TIMING} for line in eight] == strip
    # reports from the two caches, timing fields made equal, are byte-identical
    reports = {}
    for concurrency, lines in ((1, one), (8, eight)):
        for line, first in zip(lines, one, strict=True):
            line.update({k: first[k] for k in TIMING})
        cache.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        project.runpytest("--product=dg", "-p", "no:cacheprovider").assert_outcomes(passed=3)
        reports[concurrency] = [(project.path / "reports" / n).read_bytes() for n in names]
    assert reports[1] == reports[8]
    assert len(fake.requests) == 6  # the report runs captured nothing


def test_captures_made_ahead_are_kept_when_the_run_stops_early(
        pytester: pytest.Pytester, write_suite: Callable[..., Path], server: ProviderServer,
        fake: DeepgramFake, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``-x`` the run stops after c1 fails; c2..c4 were already captured (and paid
    for) ahead, at concurrency 4: their lines are in the cache, whole, in plan order, and
    the next run sends only what is missing (c5); c1's score failed, not its capture, so
    it is served from the cache."""
    monkeypatch.setenv(KEY_ENV, KEY)
    cases = [{"id": f"c{i}", "reference": "hello from the provider"} for i in range(1, 6)]
    cases[0]["reference"] = "a completely different sentence"  # c1 fails its threshold
    suite_with_audio(write_suite, cases, 0.5)
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    (pytester.path / "products").mkdir()
    (pytester.path / "products" / "dg.toml").write_text(
        provider_toml("dg", "deepgram", server.url, timeout_s=30, extra="concurrency = 4\n"),
        encoding="utf-8")
    result = pytester.runpytest("--product=dg", "--dictbench-no-warmup", "-x",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, skipped=4)  # c2..c5: "not run: the run stopped early"
    assert len(fake.requests) == 4  # c1 and the three started ahead of it
    [cache] = pytester.path.joinpath("products").rglob("mini.jsonl")
    raw = cache.read_bytes()
    assert raw.endswith(b"\n")
    lines = [json.loads(line) for line in raw.decode().splitlines()]
    assert [line["case_id"] for line in lines] == ["c1", "c2", "c3", "c4"]
    assert {line["status"] for line in lines} == {"complete"}
    assert not list(cache.parent.glob("*.tmp*"))
    again = pytester.runpytest("--product=dg", "--dictbench-no-warmup", "-p", "no:cacheprovider")
    again.assert_outcomes(passed=4, failed=1)
    assert len(fake.requests) == 5  # only c5 was sent


def test_a_missing_key_is_one_preflight_error_naming_the_variable_and_products(
        project: pytest.Pytester, fake: DeepgramFake, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 44 (and CF24, plugin/keys.py): one usage error before any item runs, a line
    per product, not one error per item; --collect-only and --capture-estimate need no
    key."""
    monkeypatch.delenv(KEY_ENV)
    (project.path / "products" / "dg2.toml").write_text(
        (project.path / "products" / "dg.toml").read_text().replace('"dg"', '"dg2"'))
    result = project.runpytest("--product=dg", "--product=dg2", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: dictbench: environment variable {KEY_ENV} "
                                 "(api_key_env) is not set: products dg, dg2 need it to "
                                 "capture 6 items; export it, or leave the product out"])
    assert fake.requests == []
    assert project.runpytest("--product=dg", "--collect-only", "-p",
                             "no:cacheprovider").ret == 0
    assert project.runpytest("--product=dg", "--capture-estimate", "-p",
                             "no:cacheprovider").ret == 0



def test_a_capture_run_sets_its_spend_beside_the_estimate(
        project: pytest.Pytester, fake: DeepgramFake) -> None:
    """PV17: 3 captures of 0.5 s, billed 0.5 s each by the fake, at $0.0043 a minute."""
    result = project.runpytest("--product=dg", "--dictbench-no-warmup", "-p",
                               "no:cacheprovider", "--dictbench-report", "reports")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*dictbench captures: estimated and billed*",
                                 "dg: 3 captured; estimated $0.000108, billed $0.000108"])
    line = "dg: 3 captured; estimated $0.000108, billed $0.000108"
    reports = project.path / "reports"
    captured_md = (reports / "dictbench.md").read_text(encoding="utf-8")
    section = f"## Captures: estimated and billed\n\n- {line}\n\n"
    assert section in captured_md  # in the md as on the terminal
    assert line in (reports / "dictbench.html").read_text(encoding="utf-8")
    assert json.loads((reports / "dictbench.json").read_text())["capture_spend"] == [line]
    cached = project.runpytest("--product=dg", "--dictbench-no-warmup", "-p",
                               "no:cacheprovider", "--dictbench-report", "reports")
    assert "estimated and billed" not in cached.stdout.str()  # nothing captured
    cached_md = (reports / "dictbench.md").read_text(encoding="utf-8")
    assert "capture_spend" not in json.loads((reports / "dictbench.json").read_text())
    assert cached_md == captured_md.replace(section, "")  # otherwise the same bytes


def test_an_unsupported_items_reason_reaches_items_jsonl(
        pytester: pytest.Pytester, write_suite: Callable[..., Path], server: ProviderServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """PV20: ``items.jsonl`` says why, not just ``unsupported``."""
    monkeypatch.setenv(KEY_ENV, KEY)
    root = write_suite(cases=[{"id": "c1", "reference": "x", "audio": "audio/c1.aiff"}])
    write_tone(root / "audio" / "c1.aiff", seconds=0.5)
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    (pytester.path / "products").mkdir()
    (pytester.path / "products" / "oa.toml").write_text(
        'name = "oa"\nversion = "1"\nadapter = "openai"\n[settings]\nmodel = "whisper-1"\n'
        f'base_url = "{server.url}"\napi_key_env = "{KEY_ENV}"\n', encoding="utf-8")
    pytester.runpytest("--product=oa", "--dictbench-no-warmup", "-p", "no:cacheprovider",
                       "--dictbench-report", "reports")
    [item] = [json.loads(line) for line in
              (pytester.path / "reports" / "items.jsonl").read_text().splitlines()]
    assert item["output_status"] == "unsupported"
    assert item["message"].startswith("unsupported: .aiff audio is not a format whisper-1 "
                                      "accepts (")




def test_the_progress_line_never_counts_a_failed_item_as_cached(
        project: pytest.Pytester, fake: DeepgramFake, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 44: items that got no output because the product could not capture (here
    without httpx, PV15) are failed, not cached; the run goes on."""
    import sys

    monkeypatch.setitem(sys.modules, "httpx", None)
    result = project.runpytest("--product=dg", "--dictbench-no-warmup", "-p",
                               "no:cacheprovider", "--dictbench-progress=0.000001")
    lines = [line for line in result.outlines if line.startswith("dictbench capture dg")]
    assert lines[-1] == ("dictbench capture dg: 3/3 items (0 captured, 0 cached, "
                         "3 without output), 0.0 s audio, done"), lines
    result.stdout.fnmatch_lines(["*pip install 'pytest-dictbench?providers?'*"])
    assert fake.requests == []


def test_the_rank_reason_names_an_unsupported_item_and_why() -> None:
    """PV20: ``aiff1: unsupported (...)``, not ``aiff1: not_tested``."""
    from pytest_dictbench.ranking import _lacking

    record = {"case_id": "aiff1", "status": "not_tested", "output_status": "unsupported",
              "message": "unsupported: .aiff audio is not a format whisper-1 accepts (.wav)"}
    assert _lacking(record) == ("aiff1: unsupported (.aiff audio is not a format whisper-1 "
                                "accepts (.wav))")
    assert _lacking({"case_id": "c2", "status": "not_tested", "output_status": None,
                     "message": "no output"}) == "c2: not_tested"


def test_under_xdist_the_spend_lines_reach_the_controller(
        project: pytest.Pytester, fake: DeepgramFake) -> None:
    """Issue 44 (PV17 under ``-n``): the workers capture, and the controller prints and
    reports each product's spend in the order a serial run gives."""
    (project.path / "products" / "dg2.toml").write_text(
        (project.path / "products" / "dg.toml").read_text().replace('"dg"', '"dg2"'))
    result = project.runpytest("--product=dg", "--product=dg2", "-n", "2",
                               "--dictbench-no-warmup", "-p", "no:cacheprovider",
                               "--dictbench-report", "reports")
    assert result.ret == 0
    lines = [f"{name}: 3 captured; estimated $0.000108, billed $0.000108"
             for name in ("dg", "dg2")]
    result.stdout.fnmatch_lines(["*dictbench captures: estimated and billed*", *lines])
    report = json.loads((project.path / "reports" / "dictbench.json").read_text())
    assert report["capture_spend"] == lines
    assert len(fake.requests) == 6
