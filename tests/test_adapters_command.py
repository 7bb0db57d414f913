"""The command adapter: argv templates, no shell, and its capture errors."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from adapter_support import cache_lines, make_product, make_suite

from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.command import CommandTranscriber, command_adapter, expand_argv
from pytest_dictbench.adapters.live import CaptureRequest, LiveAdapter
from pytest_dictbench.errors import ProductError
from pytest_dictbench.model import Output, Suite

#: Prints its arguments as JSON, so the test sees exactly what the program received.
ECHO_ARGS = "import json, sys\nprint(json.dumps(sys.argv[1:]))\n"

HOSTILE_NAMES = [
    "with space.wav",
    "quote's \"double\".wav",
    "semi;colon; touch MARKER_SEMI.wav",
    "$(touch MARKER_SUBST).wav",
    "`touch MARKER_TICK`.wav",
    "-leading-dash.wav",
    "brace {locale} {case_id}.wav",
    "star *.wav",
]


def run(tmp_path: Path, suite: Suite, settings: dict[str, Any], case: int = 0,
        **options: Any) -> tuple[Output | None, LiveAdapter]:
    product = make_product(tmp_path / "products", "command", settings)
    adapter = command_adapter(product, suite, AdapterOptions(warmup=False, **options))
    return adapter.get(suite.cases[case], 1), adapter


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return str(path)


def test_expand_argv_is_one_pass_and_touches_nothing_else() -> None:
    values = {"audio": "/x/{case_id} $(rm -rf ~).wav", "locale": "en-US", "case_id": "c1"}
    assert expand_argv(["p", "--in={audio}", "{locale}:{case_id}", "{other}", "{{audio}}"],
                       values) == [
        "p", "--in=/x/{case_id} $(rm -rf ~).wav", "en-US:c1", "{other}", "{/x/{case_id} "
        "$(rm -rf ~).wav}"]


def test_hostile_file_names_reach_the_program_as_one_argument_and_no_shell_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = make_suite(tmp_path / "suite", {f"c{n}": name for n, name in
                                            enumerate(HOSTILE_NAMES)})
    echo = script(tmp_path, "echo_args.py", ECHO_ARGS)
    work = tmp_path / "products"
    monkeypatch.chdir(tmp_path)  # a shell would create its markers here or in work
    settings = {"command": [sys.executable, echo, "{audio}", "{locale}", "{case_id}"]}
    for n, name in enumerate(HOSTILE_NAMES):
        output, _ = run(tmp_path, suite, settings, case=n)
        assert output is not None and output.status == "complete", output
        received = json.loads(output.text)
        assert received == [str((suite.root / name).resolve()), "en-US", f"c{n}"]
        assert received[0].startswith("/")  # a leading '-' can never look like an option
    for folder in (tmp_path, work, suite.root):
        assert not list(folder.glob("MARKER*"))


def test_a_command_string_is_split_once_and_data_is_never_split(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "a b; touch MARKER.wav"})
    echo = script(tmp_path, "echo args.py", ECHO_ARGS)
    command = f"{sys.executable} '{echo}' --audio={{audio}} \"two words\""
    output, _ = run(tmp_path, suite, {"command": command})
    assert output is not None
    assert json.loads(output.text) == [
        f"--audio={(suite.root / 'a b; touch MARKER.wav').resolve()}", "two words"]
    assert not list(tmp_path.rglob("MARKER"))


def test_stdout_is_decoded_as_utf8_and_stripped(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    say = script(tmp_path, "say.py", "import sys\n"
                 "sys.stdout.buffer.write('  héllo wörld 東京\\n\\n'.encode())\n")
    output, adapter = run(tmp_path, suite, {"command": [sys.executable, say],
                                            "engine": "say", "engine_version": "3"})
    assert output is not None and output.text == "héllo wörld 東京"
    line = json.loads(cache_lines(adapter.product, suite)[0])
    assert (line["engine"], line["engine_version"]) == ("say", "3")


def test_non_zero_exit_is_an_error_with_code_and_last_stderr_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICTBENCH_TEST_SECRET", "s3cr3t-value")
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    fail = script(tmp_path, "fail.py", "import os, sys\n"
                  "print(dict(os.environ))\n"
                  "print('loading model', file=sys.stderr)\n"
                  "print('boom: model file corrupt', file=sys.stderr)\n"
                  "sys.exit(3)\n")
    output, adapter = run(tmp_path, suite, {"command": [sys.executable, fail]})
    assert output is not None and output.status == "error"
    assert output.error == "command exited with status 3; stderr: boom: model file corrupt"
    assert "s3cr3t-value" not in "\n".join(cache_lines(adapter.product, suite))


def test_empty_stdout_is_an_empty_transcript_not_an_error(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    quiet = script(tmp_path, "quiet.py", "print('   ')\n")
    output, adapter = run(tmp_path, suite, {"command": [sys.executable, quiet]})
    assert output is not None and output.status == "complete" and output.error is None
    assert output.text == ""
    assert json.loads(cache_lines(adapter.product, suite)[0])["text"] == ""


def test_context_placeholder_gets_the_case_context(tmp_path: Path) -> None:
    echo = script(tmp_path, "echo_args.py", ECHO_ARGS)
    transcriber = CommandTranscriber([sys.executable, echo, "--prompt={context}", "{case_id}"],
                                     timeout_s=30, cwd=tmp_path, describe={})
    request = CaptureRequest("c1", tmp_path / "a.wav", "ja-JP", context="佐藤; $(x) {audio}")
    assert json.loads(transcriber.transcribe(request)) == ["--prompt=佐藤; $(x) {audio}", "c1"]
    plain = CaptureRequest("c1", tmp_path / "a.wav", "ja-JP")
    assert json.loads(transcriber.transcribe(plain)) == ["--prompt=", "c1"]
    assert request.fill("名前: {context}") == "名前: 佐藤; $(x) {audio}"


def test_a_grandchild_holding_stdout_cannot_hold_the_item_past_the_timeout(
        tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    marker = tmp_path / "grandchild.pid"
    # The grandchild leaves the command's session, so killing the group cannot reach it.
    leaver = script(tmp_path, "leaver.py", (
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],\n"
        "                         start_new_session=True)\n"
        f"open({str(marker)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)\n"))
    start = time.monotonic()
    output, _ = run(tmp_path, suite, {"command": [sys.executable, leaver], "timeout_s": 1})
    elapsed = time.monotonic() - start
    os.kill(int(marker.read_text()), signal.SIGKILL)
    assert elapsed < 8, elapsed
    assert output is not None and output.status == "error"
    assert output.error == "command timed out after 1 s"


def test_a_command_that_exits_but_leaves_a_child_on_stdout_returns_its_text(
        tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    quick = script(tmp_path, "quick.py", (
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print('done early', flush=True)\n"))
    start = time.monotonic()
    output, _ = run(tmp_path, suite, {"command": [sys.executable, quick], "timeout_s": 30})
    assert time.monotonic() - start < 8
    assert output is not None and output.status == "complete" and output.text == "done early"


def test_timeout_kills_the_command_and_is_an_error(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    sleepy = script(tmp_path, "sleepy.py", "import time\ntime.sleep(30)\nprint('late')\n")
    start = time.monotonic()
    output, _ = run(tmp_path, suite, {"command": [sys.executable, sleepy], "timeout_s": 0.5})
    assert time.monotonic() - start < 10
    assert output is not None and output.status == "error"
    assert output.error == "command timed out after 0.5 s"


def test_missing_program_is_an_error(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    output, _ = run(tmp_path, suite, {"command": ["./no-such-asr", "{audio}"]})
    assert output is not None and output.status == "error"
    assert output.error == (f"cannot start command './no-such-asr' (looked for "
                            f"{tmp_path / 'products' / 'no-such-asr'}; a relative path starts "
                            "from the product file's folder): No such file or directory")
    output, _ = run(tmp_path, suite, {"command": ["no-such-asr-on-path", "{audio}"]})
    assert output is not None and output.error is not None and output.error.startswith(
        "cannot start command 'no-such-asr-on-path' (looked in the folders on PATH): ")


def test_relative_program_paths_start_from_the_product_folder(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    (tmp_path / "products").mkdir()
    (tmp_path / "products" / "tool.py").write_text("print('from tool')\n", encoding="utf-8")
    output, _ = run(tmp_path, suite, {"command": [sys.executable, "tool.py"]})
    assert output is not None and output.text == "from tool"


@pytest.mark.parametrize(("settings", "message"), [
    ({}, "command is required"),
    ({"command": []}, "command is empty"),
    ({"command": [1, 2]}, "string or a list of strings"),
    ({"command": "unterminated 'quote"}, "cannot be split"),
    ({"command": "asr", "timeout_s": 0}, "timeout_s must be positive"),
    ({"command": "asr", "comand": "typo"}, "unknown key.*comand"),
])
def test_bad_settings_are_product_errors_at_construction(
        tmp_path: Path, settings: dict[str, Any], message: str) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    product = make_product(tmp_path / "products", "command", settings)
    with pytest.raises(ProductError, match=message):
        command_adapter(product, suite, AdapterOptions())
