"""Japanese text helpers around sudachipy: width folding, token boundaries, readings.

Every function here works on *folded* text: NFKC (full-width ASCII becomes half-width,
half-width katakana becomes full-width) with CRLF/CR line ends turned into LF.

Word matching (:meth:`AnalysedText.find`) follows two rules:

* **Spacing and light punctuation are ignored.** Whitespace and the characters in
  :data:`IGNORABLE` may appear anywhere inside a match (``TCP/IP 設定`` matches ``TCPIP設定``,
  ``新しい API キー`` matches ``APIキー``).
* **A match must start and end on a token boundary.** The text is split with sudachipy in
  mode B (middle units: ``部門|会議``, ``会議室``, ``ログイン|ID``, ``本人|確認``), and a match
  counts only when its first character starts a token and its last character ends one.
  So ``会議`` is found in ``部門会議`` but not in ``会議室``, and ``3件`` is not found inside
  ``13件``.

The tokenizer is created once per process and guarded by a lock (a sudachipy tokenizer
must not be used from two threads at once).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

__all__ = [
    "IGNORABLE",
    "AnalysedText",
    "Span",
    "Token",
    "analyse",
    "bare",
    "fold",
    "reading",
    "squash",
    "tokenize",
    "words",
]

#: Characters skipped inside a match (besides whitespace), after NFKC folding.
#: The full stop ``.`` is deliberately absent so that ``1.5`` never matches ``15``.
IGNORABLE = "、。,・「」『』()[]【】〈〉《》:;!?\"'“”‘’/"

_IGNORABLE_CLASS = "[\\s" + re.escape(IGNORABLE) + "]*"
#: sudachipy refuses inputs above about 49 kB; lines longer than this are cut in pieces.
_MAX_CHUNK_CHARS = 12_000
_LOCK = threading.Lock()


def fold(text: str) -> str:
    """NFKC-fold ``text`` and turn CRLF / CR line ends into LF."""
    return unicodedata.normalize("NFKC", text.replace("\r\n", "\n").replace("\r", "\n"))


def bare(text: str) -> str:
    """Fold ``text`` and drop whitespace and :data:`IGNORABLE` characters (what
    :meth:`AnalysedText.find` compares)."""
    return "".join(c for c in fold(text) if not c.isspace() and c not in IGNORABLE)


def squash(text: str) -> str:
    """Fold ``text`` and drop all whitespace: the key for "the same text" comparisons."""
    return "".join(fold(text).split())


@dataclass(frozen=True)
class Token:
    """One sudachipy morpheme, with character offsets into the folded text."""

    surface: str
    #: The six-field sudachipy part of speech, e.g. ``("感動詞", "フィラー", "*", ...)``.
    pos: tuple[str, ...]
    #: Reading in katakana, as sudachipy gives it.
    reading: str
    #: sudachipy's normalized form (``為る`` for ``し``).
    normalized: str
    start: int
    end: int

    @property
    def is_space(self) -> bool:
        return self.pos[0] == "空白" or not self.surface.strip()

    @property
    def is_symbol(self) -> bool:
        return self.pos[0] in ("補助記号", "記号")


#: A ``(start, end)`` character range in the folded text.
Span = tuple[int, int]


@cache
def analyser_info() -> dict[str, str]:
    """Which analyser, dictionary and split mode produce tokens here, with versions:
    word matching and extracted names depend on them, so reports record them."""
    from importlib.metadata import PackageNotFoundError, version

    def installed(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "unknown"

    return {"analyser": "sudachipy", "analyser_version": installed("sudachipy"),
            "dictionary": "sudachidict_core",
            "dictionary_version": installed("sudachidict_core"),
            "split_mode": "B", "normalization": "NFKC"}


@cache
def _tokenizer() -> Any:
    """The process-wide sudachipy tokenizer (core dictionary, split mode B)."""
    from sudachipy import Dictionary, SplitMode

    return Dictionary(dict="core").tokenizer(mode=SplitMode.B)


def _chunks(line: str) -> Iterator[tuple[int, str]]:
    for start in range(0, len(line), _MAX_CHUNK_CHARS):
        yield start, line[start : start + _MAX_CHUNK_CHARS]


def tokenize(folded: str) -> tuple[Token, ...]:
    """Split already folded text into mode-B tokens, line by line (newlines are boundaries)."""
    tokens: list[Token] = []
    offset = 0
    for line in folded.split("\n"):
        for start, chunk in _chunks(line):
            if not chunk:
                continue
            with _LOCK:
                morphemes = _tokenizer().tokenize(chunk)
                for m in morphemes:
                    tokens.append(
                        Token(
                            surface=m.surface(),
                            pos=tuple(m.part_of_speech()),
                            reading=m.reading_form(),
                            normalized=m.normalized_form(),
                            start=offset + start + m.begin(),
                            end=offset + start + m.end(),
                        )
                    )
        offset += len(line) + 1
    return tuple(tokens)


#: A morpheme in light form: surface, six-field part of speech, out of vocabulary.
Word = tuple[str, tuple[str, ...], bool]


def words(folded: str) -> list[Word]:
    """Mode-B morphemes of already folded text, line by line, without offsets or readings.

    The same tokenizer as :func:`tokenize`; for callers that only read surfaces and parts
    of speech of many texts (about three times cheaper than building :class:`Token`)."""
    found: list[Word] = []
    for line in folded.split("\n"):
        for _, chunk in _chunks(line):
            if chunk:
                with _LOCK:
                    found.extend((m.surface(), m.part_of_speech(), m.is_oov())
                                 for m in _tokenizer().tokenize(chunk))
    return found


@lru_cache(maxsize=512)
def _pattern(needle: str, ignore_case: bool) -> re.Pattern[str] | None:
    chars = bare(needle)
    if not chars:
        return None
    flags = re.IGNORECASE if ignore_case else 0
    return re.compile(_IGNORABLE_CLASS.join(re.escape(c) for c in chars), flags)


@dataclass(frozen=True)
class AnalysedText:
    """Folded text with its tokens and the set of token boundaries."""

    text: str
    tokens: tuple[Token, ...]
    boundaries: frozenset[int]

    def find(self, needle: str, *, ignore_case: bool = True) -> list[Span]:
        """Every occurrence of ``needle`` that starts and ends on a token boundary.

        Whitespace and :data:`IGNORABLE` characters are skipped on both sides; Latin letters
        are compared without regard to case unless ``ignore_case`` is false.
        """
        pattern = _pattern(needle, ignore_case)
        if pattern is None:
            return []
        spans: list[Span] = []
        pos = 0
        while (match := pattern.search(self.text, pos)) is not None:
            if match.start() in self.boundaries and match.end() in self.boundaries:
                spans.append((match.start(), match.end()))
                pos = match.end()
            else:
                pos = match.start() + 1
        return spans

    def count(self, needle: str, *, ignore_case: bool = True) -> int:
        """How many times ``needle`` occurs (see :meth:`find`)."""
        return len(self.find(needle, ignore_case=ignore_case))

    def contains(self, needle: str, *, ignore_case: bool = True) -> bool:
        return bool(self.find(needle, ignore_case=ignore_case))

    def tokens_in(self, span: Span) -> tuple[Token, ...]:
        """The tokens lying inside ``span``."""
        return tuple(t for t in self.tokens if t.start >= span[0] and t.end <= span[1])


@lru_cache(maxsize=4096)
def analyse(text: str) -> AnalysedText:
    """Fold and tokenize ``text`` (cached: the same text is analysed once per process)."""
    folded = fold(text)
    tokens = tokenize(folded)
    boundaries = {0, len(folded)}
    for token in tokens:
        boundaries.add(token.start)
        boundaries.add(token.end)
    return AnalysedText(folded, tokens, frozenset(boundaries))


def reading(word: str) -> str:
    """The katakana reading sudachipy gives ``word`` (its tokens' readings joined)."""
    return "".join(t.reading for t in analyse(word).tokens if not t.is_space)
