"""The review server's answers to odd and hostile requests, over raw sockets: every
malformed request gets a 4xx JSON answer with a reason, never a dropped connection
(findings 1-5 of the review)."""

from __future__ import annotations

import contextlib
import json
import socket
from pathlib import Path

import pytest
from workbench_support import make_review_suite, serving

from pytest_dictbench.workbench.server import MAX_BODY, TOKEN_HEADER


def raw(url: str, data: bytes, *, timeout: float = 10.0) -> tuple[int, bytes]:
    """Send ``data`` as is; the status and body of the answer (0 when none came)."""
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        # a server that answers at once (503 busy, 413) may close before our shutdown:
        # its answer is already in the receive buffer, so read it all the same
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_WR)
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                answer += chunk
    if not answer:
        return 0, b""
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def post(url: str, token: str, body: bytes, extra: str = "", path: str = "/api/case",
         length: str | None = None) -> tuple[int, bytes]:
    port = url.rsplit(":", 1)[1]
    length = str(len(body)) if length is None else length
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{TOKEN_HEADER}: {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {length}\r\n{extra}"
            "Connection: close\r\n\r\n")
    return raw(url, head.encode() + body)


def fingerprint(bench: object, root: Path) -> str:
    from pytest_dictbench.workbench.store import read_cases

    return read_cases(root).fingerprint


def test_two_host_headers_and_absolute_targets_are_refused(tmp_path: Path) -> None:
    """Finding 1."""
    root = make_review_suite(tmp_path / "s")
    before = (root / "cases.jsonl").read_bytes()
    with serving(root) as (url, bench):
        port = url.rsplit(":", 1)[1]
        edit = json.dumps({"fingerprint": fingerprint(bench, root),
                           "case": {"id": "rec-1", "reference": "two hosts"}}).encode()
        status, body = post(url, bench.token, edit, extra="Host: evil.example\r\n")
        assert status == 400 and b"exactly one Host" in body
        assert (root / "cases.jsonl").read_bytes() == before
        status, body = raw(url, f"GET http://evil.example/api/suite HTTP/1.1\r\nHost: "
                                f"127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        assert status == 400 and b"must be a path" in body
        status, _ = raw(url, f"GET /api/suite HTTP/1.1\r\nHost: LOCALHOST:{port}\r\n"
                             "Connection: close\r\n\r\n".encode())
        assert status == 200


@pytest.mark.parametrize("damage", ["missing", "folder", "outside"])
def test_missing_or_escaping_audio_gets_a_json_error(tmp_path: Path, damage: str) -> None:
    """Finding 2."""
    root = make_review_suite(tmp_path / "s")
    audio = root / "audio/rec-3.wav"
    audio.unlink()
    if damage == "folder":
        audio.mkdir()
    elif damage == "outside":
        (tmp_path / "secret.wav").write_bytes(b"RIFF secret bytes")
        audio.symlink_to(tmp_path / "secret.wav")
    with serving(root) as (url, _):
        port = url.rsplit(":", 1)[1]
        status, body = raw(url, f"GET /audio/rec-3 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                "Connection: close\r\n\r\n".encode())
    assert status == (400 if damage == "outside" else 404)
    assert "rec-3.wav" in json.loads(body)["error"] and b"secret bytes" not in body


@pytest.mark.parametrize(("body", "status", "reason"), [
    (b'{"fingerprint": "x", "case": [1, 2]}', 400, "case must be a JSON object"),
    (b'{"fingerprint": 1, "case": {}}', 400, "fingerprint must be text"),
    (b"[" * 100_000 + b"]" * 100_000, 400, "bad request body"),
    (b'{"a": NaN}', 400, "bad request body"),
    (b'\xff\xfe', 400, "bad request body"),
    (b"[1]", 400, "not a JSON object"),
    (b'{"index": 1e999}', 400, "too large"),
])
def test_malformed_bodies_get_a_reason(tmp_path: Path, body: bytes, status: int,
                                       reason: str) -> None:
    """Finding 3."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, bench):
        got, answer = post(url, bench.token, body)
    assert got == status and reason in json.loads(answer)["error"]


@pytest.mark.parametrize("path", ["/api/decide", "/api/draft"])
@pytest.mark.parametrize("body", [b'{"index": 1}', b'{"target": [1]}', b"{}"])
def test_decisions_need_a_target_object(tmp_path: Path, path: str, body: bytes) -> None:
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, bench):
        got, answer = post(url, bench.token, body, path=path)
    assert got in (400, 422) and "target" in json.loads(answer)["error"]


def test_a_pending_file_with_a_bad_line_is_a_json_error(tmp_path: Path) -> None:
    root = make_review_suite(tmp_path / "s")
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "adjudication-pending.jsonl").write_text(
        json.dumps({"suite": "review-test", "case": "rec-1"}) + "\n")
    with serving(root, reports=reports) as (url, _):
        port = url.rsplit(":", 1)[1]
        status, body = raw(url, f"GET /api/pending HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                "Connection: close\r\n\r\n".encode())
    assert status == 500 and "adjudication-pending.jsonl:1" in json.loads(body)["error"]


def test_a_body_over_the_limit_is_refused_unread(tmp_path: Path) -> None:
    """Finding 4: 413 from Content-Length alone, before any of the body arrives."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, bench):
        status, body = post(url, bench.token, b"", length=str(MAX_BODY + 1))
    assert status == 413 and "limit" in json.loads(body)["error"]


@pytest.mark.parametrize(("length", "status"), [("-1", 400), ("1e3", 400), (None, 411)])
def test_a_missing_or_bad_length_is_refused(tmp_path: Path, length: str | None,
                                            status: int) -> None:
    """Finding 5: ``Content-Length: -1`` used to read until the client hung up."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, bench):
        port = url.rsplit(":", 1)[1]
        head = (f"POST /api/case HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"{TOKEN_HEADER}: {bench.token}\r\n")
        if length is not None:
            head += f"Content-Length: {length}\r\n"
        port_socket = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
        with port_socket as sock:  # the client keeps its side open: no EOF to wait for
            sock.sendall((head + "\r\n").encode())
            answer = sock.recv(65536)
    assert int(answer.split()[1]) == status


def test_a_stalled_body_is_timed_out(tmp_path: Path) -> None:
    """Finding 5: a client that sends 10 bytes of a long body and stops is answered 408
    and dropped after the request timeout (a short one here); the server keeps serving."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, bench):
        bench.request_timeout = 0.5
        port = url.rsplit(":", 1)[1]
        with socket.create_connection(("127.0.0.1", int(port)), timeout=30) as sock:
            sock.sendall((f"POST /api/case HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                          f"{TOKEN_HEADER}: {bench.token}\r\nContent-Length: 100000\r\n\r\n"
                          "0123456789").encode())
            answer = b""
            while chunk := sock.recv(65536):  # answered 408, then closed by the server
                answer += chunk
            assert answer.split()[1] == b"408"
        status, _ = raw(url, f"GET /api/suite HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                             "Connection: close\r\n\r\n".encode())
        assert status == 200


def test_a_decision_for_an_entry_no_longer_pending_is_a_conflict(tmp_path: Path) -> None:
    """Findings 15 and 17 over HTTP: 409 for a stale target, 422 for a score of 2.0."""
    root = make_review_suite(tmp_path / "s")
    reports = tmp_path / "reports"
    reports.mkdir()
    entry = {"suite": "review-test", "case": "rec-1", "product": "p", "output_hash": "1" * 64,
             "rule": "A1", "judges": [{"name": "a", "score": 2, "reason": "ok"}]}
    (reports / "adjudication-pending.jsonl").write_text(json.dumps(entry) + "\n")
    target = {k: entry[k] for k in ("suite", "case", "product", "rule", "output_hash")}
    decision = {"score": 2, "reason": "kept", "decided_by": "kk"}
    with serving(root, reports=reports, judges=tmp_path / "judges") as (url, bench):
        stale = json.dumps({**decision, "target": {**target, "output_hash": "0" * 64}}).encode()
        status, body = post(url, bench.token, stale, path="/api/decide")
        assert status == 409 and "no longer pending" in json.loads(body)["error"]
        floaty = json.dumps({**decision, "score": 2.0, "target": target}).encode()
        status, body = post(url, bench.token, floaty, path="/api/decide")
        assert status == 422 and "integer" in json.loads(body)["error"]
        status, body = post(url, bench.token, json.dumps({**decision, "target": target})
                            .encode(), path="/api/decide")
        assert status == 200 and json.loads(body)["case"] == "rec-1"
    assert not (tmp_path / "judges" / "adjudications.jsonl").read_text().count("2.0")


def test_a_client_that_goes_away_does_not_stop_the_server(tmp_path: Path) -> None:
    """Finding 3: a connection reset mid-request is dropped quietly."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, bench):
        port = int(url.rsplit(":", 1)[1])
        for _ in range(3):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(f"POST /api/case HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                         f"{TOKEN_HEADER}: {bench.token}\r\nContent-Length: 50\r\n\r\n{{"
                         .encode())
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
            sock.close()  # a reset, not a clean close
        status, _ = raw(url, f"GET /api/suite HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                             "Connection: close\r\n\r\n".encode())
        assert status == 200


def test_a_decision_that_would_not_load_is_not_written(tmp_path: Path) -> None:
    """A refused decision leaves adjudications.jsonl as it was (checked before writing)."""
    from pytest_dictbench.errors import DictbenchError
    from pytest_dictbench.workbench.adjudicate import Adjudication

    reports = tmp_path / "reports"
    reports.mkdir()
    entry = {"suite": "s", "case": "c1", "product": "p", "output_hash": "not-a-digest",
             "rule": "A1", "judges": []}
    (reports / "adjudication-pending.jsonl").write_text(json.dumps(entry) + "\n")
    adjudication = Adjudication("s", {}, reports, tmp_path / "judges")
    target = {k: entry[k] for k in ("suite", "case", "product", "rule", "output_hash")}
    with pytest.raises(DictbenchError, match="output_hash"):
        adjudication.decide(target, 2, "kept", "kk")
    assert not (tmp_path / "judges" / "adjudications.jsonl").exists()


def test_a_slow_body_gets_408_at_the_request_deadline(tmp_path: Path) -> None:
    """Review defect 10: the timeout is a deadline for the whole body, not per recv: a
    body trickled a byte at a time, each byte well inside the timeout, gets 408."""
    import time

    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, bench):
        bench.request_timeout = 1.0
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall((f"POST /api/case HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                          f"{TOKEN_HEADER}: {bench.token}\r\nContent-Length: 16\r\n\r\n"
                          ).encode())
            answer = b""
            with contextlib.suppress(OSError):
                for byte in b'{"case": 1}     ':
                    sock.sendall(bytes([byte]))
                    time.sleep(0.3)
                    sock.setblocking(False)
                    with contextlib.suppress(BlockingIOError):
                        answer += sock.recv(65536)
                    sock.setblocking(True)
                    if answer:
                        break
            sock.settimeout(10)
            with contextlib.suppress(OSError):
                answer += sock.recv(65536)
        assert answer.split(b"\r\n")[0].split()[1] == b"408"
        assert "deadline" in json.loads(answer.partition(b"\r\n\r\n")[2])["error"]


@pytest.mark.parametrize("length", ["\xb2", "\u0661\u0662", "+5", " 1 2"])
def test_a_non_ascii_digit_length_is_a_400(tmp_path: Path, length: str) -> None:
    """Review defect 10: ``str.isdigit`` accepts ``²`` and Arabic-Indic digits, which
    ``int`` refuses (a 500 before); only ASCII digits are a length."""
    root = make_review_suite(tmp_path / "s")
    with serving(root) as (url, bench):
        port = url.rsplit(":", 1)[1]
        head = (f"POST /api/case HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"{TOKEN_HEADER}: {bench.token}\r\nContent-Length: {length}\r\n"
                "Connection: close\r\n\r\nxx")
        status, body = raw(url, head.encode("utf-8") if length[0] > "\xff"
                           else head.encode("latin-1"))
    assert status == 400 and "is not a length" in json.loads(body)["error"]


def test_connections_are_bounded(tmp_path: Path) -> None:
    """Review defect 10: stalled connections hold at most MAX_CONNECTIONS threads; one
    more is answered 503 at once, and the server serves again once they are gone."""
    from pytest_dictbench.localserver import MAX_CONNECTIONS

    root = make_review_suite(tmp_path / "s")
    get = b"GET /api/suite HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n"
    with serving(root) as (url, _):
        port = int(url.rsplit(":", 1)[1])
        held = [socket.create_connection(("127.0.0.1", port), timeout=30)
                for _ in range(MAX_CONNECTIONS)]
        try:
            for sock in held:  # each is accepted and waits for its request line
                sock.sendall(b"GET /api/suite HTTP/1.1\r\n")
            status, body = raw(url, get % port)
            assert status == 503 and "busy" in json.loads(body)["error"]
        finally:
            for sock in held:
                sock.close()
        for _ in range(50):  # the held threads end as their sockets close
            status, _ = raw(url, get % port)
            if status == 200:
                break
            __import__("time").sleep(0.05)
        assert status == 200
