"""``leak-check`` on keys and private text in the forms people actually leak them:
encoded, split over lines, in file names, PNG chunks and escaped notebooks; on files it
cannot read, links leading out of the tree, huge files, ignored and staged files
(findings 30-39 of the review)."""

from __future__ import annotations

import base64
import itertools
import json
import os
import struct
import subprocess
import zlib
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from workbench_support import write_wav

from pytest_dictbench.cli import main
from pytest_dictbench.hashes import refresh_hashes
from pytest_dictbench.workbench.leakcheck import leak_check

CANARY = "DICTBENCH-CANARY priv 0001"
TEXT = "田中さんと新宿で一万二千円のランチを食べた"
# assembled here so that this file itself holds no key-shaped string
KEY = "sk-ant-" + "api03-" + "A" * 95


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def tree(tmp_path: Path, audio: bool = False) -> Path:
    """A git work tree holding a private suite that git ignores."""
    root = tmp_path / "lk"
    suite = root / "cases" / "priv"
    suite.mkdir(parents=True)
    git(root, "init", "-q")
    (root / ".git" / "info" / "exclude").write_text("cases/priv/\n")
    (suite / "suite.toml").write_text(
        'id = "priv"\nversion = "1.0.0"\ntitle = "priv"\nmethod = "error_rate"\n'
        f'locale = "ja-JP"\ncanary = "{CANARY}"\nprivate = true\n\n[params]\n'
        'threshold = 0.15\nunit = "word"\n', encoding="utf-8")
    row = {"id": "c1", "canary": CANARY, "reference": TEXT}
    if audio:
        write_wav(suite / "audio" / "c1.wav", 1.25)
        row["audio"] = "audio/c1.wav"
    (suite / "cases.jsonl").write_text(json.dumps(row, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    refresh_hashes(suite)
    return root


def kinds(root: Path, **options: object) -> set[tuple[str, str]]:
    return {(Path(f.path).name, f.kind) for f in leak_check([root], **options)}


def test_keys_split_over_lines_are_found(tmp_path: Path) -> None:
    """Finding 30."""
    root = tree(tmp_path)
    (root / "split.py").write_text(f'KEY = ("{KEY[:30]}"\n       "{KEY[30:]}")\n')
    (root / "folded.yaml").write_text(f"key: >-\n  {KEY[:25]}\n  {KEY[25:70]}\n  {KEY[70:]}\n")
    wrapped = "\n".join(KEY[i:i + 40] for i in range(0, len(KEY), 40))
    (root / "wrapped.txt").write_text(f"the key is\n{wrapped}\nend\n")
    assert kinds(root) == {(n, "anthropic-key") for n in ("split.py", "folded.yaml",
                                                           "wrapped.txt")}
    [split] = [f for f in leak_check([root]) if f.path.endswith("split.py")]
    assert split.line == 1


def test_encoded_keys_are_found(tmp_path: Path) -> None:
    """Finding 31: base64 (also in a Kubernetes Secret), JSON escapes, percent, hex,
    UTF-16 inside a binary file."""
    root = tree(tmp_path)
    b64 = base64.b64encode(KEY.encode()).decode()
    (root / "enc.env").write_text(f"KEY_B64={b64}\n")
    (root / "secret.yaml").write_text(f"kind: Secret\ndata:\n  key: {b64}\n")
    (root / "esc.json").write_text('{"k": "' + KEY.replace("-", "\\u002d") + '"}\n')
    (root / "twice.json").write_text(json.dumps({"k": KEY.replace("-", "\\u002d")}))
    (root / "url.txt").write_text("https://x.example/?k=" + quote(KEY, safe="").replace(
        "-", "%2D") + "\n")
    (root / "hex.txt").write_text(KEY.encode().hex() + "\n")
    (root / "blob.bin").write_bytes(b"\0\1\2" + KEY.encode("utf-16-le") + b"\0\0")
    found = kinds(root)
    assert found == {(n, "anthropic-key") for n in (
        "enc.env", "secret.yaml", "esc.json", "twice.json", "url.txt", "hex.txt",
        "blob.bin")}, found


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(1, len(KEY) - 1), max_size=4, unique=True),
       form=st.sampled_from(["plain", "quoted", "base64", "percent", "escaped"]))
def test_any_split_or_encoding_of_a_key_is_found(tmp_path_factory: pytest.TempPathFactory,
                                                 cuts: list[int], form: str) -> None:
    """Property: a key written in one of the covered encodings, or cut into up to five
    lines (quoted or not), is always reported, on the line where it starts."""
    folder = tmp_path_factory.mktemp("prop")
    if form == "base64":
        text = "v=" + base64.b64encode(KEY.encode()).decode()
    elif form == "percent":
        text = "v=" + "".join(f"%{b:02X}" for b in KEY.encode())
    elif form == "escaped":
        text = '{"v": "' + "".join(f"\\u{ord(c):04x}" for c in KEY) + '"}'
    else:
        bounds = [0, *sorted(cuts), len(KEY)]
        parts = [KEY[a:b] for a, b in itertools.pairwise(bounds)]
        if form == "quoted":
            parts = [f'"{p}"' for p in parts]
        text = "\n".join(parts)
    (folder / "f.txt").write_text("first line\n" + text + "\n")
    found = [f for f in leak_check([folder]) if f.kind == "anthropic-key"]
    assert found and min(f.line for f in found) == 2


def test_private_text_in_names_png_chunks_and_escaped_notebooks(tmp_path: Path) -> None:
    """Finding 32."""
    root = tree(tmp_path)
    (root / "docs").mkdir()
    (root / "docs" / f"{TEXT}.png").write_bytes(b"\x89PNG\r\n\x1a\n")

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"iTXt", b"Description\0\0\0\0\0" + TEXT.encode())
    (root / "docs" / "chart.png").write_bytes(png + chunk(b"IEND", b""))
    packed = chunk(b"zTXt", b"Comment\0\0" + zlib.compress(TEXT.encode("utf-8")))
    (root / "docs" / "z.png").write_bytes(b"\x89PNG\r\n\x1a\n" + packed)
    (root / "esc.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "markdown", "source": [TEXT]}]}))
    found = kinds(root)
    assert {(f"{TEXT}.png", "private-text"), ("chart.png", "private-text"),
            ("esc.ipynb", "private-text")} <= found, found
    # zTXt is Latin-1 by the PNG spec: Japanese there is mojibake, but a key is not
    (root / "docs" / "z.png").write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(
        b"zTXt", b"Comment\0\0" + zlib.compress(KEY.encode())))
    assert ("z.png", "anthropic-key") in kinds(root)


def test_re_encoded_private_audio_is_reported(tmp_path: Path) -> None:
    """Finding 33: a copy written again (other format, other bytes) has the same length."""
    import soundfile as sf

    root = tree(tmp_path, audio=True)
    samples, rate = sf.read(root / "cases/priv/audio/c1.wav")
    sf.write(root / "copy.flac", samples, rate, format="FLAC")
    sf.write(root / "copy-8k.wav", samples[::2], rate // 2)
    write_wav(root / "other.wav", 3.0)
    found = kinds(root)
    assert ("copy.flac", "private-audio") in found
    assert ("copy-8k.wav", "private-audio") in found
    assert ("other.wav", "private-audio") not in found


def test_windows_wsl_and_tilde_home_paths_are_found(tmp_path: Path) -> None:
    """Finding 34."""
    root = tree(tmp_path)
    user, home, users = "kk", "home", "Users"  # assembled: this file holds no such path
    (root / "paths.md").write_text(
        f"C:/{users}/{user}\n\\\\wsl$\\Ubuntu\\{home}\\{user}\n~{user}/notes\n"
        f"//wsl.localhost/Debian/{home}/{user}/x\nfine: ~/.cache\n")
    lines = sorted(f.line for f in leak_check([root]) if f.kind == "home-path")
    assert lines == [1, 2, 3, 4]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a mode-000 file")
def test_a_file_that_cannot_be_read_is_a_finding(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 35."""
    root = tree(tmp_path)
    locked = root / "locked.txt"
    locked.write_text(KEY)
    locked.chmod(0)
    try:
        assert main(["leak-check", str(root)]) == 1
    finally:
        locked.chmod(0o644)
    assert "locked.txt: unreadable: cannot read (permission denied)" in capsys.readouterr().out


def test_a_fifo_is_reported_not_read_and_never_clean(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """Finding 35: what was not read is a finding, and the exit status says so (a FIFO
    is also never opened: reading it would block)."""
    folder = tmp_path / "plain"
    folder.mkdir()
    os.mkfifo(folder / "pipe.txt")
    assert main(["leak-check", str(folder)]) == 1
    out = capsys.readouterr()
    assert "pipe.txt: unreadable: not a regular file" in out.out
    assert "nothing found" not in out.out and "1 file(s) not read" in out.err


def test_links_are_checked_by_their_target_path_never_followed(tmp_path: Path) -> None:
    """Finding 36: the link text is checked (it is what git stores); the target that
    leads out of the tree is never opened."""
    root = tree(tmp_path)
    (tmp_path / "outside.txt").write_text(KEY + "\n")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    (root / "home-link").symlink_to("/" + "home/kk/notes.txt")
    found = kinds(root)
    assert ("link.txt", "anthropic-key") not in found
    assert ("home-link", "home-path") in found


def test_a_huge_file_is_checked_in_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    """Finding 37: past the whole-file limit (lowered here to 1 MB) a file is read in
    chunks, and a canary or a key that straddles two chunks is still found."""
    from pytest_dictbench.workbench import leakcheck

    monkeypatch.setattr(leakcheck, "_MAX_TEXT_BYTES", 1024 * 1024)
    monkeypatch.setattr(leakcheck, "_CHUNK", 256 * 1024)
    root = tree(tmp_path)
    big = bytearray(b"x" * (3 * 1024 * 1024))
    big[256 * 1024 - 10:256 * 1024 - 10 + len(CANARY)] = CANARY.encode()
    at = 2 * 256 * 1024 - 50
    big[at:at + len(KEY)] = KEY.encode()
    big[100:101] = b"\n"
    (root / "big.bin").write_bytes(bytes(big))
    found = {(f.kind, f.line) for f in leak_check([root]) if f.path.endswith("big.bin")}
    assert found == {("private-canary", 2), ("anthropic-key", 2)}


def test_ignored_files_are_counted_and_checked_with_all(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 38."""
    root = tree(tmp_path)
    (root / "reports").mkdir()
    (root / "reports" / "notes.md").write_text(CANARY + "\n")
    (root / ".gitignore").write_text("/reports/*\n")
    assert main(["leak-check", str(root)]) == 0
    err = capsys.readouterr().err
    assert "file(s) that git ignores were not checked (--all" in err
    assert main(["leak-check", "--all", str(root)]) == 1
    assert "notes.md:1: private-canary" in capsys.readouterr().out


def test_staged_findings_are_repo_relative_and_marked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 39."""
    root = tree(tmp_path)
    (root / "config.py").write_text(KEY + "\n")
    git(root, "add", "config.py")
    (root / "config.py").write_text("clean\n")
    monkeypatch.chdir(root)
    assert main(["leak-check", "--staged"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines() == ["config.py:1 (staged): anthropic-key: credential-like string"]


def test_a_private_suite_secret_git_would_see_is_a_finding(tmp_path: Path) -> None:
    """The key of private case ids (finding 28) must not be committed either."""
    from pytest_dictbench.private import SECRET_FILE

    root = tree(tmp_path)
    assert (root / "cases/priv" / SECRET_FILE).is_file()  # made by dictbench hash
    assert kinds(root) == set()  # the suite folder, secret included, is excluded
    (root / ".git/info/exclude").write_text("")
    git(root, "add", "cases/priv")
    assert (SECRET_FILE, "private-suite-secret") in {
        (Path(f.path).name, f.kind) for f in leak_check([root], staged=True)}


def test_a_private_suites_capture_cache_is_a_finding(tmp_path: Path) -> None:
    """Finding 29: the capture cache holds every output text of the private suite."""
    root = tree(tmp_path)
    cache = root / "products" / "acme" / "priv.jsonl"
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps({"case_id": "c1", "text": "an output"}) + "\n")
    (root / "products" / "acme" / "public.jsonl").write_text("{}\n")
    assert kinds(root) == {("priv.jsonl", "private-cache")}
    git(root, "add", "products")
    assert ("priv.jsonl", "private-cache") in kinds(root, staged=True)
