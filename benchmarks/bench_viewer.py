"""The viewer's run list over a store of ``--runs`` runs (1,000), painted in real Chromium.

A store of ``--runs`` runs of ``--run-items`` items (bench_store.py's generator) is
served by the real command, ``dictbench view --store ... --port 0``, on 127.0.0.1; its
address (with the session's token) is read from what it prints. Chromium
(/usr/bin/chromium, through Playwright) opens it once (the token becomes the session
cookie, and the server's first page warms up), then loads the run list ``--rounds``
times: every run (``/?all=1``) and the default page (the newest 200). Each load's
figure is read from the Performance API: the later of the navigation's ``loadEventEnd``
and its ``first-contentful-paint``, both from the navigation's start. Printed: the
median of each page. Target: the list of every run painted within 1 s (exit status 1
when missed). The page must hold one row per run, or the figure would mean nothing.

    python benchmarks/bench_viewer.py [--runs 1000] [--run-items 50] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_store import make_store

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--no-first-run"]
TARGET_S = 1.0
#: Milliseconds from the navigation's start to the page loaded and first painted (both
#: entries may come a moment after Playwright sees the load event: polled for 10 s).
PAINTED = """() => new Promise((resolve) => {
    const started = Date.now();
    const poll = () => {
        const nav = performance.getEntriesByType("navigation")[0];
        const paint = performance.getEntriesByName("first-contentful-paint")[0];
        if (nav && nav.loadEventEnd > 0 && paint) {
            resolve(Math.max(nav.loadEventEnd, paint.startTime));
        } else if (Date.now() - started > 10000) {
            resolve(-1);
        } else {
            setTimeout(poll, 10);
        }
    };
    poll();
})"""


def serve(url: str) -> tuple[subprocess.Popen[str], str]:
    """``dictbench view`` over the store, and the address it prints."""
    proc = subprocess.Popen([sys.executable, "-m", "pytest_dictbench.cli", "view", "--store",
                             url, "--port", "0"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.strip().startswith("open http://127.0.0.1:"):
            return proc, line.split()[1]
    proc.wait()
    sys.exit(f"dictbench view stopped before printing its address ({proc.returncode})")


def painted_ms(page: Any, url: str, rows: int | None) -> float:
    page.goto(url, wait_until="load")
    if rows is not None and page.locator("#runs tbody tr").count() != rows:
        sys.exit(f"{url}: the run list does not hold {rows} rows")
    figure = page.evaluate(PAINTED)
    if figure < 0:
        sys.exit(f"{url}: Chromium reported no load event end or first-contentful-paint")
    return float(figure)


def measure(address: str, runs: int, rounds: int) -> tuple[float, float]:
    from playwright.sync_api import sync_playwright

    base = address.split("/?", 1)[0]
    every, newest = [], []
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = chromium.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()
            page.goto(address, wait_until="load")  # the token becomes the cookie
            page.goto(f"{base}/?all=1", wait_until="load")  # warm-up
            for _ in range(rounds):
                every.append(painted_ms(page, f"{base}/?all=1", runs))
                newest.append(painted_ms(page, f"{base}/", None))
        finally:
            chromium.close()
    return statistics.median(every), statistics.median(newest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--run-items", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261205)
    args = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is not installed (.ci/run installs it)")
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/viewer.sqlite"
        make_store(url, args.runs, args.run_items, args.seed)
        proc, address = serve(url)
        try:
            every_ms, newest_ms = measure(address, args.runs, args.rounds)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    print(f"viewer run list of all {args.runs} runs painted in {every_ms:.0f} ms (target "
          f"<= {TARGET_S * 1000:.0f} ms); the default list (newest 200) in {newest_ms:.0f} "
          f"ms; median of {args.rounds}, load {os.getloadavg()[0]:.2f}")
    sys.exit(1 if every_ms > TARGET_S * 1000 else 0)


if __name__ == "__main__":
    main()
