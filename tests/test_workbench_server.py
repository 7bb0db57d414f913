"""The review server without a browser: Host and token checks, byte ranges, saves that
refuse a concurrent edit, and the rules for an edit."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import pytest
from workbench_support import make_review_suite, serving

from pytest_dictbench.suites import read_toml
from pytest_dictbench.workbench.review import EditError, apply_edit
from pytest_dictbench.workbench.server import TOKEN_HEADER
from pytest_dictbench.workbench.store import ConcurrentEdit, read_cases, save_cases


def request(url: str, method: str, path: str, body: Any = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    port = int(url.rsplit(":", 1)[1])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    payload = json.dumps(body).encode() if body is not None else None
    all_headers = {"Host": f"127.0.0.1:{port}", **(headers or {})}
    conn.request(method, path, body=payload, headers=all_headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, dict(response.getheaders()), data


def test_other_host_headers_are_refused(tmp_path: Path) -> None:
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, _):
        for host in ("evil.example", "127.0.0.1", "attacker.test:80"):
            status, _, body = request(url, "GET", "/api/suite", headers={"Host": host})
            assert status == 421 and b"Host" in body
        assert request(url, "GET", "/api/suite")[0] == 200
        port = url.rsplit(":", 1)[1]
        assert request(url, "GET", "/", headers={"Host": f"localhost:{port}"})[0] == 200


def test_writes_need_the_session_token(tmp_path: Path) -> None:
    root = make_review_suite(tmp_path / "s")
    before = (root / "cases.jsonl").read_bytes()
    with serving(root) as (url, bench):
        page = request(url, "GET", "/")[2].decode()
        assert f'content="{bench.token}"' in page and len(bench.token) >= 32
        fingerprint = json.loads(request(url, "GET", "/api/suite")[2])["fingerprint"]
        edit = {"fingerprint": fingerprint, "case": {"id": "rec-1", "status": "approved"}}
        for headers in ({}, {TOKEN_HEADER: "guess"}):
            status, _, _ = request(url, "POST", "/api/case", edit, headers)
            assert status == 403
        assert (root / "cases.jsonl").read_bytes() == before
        status, _, body = request(url, "POST", "/api/case", edit, {TOKEN_HEADER: bench.token})
        assert status == 200 and json.loads(body)["approved"] == 1
        # the old fingerprint is stale now: a second save from it is refused
        status, _, body = request(url, "POST", "/api/case", edit, {TOKEN_HEADER: bench.token})
        assert status == 409 and b"changed on disk" in body


def test_audio_is_served_with_byte_ranges(tmp_path: Path) -> None:
    root = make_review_suite(tmp_path / "s")
    data = (root / "audio" / "rec-1.wav").read_bytes()
    with serving(root) as (url, _):
        status, headers, body = request(url, "GET", "/audio/rec-1")
        assert status == 200 and body == data and headers["Content-Type"] == "audio/wav"
        status, headers, body = request(url, "GET", "/audio/rec-1",
                                        headers={"Range": "bytes=10-19"})
        assert status == 206 and body == data[10:20]
        assert headers["Content-Range"] == f"bytes 10-19/{len(data)}"
        status, _, body = request(url, "GET", "/audio/rec-1", headers={"Range": "bytes=-4"})
        assert status == 206 and body == data[-4:]
        assert request(url, "GET", "/audio/rec-1",
                       headers={"Range": f"bytes={len(data)}-"})[0] == 416
        assert request(url, "GET", "/audio/nope")[0] == 404


def test_save_refuses_a_concurrent_edit_and_refreshes_hashes(tmp_path: Path) -> None:
    root = make_review_suite(tmp_path / "s")
    snapshot = read_cases(root)
    rows = [dict(r) for r in snapshot.rows]
    rows[0]["status"] = "approved"
    (root / "cases.jsonl").write_text((root / "cases.jsonl").read_text() + "\n")
    changed = (root / "cases.jsonl").read_bytes()
    with pytest.raises(ConcurrentEdit, match="changed on disk"):
        save_cases(root, rows, snapshot.fingerprint)
    assert (root / "cases.jsonl").read_bytes() == changed
    new = save_cases(root, rows, read_cases(root).fingerprint)
    assert read_cases(root).fingerprint == new
    listed = {f["path"]: f["sha256"] for f in read_toml(root / "suite.toml")["files"]}
    assert listed["cases.jsonl"] == new


ROW = {"id": "c1", "audio": "a.wav", "reference": "old", "status": "draft",
       "key_points": [{"id": "k1", "text": "one", "severity": "minor"}]}


def test_apply_edit_keeps_other_fields_and_numbers_new_points() -> None:
    # text is kept exactly as edited: nothing is trimmed
    edit = {"id": "c1", "reference": "  new text ", "status": "approved", "key_points": [
        {"id": "k1", "text": " one ", "severity": "critical"},
        {"text": "two"}, {"id": "k1", "text": "three", "severity": "minor"}]}
    assert apply_edit(ROW, edit) == {
        "id": "c1", "audio": "a.wav", "reference": "  new text ", "status": "approved",
        "key_points": [{"id": "k1", "text": " one ", "severity": "critical"},
                       {"id": "k2", "text": "two", "severity": "minor"},
                       {"id": "k3", "text": "three", "severity": "minor"}]}


@pytest.mark.parametrize(("edit", "message"), [
    ({"audio": "other.wav"}, "cannot be edited here: audio"),
    ({"key_points": [{"text": " "}]}, "key point 1 is empty"),
    ({"key_points": [{"text": "x", "severity": "major"}]}, "critical or minor"),
    ({"key_points": "x"}, "must be a list"),
    ({"status": "done"}, "draft or approved"),
    ({"reference": "", "status": "approved"}, "without a transcript"),
])
def test_apply_edit_refuses_bad_edits(edit: dict, message: str) -> None:
    with pytest.raises(EditError, match=message):
        apply_edit(ROW, edit)


def test_dictbench_review_command_serves_until_stopped(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    root = make_review_suite(tmp_path / "s")
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest_dictbench.cli", "review", str(root), "--reports",
         str(tmp_path / "reports"), "--judges", str(tmp_path / "judges"), "--reviewer", "kk"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        url = first.split()[2].rstrip("/")
        assert url.startswith("http://127.0.0.1:")
        status, _, body = request(url, "GET", "/api/suite")
        assert status == 200 and json.loads(body)["total"] == 3
        status, _, body = request(url, "GET", "/adjudicate")
        assert status == 200 and b'content="kk"' in body
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0


def test_fields_a_method_lacks_are_not_added(tmp_path: Path) -> None:
    from pytest_dictbench.workbench.review import update_case

    root = make_review_suite(tmp_path / "s")
    manifest = root / "suite.toml"
    manifest.write_text(manifest.read_text().replace('"keypoints"', '"rubric"'))
    rows = [dict(r) for r in read_cases(root).rows]
    rows[0].pop("key_points")
    save_cases(root, rows, read_cases(root).fingerprint)
    with pytest.raises(EditError, match="no 'key_points'"):
        update_case(root, read_cases(root).fingerprint,
                    {"id": "rec-1", "key_points": [{"text": "x"}]})
    # approving holds the case to the rubric schema, which this keypoints row fails
    with pytest.raises(EditError, match="Additional properties"):
        update_case(root, read_cases(root).fingerprint, {"id": "rec-1", "status": "approved"})
    result = update_case(root, read_cases(root).fingerprint,
                         {"id": "rec-1", "status": "draft"})
    assert result["case"]["status"] == "draft" and "key_points" not in result["case"]
