"""The Whisper English text normaliser, as the field computes English WER.

The Open ASR Leaderboard scores English with the normaliser published with Whisper; it is
taken here from the ``whisper-normalizer`` package (MIT, pure Python, its spelling table
shipped inside it: nothing is downloaded), extra ``normalizer``. An ``error_rate`` suite
chooses it with ``[params] normalization = "whisper"``.

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


@functools.cache
def _normalizer() -> Callable[[str], str]:
    try:
        from whisper_normalizer.english import EnglishTextNormalizer
    except ImportError:
        raise SuiteError(HINT) from None
    return EnglishTextNormalizer()


def whisper_english(text: str) -> str:
    """``text`` as the Whisper English normaliser writes it (lower case, words apart)."""
    return " ".join(_normalizer()(text).split())


def whisper_normalizer_info() -> dict[str, str]:
    """Which normaliser, from which package and version: recorded in ``dictbench.json``."""
    _normalizer()  # refuse a missing package with the install hint
    return {"name": "whisper-english", "package": PACKAGE,
            "version": metadata.version(PACKAGE)}
