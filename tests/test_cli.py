"""``dictbench hash`` and ``dictbench synth`` on real files."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
import soundfile as sf
from support import CANARY

from pytest_dictbench.cli import main, spoken_form
from pytest_dictbench.suites import load_suite


def test_spoken_form_of_verbatim_transcripts() -> None:
    assert spoken_form("So [uh] I I th* think [laughter] it [breath] works.") == \
        "So uh I I th think ha ha it works."


def test_hash_refreshes_digests(pytester: pytest.Pytester, write_suite) -> None:
    root = write_suite(extra='[[files]]\npath = "cases.jsonl"\nsha256 = "' + "0" * 64 + '"\n')
    # [[files]] must be last: write_suite puts [params] after it, so move it
    text = (root / "suite.toml").read_text()
    head, files = text.split("[[files]]")
    files, params = files.split("[params]")
    (root / "suite.toml").write_text(head + "[params]" + params + "\n[[files]]" + files)
    assert main(["hash", str(root)]) == 0
    (entry,) = load_suite(root).files
    assert entry.sha256 == hashlib.sha256((root / "cases.jsonl").read_bytes()).hexdigest()
    assert "threshold = 0.2" in (root / "suite.toml").read_text()  # the rest is kept


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng (CI installs it)")
def test_synth_writes_audio_manifest_and_passes_verify(pytester: pytest.Pytester,
                                                        write_suite) -> None:
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    cases = [{"id": "s1", "genre": "chat", "reference": "Call me at noon."},
             {"id": "s2", "genre": "notes", "reference": "Buy bread and milk."}]
    root = write_suite(cases=cases, extra='[audio]\ncontainer = "FLAC"\nsample_rate = 16000\n'
                                          'channels = 1\nloudness_lufs = -23.0\n')
    assert main(["synth", str(root), "--seed", "7"]) == 0
    rows = [json.loads(line) for line in (root / "cases.jsonl").read_text().splitlines()]
    assert [r["audio"] for r in rows] == ["audio/s1.flac", "audio/s2.flac"]
    info = sf.info(str(root / "audio/s1.flac"))
    assert (info.samplerate, info.channels, info.format) == (16000, 1, "FLAC")
    assert CANARY.encode() in (root / "audio/s1.flac").read_bytes()
    suite = load_suite(root)
    assert [f.path for f in suite.files] == ["cases.jsonl", "audio/s1.flac", "audio/s2.flac"]
    result = pytester.runpytest("--dictbench-verify")
    result.assert_outcomes(passed=10)  # manifest, 3 sha256, 3 canary, 2 audio, gate
    first = (root / "audio/s2.flac").read_bytes()
    assert main(["synth", str(root), "--seed", "7"]) == 0
    assert (root / "audio/s2.flac").read_bytes() == first  # deterministic


def test_synth_refuses_an_output_folder_outside_the_suite(pytester: pytest.Pytester,
                                                          write_suite) -> None:
    root = write_suite()
    assert main(["synth", str(root), "--out", "../elsewhere"]) == 2
    assert not (pytester.path / "cases" / "elsewhere").exists()


def test_hash_refuses_tables_after_the_file_list(pytester: pytest.Pytester,
                                                 write_suite) -> None:
    root = write_suite(extra='[[files]]\npath = "cases.jsonl"\n')  # [params] follows it
    before = (root / "suite.toml").read_bytes()
    assert main(["hash", str(root)]) == 2
    assert (root / "suite.toml").read_bytes() == before


def test_hash_accepts_a_comment_that_mentions_the_file_list(pytester: pytest.Pytester,
                                                            write_suite) -> None:
    root = write_suite(extra="# dictbench hash rewrites the [[files]] tables at the end")
    (root / "suite.toml").write_text((root / "suite.toml").read_text()
                                     + "\n[[files]]  # listed data\npath = \"cases.jsonl\"\n")
    assert main(["hash", str(root)]) == 0
    text = (root / "suite.toml").read_text()
    assert "# dictbench hash rewrites the [[files]] tables at the end" in text
    assert "threshold = 0.2" in text
    (entry,) = load_suite(root).files
    assert entry.sha256 == hashlib.sha256((root / "cases.jsonl").read_bytes()).hexdigest()


@pytest.mark.parametrize("suite", ["en-dictation", "en-verbatim", "ja-dictation"])
def test_hash_leaves_an_up_to_date_suite_untouched_byte_for_byte(
        pytester: pytest.Pytester, suite: str) -> None:
    from pathlib import Path

    source = Path(__file__).resolve().parents[1] / "cases" / suite
    if not source.is_dir():
        pytest.skip(f"bundled suite {suite} not present")
    root = pytester.path / suite
    shutil.copytree(source, root)
    before = (root / "suite.toml").read_bytes()
    mtime = (root / "suite.toml").stat().st_mtime_ns
    assert main(["hash", str(root)]) == 0
    assert (root / "suite.toml").read_bytes() == before
    assert (root / "suite.toml").stat().st_mtime_ns == mtime


@pytest.mark.parametrize(("option", "value"), [
    ("--silence-ms", "-300"), ("--silence-ms", "inf"), ("--lufs", "nan"), ("--lufs", "inf"),
    ("--seed", "-1"), ("--rate", "0"), ("--rate", "7"), ("--silence-ms", "many")])
def test_synth_refuses_a_bad_option_before_touching_a_file(
        pytester: pytest.Pytester, write_suite, capsys: pytest.CaptureFixture[str],
        option: str, value: str) -> None:
    root = write_suite()
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    with pytest.raises(SystemExit) as stopped:
        main(["synth", str(root), option, value])
    assert stopped.value.code == 2
    assert f"argument {option}: {value!r} is" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_version_names_the_installed_package(capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_dictbench import __version__

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"dictbench {__version__}\n"


def test_every_argument_of_every_subcommand_has_help() -> None:
    import argparse

    from pytest_dictbench.cli import build_parser

    def subparsers(parser: argparse.ArgumentParser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield name, sub
                    yield from ((f"{name} {n}", s) for n, s in subparsers(sub))

    missing = [f"{name}: {action.dest}" for name, sub in subparsers(build_parser())
               for action in sub._actions
               if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
               and not action.help]
    assert missing == []
