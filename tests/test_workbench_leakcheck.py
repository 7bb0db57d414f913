"""``dictbench leak-check`` on planted leaks of every kind, on git's staged files, and
on a clean export of this repository."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from workbench_support import write_wav

from pytest_dictbench.cli import main
from pytest_dictbench.hashes import refresh_hashes
from pytest_dictbench.workbench.leakcheck import leak_check, tokens

REPO = Path(__file__).parents[1]
CANARY = "DICTBENCH-CANARY secret-suite 3f0c2b9a-1d4e-4a77-8c55-e2b1d9f06a43"
REFERENCE = ("Remind Tomasz that the Kowalski contract renewal is due on the fourth of "
             "March and the budget stays at forty thousand.")
JA_REFERENCE = "来週の木曜日に経理部の佐伯さんと予算の見直しについて打ち合わせをします。"
KEY_POINT = "Budget stays at forty thousand"
# credentials and home paths are assembled here so that this file itself holds none
ANTHROPIC = "sk-ant-" + "api03-" + "Zq8" * 30
OPENAI = "sk-" + "proj-" + "Hx7_" * 15
BEARER = "Authorization: " + "Bearer " + "eyJhbGciOi" * 4
HOME_PATH = "/" + "home/alice/recordings/today.wav"


def private_suite(root: Path) -> Path:
    suite = root / "private" / "secret"
    write_wav(suite / "audio" / "c1.wav", 0.5)
    rows = [{"id": "c1", "canary": CANARY, "audio": "audio/c1.wav", "reference": REFERENCE,
             "key_points": [{"id": "k1", "text": KEY_POINT, "severity": "critical"}]},
            {"id": "c2", "canary": CANARY, "reference": JA_REFERENCE, "key_points": []}]
    (suite / "cases.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                               for r in rows), encoding="utf-8")
    (suite / "suite.toml").write_text(
        f'id = "secret"\nversion = "1"\ntitle = "Secret"\nmethod = "keypoints"\n'
        f'locale = "en-US"\ncanary = "{CANARY}"\nprivate = true\n', encoding="utf-8")
    refresh_hashes(suite)
    return suite


def plant(root: Path) -> dict[str, tuple[int, str]]:
    """One file per kind of leak; returns file name -> (line, kind)."""
    suite = private_suite(root)
    out = root / "public"
    out.mkdir()
    planted = {
        "notes.md": ("# Notes\n\nremind tomasz that the KOWALSKI contract renewal is due "
                     "soon\n", 3, "private-text"),
        "points.txt": ("ok\nok\nbudget  stays at forty thousand!\n", 3, "private-text"),
        "ja.txt": ("メモ：経理部の佐伯さんと予算の見直しについて\n", 1, "private-text"),
        "canary.txt": (f"header\n{CANARY}\n", 2, "private-canary"),
        "paths.py": (f'DATA = "{HOME_PATH}"\n', 1, "home-path"),
        "mine.cfg": ("x = 1\ncache = /srv/builder/.cache/dictbench\n", 2, "home-path"),
        "anthropic.env": (f"ANTHROPIC_API_KEY={ANTHROPIC}\n", 1, "anthropic-key"),
        "openai.env": (f"\n\nOPENAI_API_KEY={OPENAI}\n", 3, "openai-key"),
        "curl.sh": (f"curl -H '{BEARER}' https://api.example\n", 1, "bearer-token"),
    }
    expected = {}
    for name, (text, line, kind) in planted.items():
        (out / name).write_text(text, encoding="utf-8")
        expected[name] = (line, kind)
    shutil.copy(suite / "audio" / "c1.wav", out / "copy.wav")
    expected["copy.wav"] = (1, "private-audio")
    (out / "clean.md").write_text("A contract is due in March; nothing else here.\n")
    return expected


def test_tokens_fold_case_width_and_split_cjk() -> None:
    assert tokens("Ｈello, WORLD—it's") == ["hello", "world", "it", "s"]
    assert tokens("予算の見直し") == ["予", "算", "の", "見", "直", "し"]


def test_every_planted_leak_is_found(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    expected = plant(tmp_path)
    findings = leak_check([tmp_path], home="/srv/builder")
    found = {Path(f.path).name: (f.line, f.kind) for f in findings}
    assert found == expected
    # the private suite's own files (canary, audio, text) are its data, not leaks
    assert not [f for f in findings if f.path.startswith("private/")]

    assert main(["leak-check", str(tmp_path), "--home", "/srv/builder"]) == 1
    printed = capsys.readouterr().out
    assert "\npublic/anthropic.env:1: anthropic-key" in "\n" + printed  # relative
    for secret in (ANTHROPIC, OPENAI, BEARER.split()[-1], CANARY, REFERENCE):
        assert secret not in printed  # findings never repeat what they found


def test_staged_files_are_checked_as_staged(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    private_suite(tmp_path)
    (tmp_path / ".gitignore").write_text("private/\n")
    (tmp_path / "readme.md").write_text("Nothing to see.\n")
    git("add", ".gitignore", "readme.md")
    assert leak_check([tmp_path], staged=True) == []
    (tmp_path / "leak.md").write_text(f"draft: {REFERENCE}\n")
    git("add", "leak.md")
    git("add", "-f", "private/secret/cases.jsonl")
    (tmp_path / "readme.md").write_text(f"not staged: {REFERENCE}\n")  # working tree only
    kinds = sorted((Path(f.path).name, f.kind) for f in leak_check([tmp_path], staged=True))
    assert kinds == [("cases.jsonl", "private-suite-file"), ("leak.md", "private-text")]


def test_a_clean_export_of_this_repository_passes(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    export = tmp_path / "export"
    export.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", "HEAD"],
                             capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(export)], input=archive.stdout, check=True)
    assert (export / "pyproject.toml").is_file()
    assert main(["leak-check", str(export)]) == 0, capsys.readouterr().out
