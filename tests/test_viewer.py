"""``dictbench view``: the results store in a browser (issue 42). Three real pytest runs
are recorded in the store; the viewer serves them on 127.0.0.1 behind the session token,
and real Chromium reads the runs, the trend with its drop, a run's report and its items."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from adapter_support import suite_with_audio
from support import MINI_CASES
from workbench_support import browser, require_chromium

from pytest_dictbench.store import open_store, store_location
from pytest_dictbench.viewer.detail import item_page
from pytest_dictbench.viewer.pages import trend_chart
from pytest_dictbench.viewer.server import COOKIE, Viewer, address, make_viewer_server
from pytest_dictbench.viewer.suites import SuiteShelf

RIGHT = [{"case_id": c["id"], "text": c["reference"]} for c in MINI_CASES]
WRONG = [{"case_id": c["id"], "text": "something else entirely"} for c in MINI_CASES]


@pytest.fixture
def three_runs(pytester: pytest.Pytester, write_suite: Callable[..., Path],
               write_product: Callable[..., Path]) -> pytest.Pytester:
    """Runs of p1 on mini: all right, all right, all wrong (the drop), each recorded."""
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    suite_with_audio(write_suite, MINI_CASES, 0.2)
    for outputs in (RIGHT, RIGHT, WRONG):
        write_product("p1", outputs=outputs)
        pytester.runpytest("--product=p1", "-p", "no:cacheprovider")
    return pytester


@contextlib.contextmanager
def viewing(root: Path) -> Iterator[tuple[Any, Viewer]]:
    store = open_store(store_location(".dictbench/store.sqlite", root))
    viewer = Viewer(store, shelf=SuiteShelf(root), resamples=2000)
    server = make_viewer_server(viewer)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield server, viewer
    finally:
        server.shutdown()
        server.server_close()
        store.close()


def get(server: Any, path: str, headers: dict[str, str] | None = None
        ) -> tuple[int, dict[str, str], bytes]:
    port = server.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}", **(headers or {})})
    answer = conn.getresponse()
    body = answer.read()
    conn.close()
    return answer.status, dict(answer.getheaders()), body


def watched_page(chromium: Any) -> tuple[Any, list[str]]:
    """A 1400 x 900 page and the list its script errors and console errors go to."""
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return page, errors


def test_every_page_needs_the_token_and_the_loopback_host(three_runs: pytest.Pytester) -> None:
    with viewing(three_runs.path) as (server, viewer):
        assert server.server_address[0] == "127.0.0.1"
        for path in ("/", "/api/runs", "/trend?suite=mini&product=p1", "/static/viewer.css"):
            status, _, body = get(server, path)
            assert status == 403, path
            assert b"carries the session token" in body
        assert get(server, "/?token=wrong")[0] == 403
        status, headers, _ = get(server, f"/trend?suite=mini&product=p1&token={viewer.token}")
        assert status == 303 and headers["Location"] == "/trend?suite=mini&product=p1"
        assert headers["Set-Cookie"] == (f"{COOKIE}={viewer.token}; HttpOnly; "
                                         "SameSite=Strict; Path=/")
        cookie = {"Cookie": f"{COOKIE}={viewer.token}"}
        status, headers, body = get(server, "/api/runs", cookie)
        assert status == 200 and len(json.loads(body)) == 3
        status, _, _ = get(server, "/api/runs", {**cookie, "Host": "evil.example:80"})
        assert status == 421  # DNS rebinding: another site's name is refused
        status, headers, body = get(server, "/", cookie)
        assert "script-src" not in headers["Content-Security-Policy"]
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        assert b"<script" not in body


def test_pages_in_chromium(three_runs: pytest.Pytester) -> None:
    require_chromium()
    with viewing(three_runs.path) as (server, viewer), browser() as chromium:
        runs = viewer.store.runs()
        assert len(runs) == 3
        page, errors = watched_page(chromium)
        fits = "document.documentElement.scrollWidth <= 1400"
        page.goto(address(server))
        assert page.url.endswith("/") and "token" not in page.url
        rows = page.locator("#runs tbody tr")
        assert rows.count() == 3
        assert rows.first.locator("td").first.inner_text() == runs[-1].run_id  # newest first
        assert page.evaluate(fits)
        page.click("#series a")  # the mini / p1 series
        page.wait_for_selector("#points")
        points = page.locator("#points tbody tr")
        assert points.count() == 3
        assert "dropped -100.00" in points.nth(2).inner_text()
        assert points.nth(1).locator(".drop").count() == 0
        assert "Dropped" in page.locator("main p").first.inner_text()
        assert page.locator("#trend circle").count() == 3
        assert page.locator("#trend circle[fill='#c0392b']").count() == 1
        assert page.evaluate(fits)
        # the dropped run's report, rendered from the store by the report's own renderer
        points.nth(2).locator("a").first.click()
        page.wait_for_selector("h1")
        assert runs[2].run_id in page.locator("nav").first.inner_text()
        report = three_runs.path / "reports" / "dictbench.html"
        assert "p1" in page.content() and report.is_file()
        page.click("text=every item")
        page.wait_for_selector("#items")
        assert page.locator("#items tbody tr").count() == 4
        assert "something else entirely" in page.locator("#items").inner_text()
        assert page.evaluate(fits)
        assert errors == []
        page.close()


def test_the_stored_report_renders_as_the_run_wrote_it(three_runs: pytest.Pytester) -> None:
    """A run's report page is ``render_html`` of the stored report and items, with the
    expected texts of the suite in this checkout: the run's own dictbench.html with the
    viewer's bar on top, byte for byte but for the drawn figures' coordinates (matplotlib
    may print a coordinate's last digits differently from one drawing to the next)."""
    with viewing(three_runs.path) as (server, viewer):
        run = viewer.store.runs()[-1]
        cookie = {"Cookie": f"{COOKIE}={viewer.token}"}
        status, headers, body = get(server, f"/run/{run.run_id}", cookie)
        assert status == 200
        assert "script-src" not in headers["Content-Security-Policy"]
        written = (three_runs.path / "reports" / "dictbench.html").read_text(encoding="utf-8")
        page = body.decode("utf-8")
        bar = page[page.index("<nav"):page.index("</nav>\n") + 7]
        assert "every item" in bar
        def without_coordinates(html: str) -> str:
            return re.sub(r"-?\d+\.\d{3,}", "#", html)

        assert without_coordinates(page.replace(bar, "", 1)) == without_coordinates(written)
        assert page.count("<svg") == written.count("<svg")
        assert get(server, "/run/nosuchrun", cookie)[0] == 404


def test_the_trend_chart_marks_drops_and_new_versions() -> None:
    points = [
        {"run_id": "r1", "score": 80.0, "low": 70.0, "high": 90.0},
        {"run_id": "r2", "score": 40.0, "low": 30.0, "high": 50.0, "drop": {"x": 1}},
        {"run_id": "r3", "score": None, "low": None, "high": None},
        {"run_id": "r4", "score": 60.0, "low": 55.0, "high": 65.0, "new_version": True},
    ]
    svg = trend_chart(points)
    assert svg.count("<circle") == 3
    assert svg.count('fill="#c0392b"') == 1  # r2, the drop
    assert 'stroke-dasharray="4 3"' in svg  # r4 starts a new series
    assert svg.count("<polyline") == 1  # r1 -> r2 only: no line across the new version
    assert trend_chart([{"run_id": "r", "score": None, "low": None, "high": None}]).startswith(
        "<p")


def test_the_runs_page_lists_the_newest_runs_and_links_to_all(
        three_runs: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_dictbench.viewer import server as viewer_server

    monkeypatch.setattr(viewer_server, "RUNS_SHOWN", 2)
    with viewing(three_runs.path) as (server, viewer):
        cookie = {"Cookie": f"{COOKIE}={viewer.token}"}
        oldest, *newest = [run.run_id for run in viewer.store.runs()]
        page = get(server, "/", cookie)[2].decode()
        assert "the newest 2 runs" in page and 'href="/?all=1"' in page
        assert all(run_id in page for run_id in newest) and oldest not in page
        every = get(server, "/?all=1", cookie)[2].decode()
        assert "3 run(s)" in every and oldest in every
        narrowed = get(server, "/?product=p1", cookie)[2].decode()
        assert 'href="/?all=1&amp;product=p1"' in narrowed


def test_an_item_page_and_two_runs_side_by_side_in_chromium(three_runs: pytest.Pytester
                                                            ) -> None:
    """The item page shows the output against the expected text with its word diff, the
    rule evidence and the case's audio (served with byte ranges); two runs side by side
    list the changed cases first; the pages work from the keyboard."""
    require_chromium()
    with viewing(three_runs.path) as (server, viewer), browser() as chromium:
        first, second, third = [run.run_id for run in viewer.store.runs()]
        page, errors = watched_page(chromium)
        page.goto(address(server))
        # keyboard: Tab to the newest run's link, Enter follows it
        for _ in range(10):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.textContent") == third:
                break
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/run/{third}")
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/run/{third}/items")
        page.click("#items a >> text=c1")
        page.wait_for_selector("#facts")
        assert page.inner_text("#output") == "something else entirely"
        assert "Hello Maria, see you at noon." in page.inner_text("main")
        assert page.locator("#diff del").count() >= 1 and page.locator("#diff ins").count() >= 1
        assert "WER 1.000 > 0.2" in page.inner_text("#rules")
        src = page.get_attribute("#audio", "src")
        assert src and src.startswith("/audio?")
        duration = page.evaluate("""() => new Promise((resolve) => {
          const audio = document.getElementById("audio");
          audio.preload = "metadata";
          audio.addEventListener("loadedmetadata", () => resolve(audio.duration));
          audio.load();
        })""")
        assert abs(duration - 0.2) < 0.05
        cookie = {"Cookie": f"{COOKIE}={viewer.token}"}
        status, _, body = get(server, src, {**cookie, "Range": "bytes=0-9"})
        assert status == 206 and body.startswith(b"RIFF") and len(body) == 10
        # two runs side by side, from the runs page's form
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
        page.select_option("select[name=a]", second)
        page.select_option("select[name=b]", third)
        page.click("#compare button")
        page.wait_for_selector("table.pair")
        rows = page.locator("table.pair tbody tr")
        assert rows.count() == 4
        assert all("passed → failed" in rows.nth(i).inner_text() for i in range(4))
        assert "0 of 4 outputs identical" in page.inner_text("main")
        assert "resolved" in page.inner_text("main")
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/compare?a={first}&b={second}")
        assert "4 of 4 outputs identical" in page.inner_text("main")
        assert page.locator("table.pair tr.changed").count() == 0
        assert page.evaluate("document.documentElement.scrollWidth <= 1400")
        assert errors == []


def test_a_private_item_shows_no_text_and_no_audio() -> None:
    from pytest_dictbench.store.interface import StoredRun

    run = StoredRun("r1", "2026-12-04T00:00:00Z", None, None, None, "", "", None, {}, (),
                    True, "", 0, "run", {"s": "1"}, ("p",), 1)
    record = {"suite": "s", "case_id": "c1", "product": "p", "status": "failed",
              "score": 0.0, "text": None, "rules": {"WER": {"score": 0, "source": "auto",
                                                            "evidence": "<redacted>"}}}
    html = item_page(run, record, expected=[], unit="word", audio_url=None, private=True,
                     suite_found=True)
    assert "This suite is private" in html
    assert "<audio" not in html and 'id=output' not in html and "Expected" not in html


def test_a_runs_page_and_the_compare_page_say_which_run_is_official(
        three_runs: pytest.Pytester) -> None:
    """Issue 42, "the viewer says which run is official": a run's report page and two runs
    side by side name the official run of each suite and product, read in Chromium."""
    require_chromium()
    from pytest_dictbench.store.official import declare_official

    with viewing(three_runs.path) as (server, viewer), browser() as chromium:
        first, second, third = [run.run_id for run in viewer.store.runs()]
        root = f"http://127.0.0.1:{server.server_address[1]}"
        page = chromium.new_page(viewport={"width": 1400, "height": 900})
        page.goto(address(server))
        page.goto(f"{root}/run/{third}")
        assert page.inner_text("#official") == "no official run of p1 on mini is declared"
        declare_official(viewer.store, second, "p1", "the second run, as planned")
        page.goto(f"{root}/run/{second}")
        assert page.inner_text("#official") == "this is the official run of p1 on mini"
        page.goto(f"{root}/run/{third}")
        assert page.inner_text("#official") == f"the official run of p1 on mini is {second}"
        page.click(f"#official a >> text={second}")  # it leads to the official run
        page.wait_for_url(f"**/run/{second}")
        page.goto(f"{root}/compare?a={second}&b={third}")
        assert page.inner_text("p.official") == \
            f"The official run of p1 on mini is {second} (the run before)."
        page.goto(f"{root}/compare?a={first}&b={third}")
        assert page.inner_text("p.official").endswith("(neither run).")
        page.close()
