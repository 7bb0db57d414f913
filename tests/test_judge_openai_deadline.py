"""An OpenAI-compatible answer that trickles in is cut off at the call's timeout, and
the error names the judge (J26)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from judge_support import API_KEY, make_request, run_judges

from pytest_dictbench.judge import JudgeClientFactory, JudgeConfig, RetryPolicy

CHUNKS = 40


class Trickle(BaseHTTPRequestHandler):
    """Answers with a chunked event stream, one chunk every 0.25 s, for 10 s."""

    protocol_version = "HTTP/1.1"
    sent = 0

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        try:
            for _ in range(CHUNKS):
                data = b"data: {}\n\n"
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()
                type(self).sent += 1
                time.sleep(0.25)
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass  # the client gave up


def test_a_trickling_answer_is_cut_off_at_the_timeout() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        config = JudgeConfig("judge-o", "m", family="openai", base_url=url,
                             price_in_per_mtok=1.0, price_out_per_mtok=1.0)
        factory = JudgeClientFactory(timeout=1.0, environ={"OPENAI_API_KEY": API_KEY})
        run = run_judges([make_request()], url, judges=[config], factory=factory,
                         retry=RetryPolicy(max_attempts=1))
    finally:
        server.shutdown()
        server.server_close()
    outcome = run.outcome(next(iter(run.requests)), "judge-o")
    assert outcome is not None and outcome.status == "error"
    assert "judge 'judge-o'" in outcome.detail and "1.0 s" in outcome.detail
    assert Trickle.sent < CHUNKS  # cut off: the answer was never read to its end


def _sse(request: object) -> object:
    from judge_server import Reply

    return Reply(body=b"data: {\"choices\": []}\n\ndata: [DONE]\n\n",
                 headers={"content-type": "text/event-stream"})


def test_a_streamed_answer_names_streaming_and_the_judge() -> None:
    from judge_server import MessagesServer

    with MessagesServer(_sse) as server:
        config = JudgeConfig("judge-o", "m", family="openai", base_url=server.url + "/v1",
                             price_in_per_mtok=1.0, price_out_per_mtok=1.0)
        factory = JudgeClientFactory(timeout=5.0, environ={"OPENAI_API_KEY": API_KEY})
        run = run_judges([make_request()], server.url, judges=[config], factory=factory)
    outcome = run.outcome(next(iter(run.requests)), "judge-o")
    assert outcome is not None and "does not support" in outcome.detail
    assert "streaming" in outcome.detail and "judge-o" in outcome.detail


def test_an_endpoint_that_requires_streaming_gets_the_hint() -> None:
    """J28 (a): a 400 saying the endpoint wants ``stream`` names streaming, the judge and
    its base_url (not only the raw HTTP error)."""
    from judge_server import MessagesServer, Reply

    refusal = Reply(status=400, body={"error": {"message": "stream must be true"}})
    with MessagesServer(lambda request: refusal) as server:
        url = server.url + "/v1"
        config = JudgeConfig("judge-o", "m", family="openai", base_url=url,
                             price_in_per_mtok=1.0, price_out_per_mtok=1.0)
        factory = JudgeClientFactory(timeout=5.0, environ={"OPENAI_API_KEY": API_KEY})
        run = run_judges([make_request()], server.url, judges=[config], factory=factory)
    outcome = run.outcome(next(iter(run.requests)), "judge-o")
    assert outcome is not None and outcome.status == "error"
    assert "stream must be true" in outcome.detail
    assert "does not support" in outcome.detail and "judge 'judge-o'" in outcome.detail
    assert url in outcome.detail
