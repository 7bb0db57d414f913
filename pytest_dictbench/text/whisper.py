"""OpenAI's Whisper English text normaliser (``whisper/normalizers/english.py`` of
openai/whisper, release 20250625).

It is taken from the ``whisper-normalizer`` package (MIT, pure Python, its spelling table
shipped inside it: nothing is downloaded), extra ``normalizer``, which differs from
OpenAI's files in four replacements of its own (``kinda``, ``sorta``, ``dunno`` and
``cause``: the last turns every ``cause`` into ``because``); they are removed here, so
the output is OpenAI's, byte for byte (``tests/test_whisper_normalizer_oracle.py`` checks
it against an oracle of OpenAI's files at c0d2f624). An ``error_rate`` suite chooses it with
``[params] normalization = "whisper"``. The Open ASR Leaderboard scored English with
this normaliser until 2025-09; docs/error-rate.md lists what it has changed since.

What it makes equal: spelled and written numbers (``ten minutes`` / ``10 minutes``),
British and American spellings (``colour`` / ``color``), spoken and written currency
(``twenty dollars`` / ``$20``), contractions (``won't`` / ``will not``), titles
(``Mr.`` / ``mister``); it also drops fillers (``um``, ``uh``) and bracketed text. What it
leaves apart: clock times (``9:15`` becomes ``9 15`` but ``nine fifteen`` becomes
``915``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import metadata

from ..errors import SuiteError

__all__ = ["PACKAGE", "whisper_english", "whisper_normalizer_info"]

#: The distribution that provides the normaliser.
PACKAGE = "whisper-normalizer"
HINT = (f"params.normalization 'whisper' needs the {PACKAGE} package: "
        "pip install 'pytest-dictbench[normalizer]'")


#: Replacements of the package that OpenAI's normaliser does not make (PS18).
_NOT_OPENAIS = (r"\bkinda\b", r"\bsorta\b", r"\bdunno\b", r"\bcause\b")


@functools.cache
def _normalizer() -> Callable[[str], str]:
    try:
        from whisper_normalizer.english import EnglishTextNormalizer
    except ImportError:
        raise SuiteError(HINT) from None
    normalizer = EnglishTextNormalizer()
    for pattern in _NOT_OPENAIS:
        normalizer.replacers.pop(pattern, None)
    return normalizer


def whisper_english(text: str) -> str:
    """``text`` as OpenAI's Whisper English normaliser writes it, byte for byte: lower
    case, words one space apart, and (as OpenAI's does) a leading space where a removed
    word began the text; scoring splits on whitespace, so that space counts for nothing."""
    return _normalizer()(text)


def whisper_normalizer_info() -> dict[str, str]:
    """Which normaliser, from which package and version: recorded in ``dictbench.json``."""
    _normalizer()  # refuse a missing package with the install hint
    return {"name": "whisper-english", "package": PACKAGE,
            "version": metadata.version(PACKAGE)}
