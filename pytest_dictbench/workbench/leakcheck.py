"""``dictbench leak-check``: look for what must not be published.

Kinds of finding, each printed as ``file:line: kind: detail`` (the secret itself is
never printed; ``file: kind: detail`` when it is the file's name or the whole file):

- ``private-text``: a line sharing a long n-gram (8 tokens; a whole key point of 5 to 7
  tokens) with a private suite's reference, transcript or key point;
- ``private-audio``: a file with the same bytes as a private suite's audio, or an audio
  file of the same length (a re-encoded copy, possibly);
- ``private-canary``: a private suite's canary outside its own folder;
- ``private-suite-file``: with ``--staged``, a staged file inside a private suite;
- ``private-cache``: a capture cache of a private suite (``products/<product>/<id>.jsonl``);
- ``private-suite-secret``: a private suite's secret (the key of its case ids), wherever
  git would see it;
- ``home-path``: an absolute path into a user's home folder (on Linux, macOS, Windows or
  WSL, a tilde followed by a user name, or the current user's home);
- ``anthropic-key``, ``openai-key``, ``bearer-token``: credentials;
- ``unreadable``: a file that could not be read, so nothing can be said about it.

Each line is also searched in its decoded forms (percent-encoding, ``\\u`` escapes,
base64 and hex runs; see :mod:`.leakforms`), keys are also looked for over the lines
joined (a key split by a concatenation or a wrap), binary files are searched as Latin-1
and UTF-16 text, PNG text chunks are read, and file names are checked like lines. A
symbolic link is checked by its target's path, never followed; a file over
``_MAX_TEXT_BYTES`` is read in chunks (canary, keys, audio digest only).

Tokens are NFKC, lower-cased word runs, with each CJK character a token of its own.
Files of a private suite's own folder are its data and are not searched for its text.
"""


from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import replace
from pathlib import Path

from ..private import SECRET_FILE
from .leakforms import decoded_forms, joined_lines, png_texts, utf16_texts
from .leakpatterns import (
    BYTE_SECRETS,
    HOME,
    SECRET_BYTE_STARTS,
    SECRET_STARTS,
    SECRETS,
    Finding,
    tokens,
)
from .leaksuites import PrivateSuite, audio_duration, find_private_suites
from .leakwalk import Entry, open_blob, staged_files, walk

__all__ = ["Finding", "PrivateSuite", "leak_check", "tokens"]

_MAX_TEXT_BYTES = 20 * 1024 * 1024
_CHUNK = 1024 * 1024
_OVERLAP = 4096
_AUDIO_SUFFIXES = {".wav", ".flac", ".mp3", ".ogg", ".opus", ".m4a", ".aac", ".aiff"}


class _Scan:
    """The checks for one file: its name, then its content (whole, or in chunks)."""

    def __init__(self, shown: str, path: Path, suites: list[PrivateSuite], home: str,
                 note: str = "") -> None:
        self.shown, self.path, self.note = shown, path, note
        self.others = [s for s in suites if not s.owns(path)]
        self.home = home.rstrip("/") + "/" if home and home not in ("/", "") else None
        self.found: list[Finding] = []

    def add(self, line: int, kind: str, detail: str) -> None:
        self.found.append(Finding(self.shown, line, kind, detail, self.note))

    def line(self, number: int, text: str, how: str = "") -> None:
        """Secrets, home paths and private text in one line of text."""
        suffix = f" ({how})" if how else ""
        for kind, pattern in SECRETS:
            if pattern.search(text):
                self.add(number, kind, "credential-like string" + suffix)
        if HOME.search(text) or (self.home and self.home in text):
            self.add(number, "home-path", "path into a home folder" + suffix)
        for suite in self.others:
            hit = _shared_text(text, suite)
            if hit:
                self.add(number, "private-text", f"shares a long passage with case {hit} "
                         f"of private suite {suite.id}{suffix}")
            if suite.canary.decode("utf-8") in text and how:
                self.add(number, "private-canary", f"canary of private suite {suite.id}"
                         + suffix)

    def text(self, text: str, how: str = "") -> None:
        lines = text.splitlines()
        for number, line in enumerate(lines, start=1):
            self.line(number, line, how)
            for form, decoded in decoded_forms(line):
                self.line(number, decoded, form)
        joined, origin = joined_lines(lines)
        for kind, pattern in SECRETS:
            for match in pattern.finditer(joined):
                self.add(origin[match.start()], kind, "credential-like string")

    def name(self, suites: list[PrivateSuite]) -> None:
        self.line(0, self.shown, "in the file name")
        parts = Path(self.shown).parts
        if len(parts) >= 3 and parts[-3] == "products" and parts[-1].endswith(".jsonl"):
            for suite in suites:
                if parts[-1] == f"{suite.id}.jsonl":
                    self.add(0, "private-cache", f"capture cache of private suite "
                             f"{suite.id}: it holds every output text")

    def content(self, data: bytes) -> None:
        """Checks of a file read whole."""
        for suite in self.others:
            if len(data) in suite.sizes and hashlib.sha256(data).hexdigest() in suite.audio:
                digest = hashlib.sha256(data).hexdigest()
                self.add(1, "private-audio", f"same bytes as the audio of case "
                         f"{suite.audio[digest]} of suite {suite.id}")
            elif suite.durations and self.path.suffix.lower() in _AUDIO_SUFFIXES:
                self.same_length(suite)
            if suite.canary in data:
                line = data[:data.index(suite.canary)].count(b"\n") + 1
                self.add(line, "private-canary", f"canary of private suite {suite.id}")
        for text in png_texts(data):
            for line in text.splitlines():
                self.line(1, line, "in a PNG text chunk")
        if b"\0" not in data[:8192]:
            self.text(data.decode("utf-8", "replace"))
            return
        self.binary(data, 0)

    def same_length(self, suite: PrivateSuite) -> None:
        seconds = audio_duration(self.path)
        if seconds is None:
            return
        for length, case in suite.durations.items():
            if abs(length - seconds) <= max(0.06, 0.005 * length):
                self.add(1, "private-audio", f"audio as long as that of case {case} of "
                         f"suite {suite.id} (possibly a re-encoded copy)")
                return

    def binary(self, data: bytes, lines_before: int) -> None:
        """Keys in binary content: as Latin-1 text and as UTF-16. Each pattern is looked
        for only where its literal start occurs (a byte search, no decoding), so that a
        large file costs a few byte scans per chunk."""
        if any(start in data for start in SECRET_BYTE_STARTS):
            for kind, pattern in BYTE_SECRETS:
                for match in pattern.finditer(data):
                    self.add(lines_before + data.count(b"\n", 0, match.start()) + 1, kind,
                             "credential-like string")
        canaries = [s.canary.decode("utf-8")[:16] for s in self.others]
        # ASCII in UTF-16 (either byte order, either alignment) is ASCII in the even or
        # the odd bytes: two strided copies searched for the plain starts, no decoding
        needles = {n.encode("ascii", "ignore") for n in (*SECRET_STARTS, *canaries)}
        halves = (data[0::2], data[1::2])
        if not any(n and n in half for n in needles for half in halves):
            return
        for text in utf16_texts(data):
            for kind, pattern in SECRETS:
                if pattern.search(text):
                    self.add(lines_before + 1, kind, "credential-like string (UTF-16)")
            for suite in self.others:
                if suite.canary.decode("utf-8") in text:
                    self.add(lines_before + 1, "private-canary",
                             f"canary of private suite {suite.id} (UTF-16)")

    def chunks(self, handle: object, size: int) -> None:
        """Checks of a file too large to read whole: canary, keys, audio digest, each
        over chunks that overlap so that nothing is cut in two."""
        digest = hashlib.sha256() if any(size in s.sizes for s in self.others) else None
        longest = max([len(s.canary) for s in self.others] + [_OVERLAP])
        tail, lines = b"", 0
        while chunk := handle.read(_CHUNK):  # type: ignore[attr-defined]
            if digest is not None:
                digest.update(chunk)
            window = tail + chunk
            for suite in self.others:
                if suite.canary in window:
                    at = window.index(suite.canary)
                    self.add(lines + window[:at].count(b"\n") + 1, "private-canary",
                             f"canary of private suite {suite.id}")
            self.binary(window, lines)
            tail = window[-longest:]
            lines += window.count(b"\n", 0, len(window) - len(tail))
        for suite in self.others:
            if digest is not None and digest.hexdigest() in suite.audio:
                self.add(1, "private-audio", f"same bytes as the audio of case "
                         f"{suite.audio[digest.hexdigest()]} of suite {suite.id}")


def _shared_text(line: str, suite: PrivateSuite) -> str | None:
    words = tokens(line)
    for n in sorted({len(g) for g in suite.grams}, reverse=True):
        for i in range(len(words) - n + 1):
            hit = suite.grams.get(tuple(words[i:i + n]))
            if hit:
                return hit
    return None


def _check_file(entry: Entry, suites: list[PrivateSuite], home: str) -> list[Finding]:
    scan = _Scan(entry.shown, entry.path, suites, home)
    scan.name(suites)
    if entry.kind == "folder":
        scan.add(0, "unreadable", f"{entry.error}: nothing in it was checked")
        return scan.found
    if entry.path.name == SECRET_FILE and (
            entry.git or not any(s.owns(entry.path) for s in suites)):
        # git would commit it (its suite folder is not ignored), or it is out of place
        scan.add(0, "private-suite-secret", "the key of a private suite's case ids: keep "
                 "it out of git and out of anything published")
    if entry.kind == "link":  # git stores the target's path: check that, never open it
        try:
            scan.line(1, os.readlink(entry.path), "symbolic link target")
        except OSError as exc:
            scan.add(0, "unreadable", f"cannot read the link ({exc.strerror})")
        return scan.found
    if entry.kind == "special":
        scan.add(0, "unreadable", "not a regular file (a FIFO, device or socket), not read")
        return scan.found
    try:
        fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        why = "permission denied" if exc.errno == errno.EACCES else exc.strerror
        scan.add(0, "unreadable", f"cannot read ({why})")
        return scan.found
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            scan.add(0, "unreadable", "not a regular file, not read")
        elif info.st_size > _MAX_TEXT_BYTES:
            scan.chunks(handle, info.st_size)
        else:
            try:
                scan.content(handle.read(_MAX_TEXT_BYTES + 1))
            except OSError as exc:
                scan.add(0, "unreadable", f"cannot read ({exc.strerror})")
    return scan.found


def leak_check(paths: list[Path], *, staged: bool = False, suites: list[Path] | None = None,
               home: str = "", everything: bool = False,
               skipped: list[int] | None = None) -> list[Finding]:
    """Findings in ``paths`` (or git's staged files), sorted by file and line.

    ``everything`` also checks files git ignores; otherwise their number is appended to
    ``skipped`` (when given), so that the caller can say they were not checked.
    """
    paths = paths or [Path(".")]
    skipped = [] if skipped is None else skipped
    findings: list[Finding] = []
    if staged:
        top, files = staged_files(paths[0])
        private = [PrivateSuite.load(p) for p in suites or find_private_suites([top])]
        for staged_file in files:
            name = staged_file.name
            scan = _Scan(name, top / name, private, home, note="staged")
            for suite in private:
                if suite.owns(top / name):
                    scan.add(1, "private-suite-file", f"file of private suite {suite.id} "
                             "is staged")
            scan.name(private)
            if Path(name).name == SECRET_FILE:
                scan.add(0, "private-suite-secret", "the key of a private suite's case ids "
                         "is staged")
            with open_blob(top, staged_file.blob) as handle:  # streamed, as on disk
                if staged_file.size > _MAX_TEXT_BYTES:
                    scan.chunks(handle, staged_file.size)
                else:
                    scan.content(handle.read(_MAX_TEXT_BYTES + 1))
            findings.extend(scan.found)
        return sorted(set(findings))
    private = [PrivateSuite.load(p) for p in suites or find_private_suites(paths)]
    seen: set[Path] = set()
    for base in paths:
        for entry in walk(base, everything, skipped):
            key = entry.path.parent.resolve() / entry.path.name
            if key in seen:
                continue
            seen.add(key)
            found = _check_file(entry, private, home)
            if len(paths) > 1:  # names are relative to their folder: say which one
                found = [replace(f, path=f"{base / f.path}") for f in found]
            findings.extend(found)
    return sorted(set(findings))
