"""Helpers for the workbench tests: a small suite with WAV audio, model replies for the
key point and decision tools, a review server in a thread, and headless Chromium."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from judge_server import Recorded, Reply, user_text

from pytest_dictbench.hashes import refresh_hashes
from pytest_dictbench.judge.records import JudgeConfig
from pytest_dictbench.workbench.adjudicate import Adjudication
from pytest_dictbench.workbench.drafter import Drafter
from pytest_dictbench.workbench.server import Workbench, make_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--no-first-run"]
CANARY = "DICTBENCH-CANARY review-test 5b9e1f40-77aa-4c1e-9d2b-0c6a3e8f2d17"
KEY = "sk-test-workbench-key-0123456789"
JUDGE_TABLE = """
[judge]
timeout = 5.0

[[judge.judges]]
name = "judge-a"
model = "model-a"

[[judge.judges]]
name = "judge-b"
model = "model-b"
"""


def tool_reply(name: str, tool_input: Any) -> Reply:
    """A Messages API answer whose only block calls tool ``name``."""
    body = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": name,
                         "input": tool_input}],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 50, "output_tokens": 10}}
    return Reply(body=body)


def keypoint_responder(request: Recorded) -> Reply:
    """Answers a key point request with as many points as the tool schema asks for,
    each naming the first words of the transcript it was sent."""
    tool = request.body["tools"][0]
    count = tool["input_schema"]["properties"]["key_points"]["minItems"]
    text = user_text(request.body).split("<transcript>\n", 1)[1].split("\n</transcript>")[0]
    first = " ".join(text.split()[:3])
    points = [{"text": f"point {n} about {first}", "severity": "critical" if n == 1
               else "minor"} for n in range(1, count + 1)]
    return tool_reply(tool["name"], {"key_points": points})


def write_wav(path: Path, seconds: float, rate: int = 16000) -> None:
    t = np.arange(int(seconds * rate)) / rate
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, (0.2 * np.sin(2 * np.pi * 440 * t)).astype(np.float32), rate,
             subtype="PCM_16")


def make_review_suite(root: Path, durations: tuple[float, ...] = (1.5, 2.25, 1.0)) -> Path:
    """A draft suite of ``len(durations)`` cases with WAV audio and hashed files."""
    rows = []
    for n, seconds in enumerate(durations, start=1):
        case_id = f"rec-{n}"
        write_wav(root / "audio" / f"{case_id}.wav", seconds)
        rows.append({"id": case_id, "canary": CANARY, "status": "draft",
                     "audio": f"audio/{case_id}.wav", "duration_s": seconds,
                     "reference": f"draft transcript number {n}",
                     "key_points": [{"id": "k1", "text": f"point of case {n}",
                                     "severity": "critical"}],
                     "drafted": {"product": "p", "reference_sha256": "0" * 64}})
    (root / "cases.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (root / "suite.toml").write_text(
        f'id = "review-test"\nversion = "1"\ntitle = "Review test"\nmethod = "keypoints"\n'
        f'locale = "en-US"\ncanary = "{CANARY}"\n', encoding="utf-8")
    # the canary must be in every data file: WAV has no tag, so list only cases.jsonl
    refresh_hashes(root)
    return root


@contextlib.contextmanager
def serving(root: Path, *, suite_id: str = "review-test", reports: Path | None = None,
            judges: Path | None = None, drafter: Drafter | None = None,
            cases: dict[str, Any] | None = None, meanings: dict[str, str] | None = None
            ) -> Iterator[tuple[str, Workbench]]:
    """A review server on an ephemeral port, serving in a thread."""
    adjudication = Adjudication(suite_id, cases or {}, reports or root / "reports",
                                judges or root / "judges", drafter, meanings)
    bench = Workbench(root, adjudication, "tester")
    server = make_server(bench)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bench
    finally:
        server.shutdown()
        server.server_close()


def drafter_for(url: str) -> Drafter:
    """A drafter against the loopback server, backing off in milliseconds."""
    from pytest_dictbench.judge.client import AnthropicClientFactory
    from pytest_dictbench.judge.records import RetryPolicy

    return Drafter(JudgeConfig("drafter", "model-c"),
                   factory=AnthropicClientFactory(api_key=KEY, base_url=url, timeout=5.0),
                   retry=RetryPolicy(base_delay=0.01, max_delay=0.02))


def open_page(chromium: Any, url: str) -> tuple[Any, list[str]]:
    """A new page at ``url``, ready (``body[data-ready='1']``), and the list its
    JavaScript errors are collected in."""
    page = chromium.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page, errors


def require_chromium() -> None:
    """Skip the calling test when /usr/bin/chromium is missing; in CI, fail it."""
    if not CHROMIUM.exists():
        message = "/usr/bin/chromium is not installed (.ci/run installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@contextlib.contextmanager
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
