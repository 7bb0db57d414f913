"""``dictbench leak-check``: look for what must not be published.

Kinds of finding, each printed as ``file:line: kind: detail`` (the secret itself is
never printed):

- ``private-text``: a line sharing a long n-gram (8 tokens; a whole key point of 5 to 7
  tokens) with a private suite's reference, transcript or key point;
- ``private-audio``: a file with the same bytes as a private suite's audio;
- ``private-canary``: a private suite's canary outside its own folder;
- ``private-suite-file``: with ``--staged``, a staged file inside a private suite;
- ``home-path``: an absolute path into a user's home folder (on Linux, macOS or Windows,
  or the current user's home);
- ``anthropic-key``, ``openai-key``, ``bearer-token``: credentials.

Tokens are NFKC, lower-cased word runs, with each CJK character a token of its own.
Files of a private suite's own folder are its data and are not searched for its text.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DictbenchError
from ..private import public_case_id
from ..suites import MANIFEST, load_suite, read_toml

__all__ = ["Finding", "PrivateSuite", "leak_check", "tokens"]

NGRAM = 8
MIN_POINT = 5
_MAX_TEXT_BYTES = 20 * 1024 * 1024
_SKIP_DIRS = {".git", "__pycache__", ".venv", "venv", "node_modules", ".ruff_cache",
              ".pytest_cache", ".hypothesis", ".mypy_cache"}
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]"
                    r"|[^\W\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
SECRETS = (
    ("anthropic-key", re.compile(r"sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_-]{40,}")),
    ("openai-key", re.compile(r"(?<![\w-])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"
                              r"|[A-Za-z0-9]{40,})")),
    ("bearer-token", re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]{24,}=*")),
)
_HOME = re.compile(r"(?<![\w.])(?:/home/[a-z_][a-z0-9_.-]*/|/Users/[A-Za-z0-9_.-]+/"
                   r"|[A-Za-z]:\\\\?Users\\\\?[A-Za-z0-9_.-]+)")


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    kind: str
    detail: str

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.detail}"


def tokens(text: str) -> list[str]:
    """Comparison tokens of ``text`` (see the module docstring)."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).lower())


@dataclass
class PrivateSuite:
    """What leak-check looks for from one private suite."""

    id: str
    root: Path
    canary: bytes
    grams: dict[tuple[str, ...], str] = field(default_factory=dict)
    audio: dict[str, str] = field(default_factory=dict)  # sha256 -> public case id
    sizes: set[int] = field(default_factory=set)

    @classmethod
    def load(cls, path: Path) -> PrivateSuite:
        suite = load_suite(path)
        found = cls(suite.id, suite.root.resolve(), suite.canary.encode("utf-8"))
        for case in suite.cases:
            shown = public_case_id(suite, case.id)
            texts = [str(case.data.get(k, "")) for k in ("reference", "transcript", "script",
                                                          "verbatim")]
            texts += [str(p.get("text", "")) for p in case.data.get("key_points", ())
                      if isinstance(p, dict)]
            texts += [str(e) for e in case.data.get("expected", ()) if isinstance(e, str)]
            for text in texts:
                found.add_text(text, shown)
            audio = case.data.get("audio")
            if isinstance(audio, str) and (suite.root / audio).is_file():
                data = (suite.root / audio).read_bytes()
                found.audio[hashlib.sha256(data).hexdigest()] = shown
                found.sizes.add(len(data))
        return found

    def add_text(self, text: str, shown: str) -> None:
        words = tokens(text)
        if len(words) >= NGRAM:
            for i in range(len(words) - NGRAM + 1):
                self.grams.setdefault(tuple(words[i:i + NGRAM]), shown)
        elif len(words) >= MIN_POINT:
            self.grams.setdefault(tuple(words), shown)

    def owns(self, path: Path) -> bool:
        return path.resolve().is_relative_to(self.root)


def find_private_suites(paths: Iterable[Path]) -> list[Path]:
    """Suite folders under ``paths`` whose manifest says ``private = true``."""
    found = set()
    for base in paths:
        if not base.is_dir():
            continue
        for manifest in base.rglob(MANIFEST):
            if _SKIP_DIRS & set(manifest.parts):
                continue
            try:
                if read_toml(manifest).get("private") is True:
                    found.add(manifest.parent.resolve())
            except DictbenchError:
                continue
    return sorted(found)


def _walk(path: Path) -> Iterator[Path]:
    if path.is_file():
        yield path
        return
    listed = _git_listing(path)
    if listed is not None:
        yield from listed
        return
    for child in sorted(path.iterdir()):
        if child.is_dir() and child.name not in _SKIP_DIRS and not child.is_symlink():
            yield from _walk(child)
        elif child.is_file():
            yield child


def _git_listing(folder: Path) -> list[Path] | None:
    """Tracked and untracked-but-not-ignored files of a git work tree, else ``None``."""
    try:
        run = subprocess.run(["git", "-C", str(folder), "ls-files", "-z", "-c", "-o",
                              "--exclude-standard"], capture_output=True, check=False,
                             timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if run.returncode != 0:
        return None
    names = [n for n in run.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
    return sorted(folder / n for n in names if (folder / n).is_file())


def _staged(folder: Path) -> tuple[Path, list[tuple[Path, bytes]]]:
    """The work tree's top folder, and each staged (added, copied, modified, renamed)
    file with its staged content."""
    run = subprocess.run(["git", "-C", str(folder), "diff", "--cached", "--name-only", "-z",
                          "--diff-filter=ACMR"], capture_output=True, check=False, timeout=60)
    if run.returncode != 0:
        raise DictbenchError(f"git diff --cached failed: {run.stderr.decode(errors='replace')}",
                             path=folder)
    top = subprocess.run(["git", "-C", str(folder), "rev-parse", "--show-toplevel"],
                         capture_output=True, check=True, timeout=60)
    root = Path(top.stdout.decode().strip())
    out = []
    for name in (n for n in run.stdout.decode("utf-8", "surrogateescape").split("\0") if n):
        blob = subprocess.run(["git", "-C", str(root), "show", f":{name}"],
                              capture_output=True, check=True, timeout=60)
        out.append((root / name, blob.stdout))
    return root, out


def _scan(shown: str, path: Path, data: bytes, suites: list[PrivateSuite],
          home: str) -> list[Finding]:
    findings: list[Finding] = []
    others = [s for s in suites if not s.owns(path)]
    for suite in others:
        if len(data) in suite.sizes and hashlib.sha256(data).hexdigest() in suite.audio:
            digest = hashlib.sha256(data).hexdigest()
            findings.append(Finding(shown, 1, "private-audio", f"same bytes as the audio of "
                                    f"case {suite.audio[digest]} of suite {suite.id}"))
        if suite.canary in data:
            line = data[:data.index(suite.canary)].count(b"\n") + 1
            findings.append(Finding(shown, line, "private-canary",
                                    f"canary of private suite {suite.id}"))
    if b"\0" in data[:8192] or len(data) > _MAX_TEXT_BYTES:
        return findings  # binary: only whole-file checks
    text = data.decode("utf-8", "replace")
    home_prefix = home.rstrip("/") + "/" if home and home not in ("/", "") else None
    for number, line in enumerate(text.splitlines(), start=1):
        for kind, pattern in SECRETS:
            if pattern.search(line):
                findings.append(Finding(shown, number, kind, "credential-like string"))
        if _HOME.search(line) or (home_prefix and home_prefix in line):
            findings.append(Finding(shown, number, "home-path", "path into a home folder"))
        if others:
            findings.extend(_shared_text(shown, number, line, others))
    return findings


def _shared_text(shown: str, number: int, line: str,
                 suites: list[PrivateSuite]) -> Iterator[Finding]:
    words = tokens(line)
    for suite in suites:
        lengths = {len(g) for g in suite.grams}
        hit = None
        for n in sorted(lengths, reverse=True):
            for i in range(len(words) - n + 1):
                hit = suite.grams.get(tuple(words[i:i + n]))
                if hit:
                    break
            if hit:
                break
        if hit:
            yield Finding(shown, number, "private-text",
                          f"shares a long passage with case {hit} of private suite {suite.id}")


def leak_check(paths: list[Path], *, staged: bool = False, suites: list[Path] | None = None,
               home: str = "") -> list[Finding]:
    """Findings in ``paths`` (or git's staged files), sorted by file and line."""
    paths = paths or [Path(".")]
    if staged:
        top, files = _staged(paths[0])
        private = [PrivateSuite.load(p) for p in suites or find_private_suites([top])]
    else:
        private = [PrivateSuite.load(p) for p in suites or find_private_suites(paths)]
    findings: list[Finding] = []
    if staged:
        for path, data in files:
            shown = str(path)
            for suite in private:
                if suite.owns(path):
                    findings.append(Finding(shown, 1, "private-suite-file",
                                            f"file of private suite {suite.id} is staged"))
            findings.extend(_scan(shown, path, data, private, home))
    else:
        seen: set[Path] = set()
        for base in paths:
            for path in _walk(base):
                if path.resolve() in seen:
                    continue
                seen.add(path.resolve())
                try:
                    data = path.read_bytes()
                except OSError:
                    continue
                findings.extend(_scan(str(path), path, data, private, home))
    return sorted(set(findings))

