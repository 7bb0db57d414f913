"""--dictbench-offline-audit end to end: two real command products, one needing a service.

``offline`` transcribes from a local table; ``service`` asks an HTTP service on the
host's 127.0.0.1, which a network namespace cannot reach. Both claim to run on device;
only the first claim is verified.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from adapter_support import write_tone
from support import CANARY, jsonl

from pytest_dictbench.rig.offline import namespace_problem

CASES = [{"id": "c1", "reference": "hello there", "audio": "audio/c1.wav"},
         {"id": "c2", "reference": "good morning", "audio": "audio/c2.wav"}]

OFFLINE = """import pathlib, sys
words = {"c1": "hello there", "c2": "good morning"}
print(words[pathlib.Path(sys.argv[1]).stem])
"""
SERVICE = """import pathlib, sys, urllib.request
url = sys.argv[2] + "/" + pathlib.Path(sys.argv[1]).stem
print(urllib.request.urlopen(url, timeout=5).read().decode())
"""
#: Asks the service too, but says so in a transcript record (exit 0) when it cannot.
POLITE = """import json, pathlib, sys, urllib.request
url = sys.argv[2] + "/" + pathlib.Path(sys.argv[1]).stem
try:
    print(json.dumps({"text": urllib.request.urlopen(url, timeout=5).read().decode()}))
except OSError:
    print(json.dumps({"status": "failed", "error": "cloud unreachable"}))
"""


class _Words(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = {"/c1": "hello there", "/c2": "good morning"}.get(self.path, "").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def service() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Words)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _project(pytester: pytest.Pytester, url: str) -> None:
    root = pytester.path / "cases" / "mini"
    for case in CASES:
        write_tone(root / case["audio"])
    (root / "cases.jsonl").write_text(jsonl([dict(c, canary=CANARY) for c in CASES]),
                                      encoding="utf-8")
    (root / "suite.toml").write_text(
        f'id = "mini"\nversion = "1"\ntitle = "Mini"\nmethod = "error_rate"\n'
        f'locale = "en-US"\ncanary = "{CANARY}"\n[params]\nthreshold = 0.2\n',
        encoding="utf-8")
    products = pytester.path / "products"
    products.mkdir()
    (products / "offline.py").write_text(OFFLINE, encoding="utf-8")
    (products / "service.py").write_text(SERVICE, encoding="utf-8")
    (products / "polite.py").write_text(POLITE, encoding="utf-8")
    for name, argv, output in (
            ("offline", [sys.executable, "offline.py", "{audio}"], "text"),
            ("service", [sys.executable, "service.py", "{audio}", url], "text"),
            ("polite", [sys.executable, "polite.py", "{audio}", url], "json")):
        (products / f"{name}.toml").write_text(
            f'name = "{name}"\nversion = "1"\nadapter = "command"\n'
            f'[settings]\ncommand = {json.dumps(argv)}\ntimeout_s = 30\noutput = "{output}"\n'
            '[environment]\nprocessing_path = "on_device"\n', encoding="utf-8")


@pytest.mark.skipif(namespace_problem() is not None,
                    reason=f"network namespaces unavailable: {namespace_problem()}")
def test_offline_audit_verifies_only_the_product_that_works_without_network(
        pytester: pytest.Pytester, service: str) -> None:
    _project(pytester, service)
    result = pytester.runpytest_subprocess("cases/mini", "--product=offline",
                                           "--product=service", "--dictbench-offline-audit",
                                           "--dictbench-no-warmup")
    assert result.ret == 0, result.stdout.str()
    report = json.loads((pytester.path / "reports" / "dictbench.json").read_text())
    paths = {e["product"]: e["processing_path"] for e in report["suites"][0]["products"]}
    assert paths["offline"]["verified"] is True
    assert paths["offline"]["completed_offline"] == 2 == paths["offline"]["text_matched"]
    assert paths["service"]["verified"] is False
    assert paths["service"]["completed_offline"] == 0
    assert paths["service"]["note"].startswith(
        "unverified: 2 of 2 captures did not complete without network (command exited")
    markdown = (pytester.path / "reports" / "dictbench.md").read_text()
    assert "| service | processing path | on\\_device: unverified: 2 of 2" in markdown
    assert "| offline | processing path | on\\_device: verified: all 2 captures" in markdown
    assert "processing path" in (pytester.path / "reports" / "dictbench.html").read_text()
    # the normal captures of both products are complete and scored
    records = [json.loads(line) for line in
               (pytester.path / "reports" / "items.jsonl").read_text().splitlines()]
    assert {r["status"] for r in records} == {"passed"}
    # a second run without the audit keeps the audited captures and their verdicts
    again = pytester.runpytest_subprocess("cases/mini", "--product=offline",
                                          "--product=service", "--dictbench-no-warmup")
    assert again.ret == 0
    report = json.loads((pytester.path / "reports" / "dictbench.json").read_text())
    assert report["suites"][0]["products"][0]["processing_path"]["verified"] is True
    # a product that reports its own failure offline (exit 0) is not verified either
    polite = pytester.runpytest_subprocess("cases/mini", "--product=polite",
                                           "--dictbench-offline-audit", "--dictbench-no-warmup")
    assert polite.ret == 0, polite.stdout.str()
    report = json.loads((pytester.path / "reports" / "dictbench.json").read_text())
    path = report["suites"][0]["products"][0]["processing_path"]
    assert (path["verified"], path["completed_offline"]) == (False, 0)
    assert path["note"] == ("unverified: 2 of 2 captures did not complete without network "
                            "(failed: cloud unreachable)")


def test_without_the_audit_an_on_device_claim_is_unverified(pytester: pytest.Pytester,
                                                            service: str) -> None:
    _project(pytester, service)
    result = pytester.runpytest_subprocess("cases/mini", "--product=offline",
                                           "--dictbench-no-warmup")
    assert result.ret == 0, result.stdout.str()
    report = json.loads((pytester.path / "reports" / "dictbench.json").read_text())
    path = report["suites"][0]["products"][0]["processing_path"]
    assert path["verified"] is False
    assert path["note"] == ("unverified: no offline audit was run "
                            "(--dictbench-offline-audit)")


#: Transcribes online and logs each call; inside the audit's namespace (another network
#: namespace than the test's) it writes its pid and, while ``hang`` exists, never ends.
HANGS_OFFLINE = """import os, pathlib, sys, time
folder, stem = pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[1]).stem
if os.readlink("/proc/self/ns/net") == sys.argv[3]:
    with open(folder / "calls.log", "a") as log:
        log.write(f"online {stem}\\n")
    print({"c1": "hello there", "c2": "good morning"}[stem])
    sys.exit(0)
(folder / f"audited-{stem}.pid").write_text(str(os.getpid()))
while (folder / "hang").exists():
    time.sleep(0.2)
print({"c1": "hello there", "c2": "good morning"}[stem])
"""


def _gone(pid: int) -> bool:
    """Whether ``pid`` no longer runs (ended, or a zombie nobody has reaped yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _wait_for(condition: Callable[[], bool], what: str, limit_s: float = 120.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


@pytest.mark.skipif(namespace_problem() is not None,
                    reason=f"network namespaces unavailable: {namespace_problem()}")
def test_a_kill_during_the_audit_keeps_the_capture_and_ends_the_audited_program(
        pytester: pytest.Pytester, service: str) -> None:
    """SIGKILL of the run's process group while a capture is audited (R51): the capture
    is in the cache, the audited program dies with the run, and the next run audits the
    kept capture without capturing it again."""
    _project(pytester, service)
    products = pytester.path / "products"
    (products / "hangs.py").write_text(HANGS_OFFLINE, encoding="utf-8")
    (products / "hang").write_text("")
    argv = [sys.executable, "hangs.py", "{audio}", str(products),
            os.readlink("/proc/self/ns/net")]
    (products / "hangs.toml").write_text(
        f'name = "hangs"\nversion = "1"\nadapter = "command"\n[settings]\n'
        f'command = {json.dumps(argv)}\ntimeout_s = 600\n'
        '[environment]\nprocessing_path = "on_device"\n', encoding="utf-8")
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "cases/mini",
         "--product=hangs", "--dictbench-offline-audit", "--dictbench-no-warmup"],
        cwd=pytester.path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    pid_file = products / "audited-c1.pid"
    try:
        _wait_for(lambda: pid_file.exists() and pid_file.read_text().strip() != "",
                  "the audit of c1 to start")
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    audited = int(pid_file.read_text())
    _wait_for(lambda: _gone(audited), f"the audited program (pid {audited}) to end")
    cache = products / "hangs" / "mini.jsonl"
    lines = [json.loads(line) for line in cache.read_text().splitlines()]
    assert [(x["case_id"], x["status"], x["text"], "offline_audit" in x) for x in lines] \
        == [("c1", "complete", "hello there", False)]
    (products / "hang").unlink()
    again = pytester.runpytest_subprocess("cases/mini", "--product=hangs",
                                          "--dictbench-offline-audit", "--dictbench-no-warmup")
    assert again.ret == 0, again.stdout.str()
    assert (products / "calls.log").read_text().splitlines() == ["online c1", "online c2"]
    report = json.loads((pytester.path / "reports" / "dictbench.json").read_text())
    path = report["suites"][0]["products"][0]["processing_path"]
    assert (path["verified"], path["audited"], path["text_matched"]) == (True, 2, 2)
