"""The HTML report at 1400 px in a real headless Chromium (Playwright driving Debian's
/usr/bin/chromium): every table fits its column without a horizontal scroll bar, and the
gate verdict is styled (CF29)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from adapter_support import suite_with_audio
from workbench_support import CHROMIUM, browser

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed (CI installs it)")

CASES = [{"id": f"case-{i:02d}", "reference": "please send the quarterly invoice by friday"}
         for i in range(1, 7)]
CONFTEST = '''
def pytest_dictbench_transcriber(product):
    def transcribe(request):
        return "please send the invoice by friday" if product.name != "alpha" else \\
            "please send the quarterly invoice by friday"
    return transcribe
'''
LONG_ENV = ('hardware = "AMD EPYC 9R14 96-Core Processor, 2 vCPU (shared), 24 GB, x86_64"\n'
            'os = "Debian GNU/Linux 12 (bookworm), Linux 6.18.3-cloud-amd64 #1 SMP '
            'PREEMPT_DYNAMIC Debian 6.18.3-1 (2026-11-20) x86_64"\n'
            'app_version = "3.2.1-build.20261130+sha.9c3a7e1f2d4b4f86b5e07a1c9d3e6f28"\n')


@pytest.fixture
def report(pytester: pytest.Pytester, write_suite: Callable[..., Path]) -> Path:
    suite_with_audio(write_suite, CASES, 0.2)
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    pytester.makeconftest(CONFTEST)
    (pytester.path / "products").mkdir()
    names = ["alpha", "bravo-long-product-name", "charlie", "delta-engine-v2"]
    for name in names:
        (pytester.path / "products" / f"{name}.toml").write_text(
            f'name = "{name}"\nversion = "2026.11.30-rc.1+{name}"\nadapter = "python"\n'
            f"[environment]\n{LONG_ENV}", encoding="utf-8")
    args = [f"--product={n}" for n in names]
    pytester.runpytest(*args, "--dictbench-item-failures=report", "-p", "no:cacheprovider")
    (pytester.path / "reports").rename(pytester.path / "baseline")
    result = pytester.runpytest(*args, "--dictbench-item-failures=report",
                                "--dictbench-baseline=baseline", "--dictbench-min-score=99",
                                "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the gate fails on min score
    return pytester.path / "reports" / "dictbench.html"


OVERFLOWING = """() => [...document.querySelectorAll('table')].filter(t => {
  const box = t.getBoundingClientRect(), main = document.querySelector('main');
  const inner = main.getBoundingClientRect().right
    - parseFloat(getComputedStyle(main).paddingRight);
  return box.right > inner + 1 || t.parentElement.scrollWidth > t.parentElement.clientWidth + 1;
}).map(t => [...t.querySelectorAll('thead th')].map(th => th.textContent).join('|'))"""


def test_cf29_tables_fit_at_1400_px_and_the_gate_is_styled(report: Path) -> None:
    with browser() as chromium:
        page = chromium.new_page(viewport={"width": 1400, "height": 900})
        page.goto(report.as_uri())
        assert page.evaluate(OVERFLOWING) == []
        gate = page.locator("section.gate")
        assert gate.get_attribute("class") == "gate failed"
        color = gate.locator(".verdict").evaluate("e => getComputedStyle(e).color")
        assert color == "rgb(185, 28, 28)"  # --bad
        assert page.evaluate("document.documentElement.scrollWidth") <= 1400


def test_cf36_the_adjudication_page_with_nothing_pending_shows_no_form(
        tmp_path: Path) -> None:
    from workbench_support import make_review_suite, open_page, serving

    root = make_review_suite(tmp_path / "suite")
    with serving(root) as (url, _), browser() as chromium:
        page, errors = open_page(chromium, url + "/adjudicate")
        assert page.inner_text("#where").startswith("Nothing to adjudicate")
        assert not page.is_visible("#decision") and not page.is_visible("#judges")
        assert not page.is_visible("#draft") and errors == []
