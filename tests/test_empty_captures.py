"""What an empty capture keeps: a completed command capture with no text keeps a short,
scrubbed tail of the command's stderr (J42); a rejected request is an error, never an
``"empty": true`` record (J41)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from adapter_support import cache_lines, make_product, make_suite
from support import MINI_CASES

from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.command import command_adapter


def test_an_empty_capture_keeps_a_scrubbed_stderr_tail(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "s3cr3t-value")  # always a secret
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    program = tmp_path / "quiet.py"
    program.write_text("import sys\n"
                       "print('x' * 5000, file=sys.stderr)\n"  # older lines: cut
                       "print('token s3cr3t-value', file=sys.stderr)\n"
                       "print('warning: no speech detected', file=sys.stderr)\n",
                       encoding="utf-8")
    product = make_product(tmp_path / "products", "command",
                           {"command": [sys.executable, str(program)]})
    adapter = command_adapter(product, suite, AdapterOptions(warmup=False))
    output = adapter.get(suite.cases[0], 1)
    assert output is not None and output.status == "complete" and output.text == ""
    line = json.loads(cache_lines(adapter.product, suite)[0])
    assert line["stderr"].endswith("token <redacted>\nwarning: no speech detected")
    assert len(line["stderr"]) <= 300 and "s3cr3t-value" not in line["stderr"]
    assert output.meta["stderr"] == line["stderr"]


def test_a_capture_with_text_keeps_no_stderr(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"c1": "c1.wav"})
    program = tmp_path / "talk.py"
    program.write_text("import sys\nprint('loading', file=sys.stderr)\nprint('hello')\n",
                       encoding="utf-8")
    product = make_product(tmp_path / "products", "command",
                           {"command": [sys.executable, str(program)]})
    adapter = command_adapter(product, suite, AdapterOptions(warmup=False))
    output = adapter.get(suite.cases[0], 1)
    assert output is not None and output.text == "hello" and "stderr" not in output.meta


def test_records_flag_only_completed_empty_transcripts(pytester: pytest.Pytester,
                                                       write_suite, write_product) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite()
    outputs = [{"case_id": "c1", "status": "error", "error": "provider rejected the request"},
               {"case_id": "c2", "text": ""},
               *({"case_id": c["id"], "text": c["reference"]} for c in MINI_CASES[2:])]
    write_product(outputs=outputs)
    pytester.runpytest("--product=p1")
    lines = (pytester.path / "reports/items.jsonl").read_text("utf-8").splitlines()
    empty = {r["case_id"]: r["empty"] for r in map(json.loads, lines)}
    assert empty == {"c1": False, "c2": True, "c3": False, "c4": False}


def test_the_item_message_of_an_empty_capture_quotes_stderr(pytester: pytest.Pytester,
                                                           write_suite, write_product) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    write_suite()
    outputs = [{"case_id": c["id"], "text": c["reference"]} for c in MINI_CASES]
    outputs[0] = {"case_id": "c1", "text": "", "stderr": "loading\nwarning: no speech detected"}
    write_product(outputs=outputs)
    pytester.runpytest("--product=p1")
    lines = (pytester.path / "reports/items.jsonl").read_text("utf-8").splitlines()
    first = json.loads(lines[0])
    assert first["case_id"] == "c1" and first["empty"] is True
    assert first["message"].endswith("stderr: warning: no speech detected")
