"""dictbench.html in headless Chromium: it draws, logs no console error, keeps its
figures in the DOM, and shows Japanese with real glyphs (not empty boxes)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageChops
from report_support import sample_run

from pytest_dictbench.report.html import render_html
from pytest_dictbench.report.html_style import CSS

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed (CI installs it)")

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--enable-logging=stderr", "--v=0")
#: Lines of Chromium's log that report a page error.
PAGE_ERROR = re.compile(r"Uncaught|CONSOLE\(\d+\)|:CONSOLE|Failed to load resource")


def chromium(page: Path, tmp: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    return subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *extra,
                           page.as_uri()], capture_output=True, text=True, timeout=120,
                          check=False)


def page_errors(run: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in run.stderr.splitlines() if PAGE_ERROR.search(line)]


def non_white_share(png: Path) -> float:
    image = Image.open(png).convert("L")
    histogram = image.histogram()
    return 1.0 - sum(histogram[245:]) / (image.width * image.height)


@pytest.fixture(scope="module")
def sample_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sample = sample_run()
    path = tmp_path_factory.mktemp("html") / "dictbench.html"
    path.write_text(render_html(sample.report, sample.records, sample.expected),
                    encoding="utf-8")
    return path


def test_page_draws_without_console_errors(sample_page: Path, tmp_path: Path) -> None:
    png = tmp_path / "shot.png"
    run = chromium(sample_page, tmp_path, f"--screenshot={png}", "--window-size=1280,2000")
    assert png.is_file(), run.stderr[-2000:]
    assert Image.open(png).size == (1280, 2000)
    # Headings, tables and two figures fill well over a tenth of the first screen.
    assert non_white_share(png) > 0.10
    assert page_errors(run) == []


def test_dom_keeps_figures_and_sections(sample_page: Path, tmp_path: Path) -> None:
    run = chromium(sample_page, tmp_path, "--dump-dom")
    source = sample_page.read_text(encoding="utf-8")
    assert run.stdout.count("<svg") == source.count("<svg") > 0
    for title in re.findall(r"<h2>(.*?)</h2>", source):
        assert f"<h2>{title}</h2>" in run.stdout
    assert page_errors(run) == []


def test_console_errors_are_detected(tmp_path: Path) -> None:
    """The check above can fail: a page that throws is caught."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><p>x</p><script>throw new Error('boom')</script>",
                    encoding="utf-8")
    run = chromium(page, tmp_path, "--dump-dom")
    assert any("boom" in line for line in page_errors(run)), run.stderr[-2000:]


def test_japanese_has_real_glyphs(tmp_path: Path) -> None:
    """Two different words drawn in the report's font stack must differ; without a CJK
    font both come out as identical empty boxes (install fonts-noto-cjk)."""
    page = tmp_path / "ja.html"
    box = "position:absolute;left:20px;font-size:72px;line-height:1;"
    page.write_text(
        f'<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8"><style>{CSS}</style>'
        f"</head><body><main><div style='{box}top:20px'>照会議</div>"
        f"<div style='{box}top:140px'>紹介録</div></main></body></html>", encoding="utf-8")
    png = tmp_path / "ja.png"
    chromium(page, tmp_path, f"--screenshot={png}", "--window-size=400,260")
    image = Image.open(png).convert("L")
    first, second = image.crop((0, 10, 400, 110)), image.crop((0, 130, 400, 230))
    assert non_white_share_of(first) > 0.02, "nothing drawn"
    # The first character differs (照 vs 紹) and so must the pixels.
    assert ImageChops.difference(first, second).getbbox() is not None, \
        "Japanese drawn as empty boxes: install fonts-noto-cjk"


def non_white_share_of(image: Image.Image) -> float:
    histogram = image.histogram()
    return 1.0 - sum(histogram[245:]) / (image.width * image.height)
